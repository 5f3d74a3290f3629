/**
 * What a subtask measured of its part in one checkpoint, sent with its acknowledgement. Times are
 * virtual µs (Flink keeps nanoseconds and milliseconds; the simulation's clock is µs throughout).
 *
 * - `checkpointStartDelayUs`: from the checkpoint's trigger time at the JobMaster (the barrier's
 *   timestamp) to the first barrier at this task (for an RPC-triggered task: to the trigger mail
 *   running).
 * - `alignmentDurationUs`: from the first barrier to the last (0 for RPC-triggered tasks and a
 *   single input channel).
 * - `syncDurationUs`: the synchronous part of the snapshot (barrier broadcast, operator snapshots).
 * - `asyncDurationUs`: the asynchronous part, from its start on the async thread to the last
 *   state file written.
 * - `bytesProcessedDuringAlignment`: bytes of the data buffers the task took from its gates
 *   between first and last barrier.
 * - `bytesPersistedDuringAlignment`, `bytesPersistedOfThisCheckpoint` (in-flight data): 0, the
 *   model has no unaligned checkpoints.
 * - `totalBytesPersisted`: bytes of the state files this subtask wrote for the checkpoint.
 *
 * @see org.apache.flink.runtime.checkpoint.{CheckpointMetrics, CheckpointMetricsBuilder}
 */
export interface CheckpointMetrics {
  readonly checkpointStartDelayUs: number;
  readonly alignmentDurationUs: number;
  readonly syncDurationUs: number;
  readonly asyncDurationUs: number;
  readonly bytesProcessedDuringAlignment: number;
  readonly bytesPersistedDuringAlignment: number;
  readonly bytesPersistedOfThisCheckpoint: number;
  readonly totalBytesPersisted: number;
  readonly unalignedCheckpoint: boolean;
}

/** What the barrier handler (or an RPC trigger) measured before the snapshot starts. */
export interface BarrierMetrics {
  readonly checkpointStartDelayUs: number;
  readonly alignmentDurationUs: number;
  readonly bytesProcessedDuringAlignment: number;
}

/** Metrics of a task that reported none (a test double, a legacy path): all zero. */
export const NO_BARRIER_METRICS: BarrierMetrics = {
  checkpointStartDelayUs: 0, alignmentDurationUs: 0, bytesProcessedDuringAlignment: 0,
};
