/**
 * A master hook: JobMaster-side state that is snapshotted with each checkpoint after the
 * OperatorCoordinators and restored with it (e.g. an externally induced source).
 *
 * @see org.apache.flink.runtime.checkpoint.MasterTriggerRestoreHook, hooks.MasterHooks
 * (reference 1.6, 5.1)
 */
import type { Executor } from '../api/Executor.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';

export interface MasterTriggerRestoreHook {
  /** Unique among the coordinator's hooks; master states are keyed by it. */
  readonly identifier: string;
  /**
   * Snapshots the hook's state for checkpoint `checkpointId` taken at `timestampUs` (µs).
   * Returns a future of the state, or null for "no state" (the hook still counts as
   * acknowledged). Runs on the coordinator timer thread; `io` is for blocking work.
   */
  triggerCheckpoint(checkpointId: number, timestampUs: number, io: Executor):
    CompletableFuture<unknown> | null;
  /** Restores checkpoint `checkpointId`'s state (null when it holds none for this hook). */
  restoreCheckpoint(checkpointId: number, state: unknown): void;
  /** Called instead of a restore when there is no checkpoint to restore. */
  reset(): void;
  /** Called when the coordinator shuts down. */
  close(): void;
}
