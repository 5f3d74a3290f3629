/**
 * What kind of snapshot a checkpoint is and what happens to it: checkpoint or savepoint, forced
 * (may exceed maxConcurrent), and whether its files are discarded when it is subsumed or when the
 * job ends in each status.
 *
 * Savepoints (`forSavepoint`, `forSyncSavepoint`) are never discarded by the job: their files are
 * the user's. The coordinator keeps them out of the store and out of subsumption, notifies tasks
 * only of a synchronous one, and the decider orders them first. The savepoint format (canonical
 * or native) is a property only: heap state is written the same either way.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointProperties, SavepointType (reference 1.12, 1.14)
 * Invariants: immutable; savepoints are never discarded automatically.
 */
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';
import type { PostCheckpointAction, SnapshotType } from './CheckpointBarrier.ts';
import type { CheckpointRetentionPolicy } from './CheckpointCoordinatorConfiguration.ts';

/** SavepointFormatType: how a savepoint's state is written (a label here). */
export type SavepointFormatType = 'CANONICAL' | 'NATIVE';

export type { PostCheckpointAction } from './CheckpointBarrier.ts';

export class CheckpointProperties {
  private constructor(
    readonly forced: boolean,
    readonly isSavepoint: boolean,
    readonly isSynchronous: boolean,
    readonly discardSubsumed: boolean,
    private readonly discardOn: { finished: boolean; cancelled: boolean; failed: boolean; suspended: boolean },
    readonly postCheckpointAction: PostCheckpointAction = 'NONE',
    readonly formatType: SavepointFormatType | undefined = undefined,
    /** A snapshot restored in NO_CLAIM mode (isUnclaimed): restoring it forces a full checkpoint. */
    readonly unclaimed = false,
  ) {}

  /**
   * The properties of a snapshot restored in NO_CLAIM mode (forUnclaimedSnapshot): like a
   * savepoint, never discarded, and unclaimed, so the checkpoints after a restore from it are
   * FULL until one joins the store.
   */
  static forUnclaimedSnapshot(): CheckpointProperties {
    return new CheckpointProperties(false, true, false, false,
      { finished: false, cancelled: false, failed: false, suspended: false }, 'NONE', 'CANONICAL', true);
  }

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

  /**
   * A savepoint (forSavepoint): forced when unaligned checkpoints are off, as the coordinator
   * asks (`!unalignedCheckpointsEnabled`), so it may exceed maxConcurrent; never discarded.
   */
  static forSavepoint(forced: boolean, formatType: SavepointFormatType = 'CANONICAL'): CheckpointProperties {
    return new CheckpointProperties(forced, true, false, false,
      { finished: false, cancelled: false, failed: false, suspended: false }, 'NONE', formatType);
  }

  /**
   * The savepoint of stop-with-savepoint (forSyncSavepoint): `terminate` for the drain variant
   * (SavepointType.terminate), else SavepointType.suspend.
   */
  static forSyncSavepoint(forced: boolean, terminate: boolean, formatType: SavepointFormatType = 'CANONICAL'): CheckpointProperties {
    return new CheckpointProperties(forced, true, true, false,
      { finished: false, cancelled: false, failed: false, suspended: false }, terminate ? 'TERMINATE' : 'SUSPEND', formatType);
  }

  /** The SnapshotType barriers carry (getCheckpointType): CHECKPOINT, SAVEPOINT or SYNC_SAVEPOINT. */
  get checkpointType(): SnapshotType {
    if (!this.isSavepoint) return 'CHECKPOINT';
    return this.isSynchronous ? 'SYNC_SAVEPOINT' : 'SAVEPOINT';
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
