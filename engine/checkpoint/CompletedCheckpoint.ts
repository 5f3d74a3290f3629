/**
 * A checkpoint that every task, coordinator and master hook acknowledged, whose `_metadata` was
 * written and which the store accepted: the operator states per (operator uid, subtask), the
 * coordinator and master states, which tasks had finished and, per operator uid, the parallelism,
 * max parallelism and finished subtasks it was taken at (Flink's OperatorState).
 *
 * @see org.apache.flink.runtime.checkpoint.CompletedCheckpoint (reference 1.9, 1.12)
 * Invariants: immutable once built; every operator state's subtask index is >= 0.
 */
import type { OperatorSubtaskStateHandle } from './TaskStateSnapshot.ts';
import type { CheckpointProperties } from './CheckpointProperties.ts';
import type { SubtaskRef } from './CheckpointPlan.ts';

/** `chk-<id>`: the exclusive directory of checkpoint `id` in the object store. */
export function checkpointDirectory(id: number): string {
  return `chk-${id}`;
}

/**
 * `savepoint-<id>`: the directory of savepoint `id`. Flink names it `savepoint-<job id prefix>-
 * <random>` under the savepoint directory; the id stands in for the random part, so a run's
 * paths depend on nothing but the run. Its files are the user's: the job never deletes a
 * completed savepoint.
 */
export function savepointDirectory(id: number): string {
  return `savepoint-${id}`;
}

/** The directory snapshot `id` writes into: a savepoint's own, else `chk-<id>`. */
export function snapshotDirectory(id: number, isSavepoint: boolean): string {
  return isSavepoint ? savepointDirectory(id) : checkpointDirectory(id);
}

/** `<directory>/_metadata`: where the metadata of checkpoint (or savepoint) `id` is written. */
export function metadataPath(id: number, isSavepoint = false): string {
  return `${snapshotDirectory(id, isSavepoint)}/_metadata`;
}

/**
 * What Flink's OperatorState records of one operator besides its handles: the parallelism and max
 * parallelism of its job vertex when the checkpoint was taken, and which subtasks had finished.
 * Kept per operator uid, never per vertex id: chaining, and so vertex ids, can differ in the job
 * that restores (a forward edge only chains equal parallelism).
 * @see org.apache.flink.runtime.checkpoint.OperatorState, FullyFinishedOperatorState,
 *      FinishedOperatorSubtaskState
 */
export interface OperatorStateInfo {
  readonly parallelism: number;
  readonly maxParallelism: number;
  /** Every subtask had finished (Flink's FullyFinishedOperatorState). */
  readonly fullyFinished: boolean;
  /** The subtasks that had finished (FinishedOperatorSubtaskState), ascending. */
  readonly finishedSubtasks: readonly number[];
}

/** Everything a CompletedCheckpoint holds. */
export interface CompletedCheckpointData {
  readonly checkpointId: number;
  /** When the checkpoint was triggered, µs. */
  readonly triggerTimestampUs: number;
  /** When it completed, µs. */
  readonly completionTimestampUs: number;
  readonly props: CheckpointProperties;
  readonly operatorStates: ReadonlyMap<string, ReadonlyMap<number, OperatorSubtaskStateHandle>>;
  readonly coordinatorStates: ReadonlyMap<string, unknown>;
  readonly masterStates: ReadonlyMap<string, unknown>;
  readonly finishedTasks: readonly SubtaskRef[];
  readonly fullyFinishedVertices: readonly string[];
  /**
   * Per operator uid of every job vertex (stateful or not, finished or not), its
   * {@link OperatorStateInfo}, so a restore can tell a parallelism change from subtasks that
   * simply had no state, and check the max parallelism.
   */
  readonly operatorInfo: ReadonlyMap<string, OperatorStateInfo>;
  /**
   * The directory its files are in: `[run-<n>/]chk-<id>` or `[run-<n>/]savepoint-<id>`
   * (JobRun.storagePrefix); default: {@link snapshotDirectory} of a job's first run.
   */
  readonly directory?: string;
}

/** A plain-JSON view for oracles and reports. */
export interface DecodedCheckpoint {
  readonly checkpointId: number;
  readonly kind: string;
  readonly triggerTimestampUs: number;
  readonly completionTimestampUs: number;
  readonly metadataPath: string;
  /** operator uid -> subtask -> { path, data }. */
  readonly operators: Record<string, Record<string, { path: string; data: unknown }>>;
  readonly coordinators: Record<string, unknown>;
  readonly masterStates: Record<string, unknown>;
  readonly finishedTasks: readonly string[];
  readonly fullyFinishedVertices: readonly string[];
  /** operator uid -> its {@link OperatorStateInfo}. */
  readonly operatorInfo: Record<string, OperatorStateInfo>;
}

export class CompletedCheckpoint implements CompletedCheckpointData {
  readonly checkpointId: number;
  readonly triggerTimestampUs: number;
  readonly completionTimestampUs: number;
  readonly props: CheckpointProperties;
  readonly operatorStates: ReadonlyMap<string, ReadonlyMap<number, OperatorSubtaskStateHandle>>;
  readonly coordinatorStates: ReadonlyMap<string, unknown>;
  readonly masterStates: ReadonlyMap<string, unknown>;
  readonly finishedTasks: readonly SubtaskRef[];
  readonly fullyFinishedVertices: readonly string[];
  readonly operatorInfo: ReadonlyMap<string, OperatorStateInfo>;
  readonly directory: string;
  /**
   * The decoded view, built on the first {@link decode} and then returned by every call: the
   * coordinator writes it to `_metadata` at completion and the simulator's trace hook reads it
   * right after, so decoding once halves the work. The holder is made before `this` is frozen.
   */
  private readonly decoded: { view?: DecodedCheckpoint } = {};

  constructor(data: CompletedCheckpointData) {
    this.checkpointId = data.checkpointId;
    this.triggerTimestampUs = data.triggerTimestampUs;
    this.completionTimestampUs = data.completionTimestampUs;
    this.props = data.props;
    this.operatorStates = data.operatorStates;
    this.coordinatorStates = data.coordinatorStates;
    this.masterStates = data.masterStates;
    this.finishedTasks = Object.freeze([...data.finishedTasks]);
    this.fullyFinishedVertices = Object.freeze([...data.fullyFinishedVertices]);
    this.operatorInfo = data.operatorInfo;
    this.directory = data.directory ?? snapshotDirectory(data.checkpointId, data.props.isSavepoint);
    Object.freeze(this);
  }

  /** `<directory>/_metadata`: `chk-<id>/_metadata`, `savepoint-<id>/_metadata`, under `run-<n>/` for a later run. */
  get metadataPath(): string {
    return `${this.directory}/_metadata`;
  }

  /**
   * The same snapshot with other properties: how a restore in a claim mode takes over a
   * savepoint or a retained checkpoint (CheckpointCoordinator.restoreSavepoint converts it "to
   * a checkpoint so the system can fall back to it"); its files and directory stay where they are.
   */
  withProperties(props: CheckpointProperties): CompletedCheckpoint {
    return new CompletedCheckpoint({ ...this, props, directory: this.directory });
  }

  /** The object-store paths of the task state files, in operator then subtask order. */
  stateFiles(): string[] {
    const out: string[] = [];
    for (const subtasks of this.operatorStates.values()) {
      for (const h of subtasks.values()) out.push(h.handle.path);
    }
    return out;
  }

  /**
   * The content written to `_metadata`: the decoded view, and the checkpoint itself by
   * reference (as Flink's metadata references the state handles), which a restore into a new job
   * run reads back (JobMaster.start).
   */
  metadata(): Record<string, unknown> {
    return { ...this.decode(), checkpoint: this };
  }

  /** Rough size of the metadata file, bytes. */
  metadataSizeBytes(): number {
    return 256 + 64 * this.stateFiles().length + 64 * this.coordinatorStates.size;
  }

  /**
   * A plain view for oracles, built once per checkpoint and shared by every caller (and, shallowly
   * copied, by the `_metadata` object, see {@link metadata}), so callers must not modify it; the
   * `data` objects are the snapshots' own, shared, not copied. Every consumer (the `_metadata`
   * write, sim/MiniCluster's `completedCheckpoints`, the oracles that read them) only reads it:
   * checked by running the fingerprint and the oracle, sim and checkpoint tests with the view
   * deeply frozen. It is not frozen here: Object.freeze of its fresh records cost more than
   * decoding them (about 1% of a run).
   */
  decode(): DecodedCheckpoint {
    return this.decoded.view ??= this.buildView();
  }

  private buildView(): DecodedCheckpoint {
    const operators: Record<string, Record<string, { path: string; data: unknown }>> = {};
    for (const [uid, subtasks] of this.operatorStates) {
      const per: Record<string, { path: string; data: unknown }> = {};
      // `per[i]` is `per[String(i)]` (a property key is the number's string), without the string.
      for (const [i, h] of subtasks) per[i] = { path: h.handle.path, data: h.data };
      operators[uid] = per;
    }
    return {
      checkpointId: this.checkpointId,
      kind: this.props.kind,
      triggerTimestampUs: this.triggerTimestampUs,
      completionTimestampUs: this.completionTimestampUs,
      metadataPath: this.metadataPath,
      operators,
      coordinators: Object.fromEntries(this.coordinatorStates),
      masterStates: Object.fromEntries(this.masterStates),
      finishedTasks: this.finishedTasks.map((t) => `${t.vertexId}#${t.subtask}`),
      fullyFinishedVertices: [...this.fullyFinishedVertices],
      operatorInfo: Object.fromEntries(this.operatorInfo),
    };
  }
}
