/**
 * Assigns a completed checkpoint's state to the subtasks being restored, at UNCHANGED
 * parallelism: keyed state goes back to the subtask that wrote it; operator (non-keyed) state
 * goes through the round-robin repartitioner, which returns each subtask's own handles unless
 * there is union state (unioned into every subtask) or partly reported broadcast state
 * (re-spread); subtasks of fully finished vertices, and finished subtasks, are deployed as
 * finished with no state. Vertices without state in the checkpoint get no restore.
 *
 * A restore at another parallelism than the checkpoint's (as the checkpoint recorded it per
 * vertex) is refused with an error. Rescaling (key-group clipping, split redistribution, channel
 * state) is the extension point for a later issue: it would replace {@link assignOperator} and
 * drop {@link checkParallelismPreconditions}.
 *
 * @see org.apache.flink.runtime.checkpoint.StateAssignmentOperation (reference 4.2, 4.3)
 */
import type { OperatorStateHandle } from '../state/OperatorStateHandle.ts';
import { RoundRobinOperatorStateRepartitioner } from '../state/RoundRobinOperatorStateRepartitioner.ts';
import {
  isOperatorSubtaskState, operatorSubtaskState, type OperatorSubtaskState,
} from '../streaming/operators/OperatorSubtaskState.ts';
import { assert } from '../util/assert.ts';
import type { CheckpointJobVertex } from './CheckpointCoordinatorContext.ts';
import { subtaskKey, type SubtaskRef } from './CheckpointPlan.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type {
  JobManagerTaskRestore, OperatorSubtaskStateHandle, TaskStateSnapshot,
} from './TaskStateSnapshot.ts';

/** Options of {@link StateAssignmentOperation}. */
export interface StateAssignmentOptions {
  /** Allow checkpoint state without a matching operator (always true for regional restores). */
  readonly allowNonRestoredState: boolean;
}

const FINISHED_ON_RESTORE: TaskStateSnapshot = Object.freeze({
  operators: Object.freeze([]), isTaskDeployedAsFinished: true, isTaskFinished: true,
});

export class StateAssignmentOperation {
  constructor(
    private readonly checkpoint: CompletedCheckpoint,
    private readonly vertices: readonly CheckpointJobVertex[],
    private readonly options: StateAssignmentOptions,
  ) {}

  /**
   * The restores of `subtasks`, keyed by `<vertex>#<subtask>`; subtasks without state are left
   * out. @throws AssertionError when checkpoint state matches no operator and non-restored state
   * is not allowed, or when a parallelism differs from the checkpoint's (rescale unsupported).
   */
  assignStates(subtasks: readonly SubtaskRef[]): Map<string, JobManagerTaskRestore> {
    this.checkStateMappingCompleteness();
    for (const v of this.vertices) this.checkParallelismPreconditions(v);
    const out = new Map<string, JobManagerTaskRestore>();
    const wanted = new Set(subtasks.map((s) => subtaskKey(s.vertexId, s.subtask)));
    const finished = new Set(this.checkpoint.finishedTasks.map((t) => subtaskKey(t.vertexId, t.subtask)));
    const fullyFinished = new Set(this.checkpoint.fullyFinishedVertices);
    for (const v of this.vertices) {
      const perOperator = v.operatorUids.map((uid) => this.assignOperator(v, uid));
      for (let i = 0; i < v.parallelism; i++) {
        const key = subtaskKey(v.id, i);
        if (!wanted.has(key)) continue;
        if (fullyFinished.has(v.id) || finished.has(key)) {
          out.set(key, { restoreCheckpointId: this.checkpoint.checkpointId, taskStateSnapshot: FINISHED_ON_RESTORE });
          continue;
        }
        const operators: OperatorSubtaskStateHandle[] = [];
        for (const assigned of perOperator) {
          const h = assigned?.[i];
          if (h !== undefined) operators.push(h);
        }
        const vertexHasState = perOperator.some((a) => a !== undefined);
        if (!vertexHasState) continue;
        out.set(key, {
          restoreCheckpointId: this.checkpoint.checkpointId,
          taskStateSnapshot: Object.freeze({
            operators: Object.freeze(operators), isTaskDeployedAsFinished: false, isTaskFinished: false,
          }),
        });
      }
    }
    return out;
  }

  private checkStateMappingCompleteness(): void {
    if (this.options.allowNonRestoredState) return;
    const uids = new Set(this.vertices.flatMap((v) => v.operatorUids));
    for (const uid of this.checkpoint.operatorStates.keys()) {
      assert(uids.has(uid), () => `There is no operator for the state ${uid}`);
    }
  }

  /**
   * Refuses any change of a vertex's parallelism since the checkpoint, up or down: without
   * rescaling, a scale-up would hand the new subtasks nothing and a scale-down would lose the
   * state of the removed ones. A vertex the checkpoint does not know is not checked here (the
   * subtask-index check in {@link assignOperator} still refuses state of too many subtasks).
   * @throws AssertionError naming the vertex's operators and both parallelisms.
   */
  private checkParallelismPreconditions(v: CheckpointJobVertex): void {
    const before = this.checkpoint.vertexParallelism.get(v.id);
    assert(before === undefined || before === v.parallelism, () =>
      `operator ${v.operatorUids.join(' -> ')} (vertex ${v.id}) has parallelism ${String(before)} in checkpoint `
      + `${this.checkpoint.checkpointId} but ${v.parallelism} in the job: rescaling is not supported`);
  }

  /**
   * One operator's handles per subtask (undefined entries: nothing for that subtask), or
   * undefined when the checkpoint holds no state for it.
   */
  private assignOperator(v: CheckpointJobVertex, uid: string):
    (OperatorSubtaskStateHandle | undefined)[] | undefined {
    const states = this.checkpoint.operatorStates.get(uid);
    if (states === undefined || states.size === 0) return undefined;
    for (const i of states.keys()) {
      assert(i < v.parallelism,
        () => `state of ${uid} has subtask ${i} but ${v.id} runs at ${v.parallelism}: rescale is not supported`);
    }
    const own = Array.from({ length: v.parallelism }, (_x, i) => states.get(i));
    const data = own.map((h) => h?.data);
    if (!data.every((d) => d === undefined || isOperatorSubtaskState(d))) return own;
    const previous = data.map((d) => [...((d as OperatorSubtaskState | undefined)?.managedOperatorState ?? [])]);
    const repartitioned = RoundRobinOperatorStateRepartitioner.INSTANCE
      .repartitionState<unknown>(previous, v.parallelism, v.parallelism);
    const firstHandle = own.find((h) => h !== undefined) as OperatorSubtaskStateHandle;
    return own.map((h, i) => {
      const handles = repartitioned[i] ?? [];
      if (sameHandles(handles, previous[i] ?? [])) return h;
      const keyed = (h?.data as OperatorSubtaskState | undefined)?.managedKeyedState ?? [];
      // The file named is the subtask's own snapshot, or the first contributing one when the
      // subtask reported nothing itself (its union or broadcast state comes from other files).
      return {
        operatorUid: uid,
        handle: (h ?? firstHandle).handle,
        data: operatorSubtaskState({ managedKeyedState: keyed, managedOperatorState: handles }),
      };
    });
  }
}

function sameHandles(a: readonly OperatorStateHandle[], b: readonly OperatorStateHandle[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}
