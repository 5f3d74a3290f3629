/**
 * The alignment bookkeeping Flink keeps in CheckpointBarrierHandler (markAlignmentStart,
 * markAlignmentEnd, markAlignmentStartAndEnd): when the first barrier of the current checkpoint
 * came, the start delay (trigger timestamp to first barrier) and the alignment duration (first
 * to last barrier), in virtual µs, and the bytes of the buffers the task took from its gates in
 * between. One checkpoint at a time, as in Flink: a checkpoint triggered that is not the one
 * whose alignment was timed last (a late completion in at-least-once mode) reports zeros.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CheckpointBarrierHandler
 */
import type { Clock } from '../../api/Clock.ts';
import type { BarrierMetrics } from '../../checkpoint/CheckpointMetrics.ts';

export class AlignmentTimer {
  private startOfAlignmentUs = -1;
  private startDelayUs = 0;
  private alignmentUs = 0;
  private startAlignmentCheckpointId = -1;
  private bytesProcessed = 0;
  private latestBytesProcessed = 0;

  /** `clock` undefined (unit tests of the handlers): every time reads 0. */
  constructor(private readonly clock: Clock | undefined) {}

  private now(): number {
    return this.clock?.nowUs() ?? 0;
  }

  /** The first barrier of a checkpoint triggered at `triggerTimestampUs` arrived now. */
  markAlignmentStart(checkpointId: number, triggerTimestampUs: number): void {
    const now = this.now();
    this.startOfAlignmentUs = now;
    this.startDelayUs = Math.max(0, now - triggerTimestampUs);
    this.alignmentUs = 0;
    this.bytesProcessed = 0;
    this.latestBytesProcessed = 0;
    this.startAlignmentCheckpointId = checkpointId;
  }

  /** The last barrier arrived now. */
  markAlignmentEnd(): void {
    this.alignmentUs = this.startOfAlignmentUs < 0 ? 0 : Math.max(0, this.now() - this.startOfAlignmentUs);
    this.latestBytesProcessed = this.bytesProcessed;
    this.startOfAlignmentUs = -1;
    this.bytesProcessed = 0;
  }

  /** The task took a data buffer of `bytes` from a gate (CheckpointedInputGate.pollNext). */
  addProcessedBytes(bytes: number): void {
    if (this.startOfAlignmentUs >= 0) this.bytesProcessed += bytes;
  }

  /** First and last barrier at once (a single open channel). */
  markAlignmentStartAndEnd(checkpointId: number, triggerTimestampUs: number): void {
    this.markAlignmentStart(checkpointId, triggerTimestampUs);
    this.markAlignmentEnd();
  }

  /** What the task gets with triggerCheckpointOnBarrier for `checkpointId` (notifyCheckpoint). */
  metrics(checkpointId: number): BarrierMetrics {
    if (checkpointId !== this.startAlignmentCheckpointId) {
      return { checkpointStartDelayUs: 0, alignmentDurationUs: 0, bytesProcessedDuringAlignment: 0 };
    }
    return {
      checkpointStartDelayUs: this.startDelayUs, alignmentDurationUs: this.alignmentUs,
      bytesProcessedDuringAlignment: this.latestBytesProcessed,
    };
  }
}
