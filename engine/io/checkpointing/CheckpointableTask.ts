/**
 * What a barrier handler calls on its task: trigger the checkpoint once the barriers are in, or
 * abort it. The task (StreamTask) runs `checkpointState` on a trigger and, on an abort, declines
 * the checkpoint to the JobMaster and broadcasts a CancelCheckpointMarker downstream.
 *
 * @see org.apache.flink.runtime.jobgraph.tasks.CheckpointableTask
 *
 * Invariants (kept by the handlers, relied on by the task): each call happens inside a handler
 * method, on the task's mailbox thread; a handler never triggers and aborts the same checkpoint,
 * and calls each of them at most once per checkpoint id.
 */
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointFailureReason } from '../../checkpoint/CheckpointFailureReason.ts';
import type { BarrierMetrics } from '../../checkpoint/CheckpointMetrics.ts';

export interface CheckpointableTask {
  /**
   * Every input delivered `barrier` (or ended): take the snapshot now. In aligned mode the
   * channels that delivered the barrier are still blocked during this call and are resumed
   * right after it returns. `metrics`: the start delay and alignment the handler measured
   * (Flink's CheckpointMetricsBuilder as the handler fills it).
   * @see StreamTask#triggerCheckpointOnBarrier
   */
  triggerCheckpointOnBarrier(barrier: CheckpointBarrier, metrics: BarrierMetrics): void;

  /**
   * The inputs gave up on checkpoint `checkpointId` for `reason`: the task declines it and
   * forwards a CancelCheckpointMarker. Blocked channels were already resumed.
   * @see StreamTask#abortCheckpointOnBarrier
   */
  abortCheckpointOnBarrier(checkpointId: number, reason: CheckpointFailureReason): void;
}
