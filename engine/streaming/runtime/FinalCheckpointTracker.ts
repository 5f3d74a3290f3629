/**
 * FinalCheckpointTracker: what a StreamTask remembers of the checkpoints it performed and was
 * notified of, to know when it may finish (reference 5.6, 5.7). Flink keeps these as fields of
 * StreamTask: `latestReportCheckpointId`, `finalCheckpointMinId`, `syncSavepoint` and the one-shot
 * `finalCheckpointCompleted` future.
 *
 * - The final checkpoint is the first one performed after the task's data ended; its
 *   notification (or one of a later checkpoint) lets the task finish.
 * - In a stop-with-savepoint the synchronous savepoint replaces it: then only exactly that
 *   savepoint's notification does (StreamTask.notifyCheckpointComplete, isCurrentSyncSavepoint).
 * - A notification that skips a checkpoint the task performed (a lost or late one) is reported,
 *   for the `notify-complete-skipped` mark; savepoints the user asked for are never notified, so
 *   skipping one is none.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask
 * Invariants: `latestReportCheckpointId` only grows; at most one synchronous savepoint is set;
 * once completed, the final checkpoint stays completed.
 */
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';

export class FinalCheckpointTracker {
  /** The latest checkpoint id the task was notified of (or restored from); -1 at first. */
  latestReportCheckpointId = -1;
  /** Checkpoints performed and not yet covered by a notification, ascending. */
  private readonly performed: number[] = [];
  /** The first checkpoint performed after the data ended (finalCheckpointMinId). */
  private finalCheckpointId: number | undefined;
  /** The synchronous savepoint this task takes part in (StreamTask.syncSavepoint). */
  private syncSavepoint: number | undefined;
  /** The final checkpoint (the synchronous savepoint, when there is one) was notified: one-shot. */
  private completed = false;

  /** Whether the final checkpoint (or the synchronous savepoint) has been notified. */
  get finalCheckpointCompleted(): boolean {
    return this.completed;
  }

  /** The synchronous savepoint set, if any. */
  get synchronousSavepoint(): number | undefined {
    return this.syncSavepoint;
  }

  /**
   * The synchronous savepoint the task waits for: set, and neither its notification nor (the
   * task would have failed) its abort came. For the harness, which names a run that ends so (a
   * lost confirmation: nothing resends it).
   */
  waiting(): number | undefined {
    return this.completed ? undefined : this.syncSavepoint;
  }

  /** True when `checkpointId` is the task's synchronous savepoint (isCurrentSyncSavepoint). */
  isCurrentSyncSavepoint(checkpointId: number): boolean {
    return this.syncSavepoint === checkpointId;
  }

  /**
   * StreamTask.setSynchronousSavepoint: at most one stop-with-savepoint at a time; a second one
   * fails the task (Flink's checkState throws in the mail), it is not an engine bug.
   * @throws Error when another synchronous savepoint is set.
   */
  setSynchronousSavepoint(checkpointId: number): void {
    if (this.syncSavepoint !== undefined && this.syncSavepoint !== checkpointId) {
      throw new Error(`at most one stop-with-savepoint checkpoint at a time is allowed (${this.syncSavepoint}, then ${checkpointId})`);
    }
    this.syncSavepoint = checkpointId;
  }

  /** The task performed `barrier`'s checkpoint; `dataEnded` when its data had ended before. */
  performedCheckpoint(barrier: CheckpointBarrier, dataEnded: boolean): void {
    // A (non-synchronous) savepoint is never notified: skipping it is no lost notification.
    if (barrier.options.snapshotType !== 'SAVEPOINT') this.performed.push(barrier.id);
    if (dataEnded && this.finalCheckpointId === undefined) this.finalCheckpointId = barrier.id;
  }

  /**
   * A completion notification of `checkpointId` for a task that is `running`. @returns
   * `undefined` when it is not newer than the latest one (ignored), else whether it skipped a
   * checkpoint the task performed.
   */
  notified(checkpointId: number, running: boolean): { readonly skipped: boolean } | undefined {
    if (checkpointId <= this.latestReportCheckpointId) return undefined;
    const latest = this.latestReportCheckpointId;
    const skipped = this.performed.some((c) => c > latest && c < checkpointId);
    this.latestReportCheckpointId = checkpointId;
    while (this.performed.length > 0 && (this.performed[0] ?? 0) <= checkpointId) this.performed.shift();
    if (running) {
      if (this.syncSavepoint === checkpointId) this.completed = true;
      else if (this.syncSavepoint === undefined && this.finalCheckpointId !== undefined && checkpointId >= this.finalCheckpointId) {
        this.completed = true;
      }
    }
    return { skipped };
  }
}
