/**
 * What kind of snapshot a checkpoint is and what happens to it: checkpoint or savepoint, forced
 * (may exceed maxConcurrent), and whether its files are discarded when it is subsumed or when the
 * job ends in each status.
 *
 * Only the checkpoint path is used so far. Savepoints (`forSavepoint`, `forSyncSavepoint`) are the
 * documented extension point for the savepoint issue: the coordinator already keeps them out of
 * the store and out of subsumption, and the decider already orders and forces them.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointProperties (reference 1.12, 1.14)
 * Invariants: immutable; savepoints are never discarded automatically.
 */
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';
import type { CheckpointRetentionPolicy } from './CheckpointCoordinatorConfiguration.ts';

export class CheckpointProperties {
  private constructor(
    readonly forced: boolean,
    readonly isSavepoint: boolean,
    readonly isSynchronous: boolean,
    readonly discardSubsumed: boolean,
    private readonly discardOn: { finished: boolean; cancelled: boolean; failed: boolean; suspended: boolean },
  ) {}

  /** Properties of a periodic or manual checkpoint under `policy` (forCheckpoint). */
  static forCheckpoint(policy: CheckpointRetentionPolicy): CheckpointProperties {
    switch (policy) {
      case 'NEVER_RETAIN_AFTER_TERMINATION':
        return new CheckpointProperties(false, false, false, true,
          { finished: true, cancelled: true, failed: true, suspended: true });
      case 'RETAIN_ON_FAILURE':
        return new CheckpointProperties(false, false, false, true,
          { finished: true, cancelled: true, failed: false, suspended: true });
      case 'RETAIN_ON_CANCELLATION':
        return new CheckpointProperties(false, false, false, true,
          { finished: true, cancelled: false, failed: false, suspended: false });
    }
  }

  /** Extension point: a savepoint, forced when unaligned checkpoints are off (forSavepoint). */
  static forSavepoint(forced: boolean): CheckpointProperties {
    return new CheckpointProperties(forced, true, false, false,
      { finished: false, cancelled: false, failed: false, suspended: false });
  }

  /** Extension point: the savepoint of stop-with-savepoint (forSyncSavepoint). */
  static forSyncSavepoint(forced: boolean): CheckpointProperties {
    return new CheckpointProperties(forced, true, true, false,
      { finished: false, cancelled: false, failed: false, suspended: false });
  }

  /** True when the files go with the checkpoint when the job reaches `status`. */
  discardOnShutdown(status: JobStatus): boolean {
    switch (status) {
      case 'FINISHED':
        return this.discardOn.finished;
      case 'CANCELED':
        return this.discardOn.cancelled;
      case 'FAILED':
        return this.discardOn.failed;
      default:
        return this.discardOn.suspended;
    }
  }

  /** A pending checkpoint with these properties may be subsumed (savepoints never are). */
  canBeSubsumed(): boolean {
    return !this.isSavepoint;
  }

  /** For traces and decoded views. */
  get kind(): 'checkpoint' | 'savepoint' | 'sync-savepoint' {
    if (!this.isSavepoint) return 'checkpoint';
    return this.isSynchronous ? 'sync-savepoint' : 'savepoint';
  }
}
