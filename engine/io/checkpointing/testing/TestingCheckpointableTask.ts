/**
 * A CheckpointableTask for unit tests that records every trigger and abort, in order, in a log
 * it may share with TestingCheckpointableInputs (so tests can check trigger-before-resume).
 *
 * Invariants: `log` holds calls in the order they happened.
 */
import type { CheckpointBarrier } from '../../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointFailureReason } from '../../../checkpoint/CheckpointFailureReason.ts';
import type { CheckpointableTask } from '../CheckpointableTask.ts';

export class TestingCheckpointableTask implements CheckpointableTask {
  readonly triggered: number[] = [];
  readonly aborted: Array<{ id: number; reason: CheckpointFailureReason }> = [];
  /** Runs inside triggerCheckpointOnBarrier, e.g. to look at the inputs at that moment. */
  onTrigger: ((barrier: CheckpointBarrier) => void) | undefined;

  constructor(readonly log: string[] = []) {}

  triggerCheckpointOnBarrier(barrier: CheckpointBarrier): void {
    this.triggered.push(barrier.id);
    this.log.push(`trigger ${barrier.id}`);
    this.onTrigger?.(barrier);
  }

  abortCheckpointOnBarrier(checkpointId: number, reason: CheckpointFailureReason): void {
    this.aborted.push({ id: checkpointId, reason });
    this.log.push(`abort ${checkpointId} ${reason}`);
  }

  /** The aborted ids, in order. */
  abortedIds(): number[] {
    return this.aborted.map((a) => a.id);
  }
}
