/**
 * Where completed checkpoints live: the latest is what a restore uses.
 *
 * @see org.apache.flink.runtime.checkpoint.CompletedCheckpointStore (reference 1.12)
 */
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';

/** The result of adding a checkpoint. */
export interface AddCheckpointResult {
  /** Entries removed by subsumption, oldest first. */
  readonly subsumed: readonly CompletedCheckpoint[];
  /** The highest subsumed id whose props discard on subsume; -1 when none. */
  readonly lastSubsumedId: number;
}

export interface CompletedCheckpointStore {
  /**
   * Adds `checkpoint` and subsumes older ones beyond the retained number; the subsumed ones that
   * discard on subsume are handed to the cleaner, and `postCleanup` runs after each cleanup.
   * @throws Error when the store cannot persist it (the old checkpoints are then kept).
   */
  addCheckpointAndSubsumeOldestOne(checkpoint: CompletedCheckpoint, postCleanup: () => void): AddCheckpointResult;
  /** The newest checkpoint, if any. */
  getLatestCheckpoint(): CompletedCheckpoint | undefined;
  /** The newest checkpoint's id, 0 when empty. */
  getLatestCheckpointId(): number;
  /** All retained checkpoints, oldest first. */
  getAllCheckpoints(): readonly CompletedCheckpoint[];
  /** Ends the store at job status `status` (see DefaultCompletedCheckpointStore). */
  shutdown(status: JobStatus, postCleanup: () => void): void;
}
