/**
 * The completed-checkpoint store: an ordered list, oldest first, that keeps `retained` entries
 * by subsumption (CheckpointSubsumeHelper's rules: never the newest, any savepoint, anything when
 * the newest is a synchronous savepoint, otherwise any checkpoint except the newest real one), and
 * discards subsumed checkpoints' files through the CheckpointsCleaner.
 *
 * @see org.apache.flink.runtime.checkpoint.DefaultCompletedCheckpointStore,
 *      CheckpointSubsumeHelper (reference 1.12)
 * Invariants: ids strictly increase; at most max(retained, 2) entries (the newest and the newest
 * real checkpoint are protected); after shutdown it is empty.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';
import { assert } from '../util/assert.ts';
import type { CheckpointsCleaner } from './CheckpointsCleaner.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { AddCheckpointResult, CompletedCheckpointStore } from './CompletedCheckpointStore.ts';

/** Options of {@link DefaultCompletedCheckpointStore}. */
export interface DefaultCompletedCheckpointStoreOptions {
  readonly retained: number;
  readonly cleaner: CheckpointsCleaner;
  /** Test hook standing for a failing HA write: throws to refuse `checkpoint`. */
  readonly persist?: (checkpoint: CompletedCheckpoint) => void;
}

function canSubsume(next: CompletedCheckpoint, latest: CompletedCheckpoint,
  latestNotSavepoint: CompletedCheckpoint | undefined): boolean {
  if (next === latest) return false;
  if (next.props.isSavepoint) return true;
  if (latest.props.isSynchronous) return true;
  return next !== latestNotSavepoint;
}

export class DefaultCompletedCheckpointStore implements CompletedCheckpointStore {
  private checkpoints: CompletedCheckpoint[] = [];
  private readonly retained: number;
  private readonly cleaner: CheckpointsCleaner;
  private readonly persist: (checkpoint: CompletedCheckpoint) => void;
  private isShutdown = false;

  constructor(env: EngineEnv, options: DefaultCompletedCheckpointStoreOptions) {
    assert(Number.isInteger(options.retained) && options.retained >= 1, 'retained must be >= 1');
    this.retained = options.retained;
    this.cleaner = options.cleaner;
    this.persist = options.persist ?? (() => undefined);
    env.invariants.register('completed-checkpoint-store', () => this.checkInvariants());
  }

  addCheckpointAndSubsumeOldestOne(checkpoint: CompletedCheckpoint, postCleanup: () => void): AddCheckpointResult {
    assert(!this.isShutdown, 'add to a shut down store');
    const latestId = this.getLatestCheckpointId();
    assert(checkpoint.checkpointId > latestId,
      () => `checkpoint ${checkpoint.checkpointId} added after ${latestId}`);
    this.persist(checkpoint);
    this.checkpoints.push(checkpoint);
    const subsumed: CompletedCheckpoint[] = [];
    let lastSubsumedId = -1;
    const latest = checkpoint;
    const latestNotSavepoint = [...this.checkpoints].reverse().find((c) => !c.props.isSavepoint);
    for (const next of [...this.checkpoints]) {
      if (this.checkpoints.length <= this.retained) break;
      if (!canSubsume(next, latest, latestNotSavepoint)) continue;
      this.checkpoints.splice(this.checkpoints.indexOf(next), 1);
      subsumed.push(next);
      if (next.props.discardSubsumed) {
        lastSubsumedId = Math.max(lastSubsumedId, next.checkpointId);
        this.discard(next, postCleanup);
      }
    }
    return { subsumed, lastSubsumedId };
  }

  getLatestCheckpoint(): CompletedCheckpoint | undefined {
    return this.checkpoints[this.checkpoints.length - 1];
  }

  getLatestCheckpointId(): number {
    return this.getLatestCheckpoint()?.checkpointId ?? 0;
  }

  getAllCheckpoints(): readonly CompletedCheckpoint[] {
    return [...this.checkpoints];
  }

  get numberOfRetainedCheckpoints(): number {
    return this.checkpoints.length;
  }

  /**
   * On a globally terminal status (FINISHED, CANCELED, FAILED) removes every checkpoint and
   * discards those whose props say so for that status; on any other status (suspension) only
   * forgets them.
   */
  shutdown(status: JobStatus, postCleanup: () => void): void {
    const all = this.checkpoints;
    this.checkpoints = [];
    this.isShutdown = true;
    if (status !== 'FINISHED' && status !== 'CANCELED' && status !== 'FAILED') return;
    for (const c of all) if (c.props.discardOnShutdown(status)) this.discard(c, postCleanup);
  }

  private discard(c: CompletedCheckpoint, postCleanup: () => void): void {
    this.cleaner.cleanCheckpoint(c.checkpointId, [...c.stateFiles(), c.metadataPath],
      c.directory, postCleanup);
  }

  checkInvariants(): void {
    for (let i = 1; i < this.checkpoints.length; i++) {
      assert((this.checkpoints[i - 1] as CompletedCheckpoint).checkpointId <
        (this.checkpoints[i] as CompletedCheckpoint).checkpointId, 'store ids not increasing');
    }
    assert(this.checkpoints.length <= Math.max(this.retained, 2), 'store holds too many checkpoints');
    if (this.isShutdown) assert(this.checkpoints.length === 0, 'shut down store not empty');
  }
}
