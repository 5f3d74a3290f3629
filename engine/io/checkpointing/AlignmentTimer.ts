/**
 * The alignment bookkeeping Flink keeps in CheckpointBarrierHandler (markAlignmentStart,
 * markAlignmentEnd, markAlignmentStartAndEnd): when the first barrier of the current checkpoint
 * came, the start delay (trigger timestamp to first barrier) and the alignment duration (first
 * to last barrier), in virtual µs. One checkpoint at a time, as in Flink.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CheckpointBarrierHandler
 */
import type { Clock } from '../../api/Clock.ts';
import type { BarrierMetrics } from '../../checkpoint/CheckpointMetrics.ts';

export class AlignmentTimer {
  private startOfAlignmentUs = -1;
  private startDelayUs = 0;
  private alignmentUs = 0;

  /** `clock` undefined (unit tests of the handlers): every time reads 0. */
  constructor(private readonly clock: Clock | undefined) {}

  private now(): number {
    return this.clock?.nowUs() ?? 0;
  }

  /** The first barrier of a checkpoint triggered at `triggerTimestampUs` arrived now. */
  markAlignmentStart(triggerTimestampUs: number): void {
    const now = this.now();
    this.startOfAlignmentUs = now;
    this.startDelayUs = Math.max(0, now - triggerTimestampUs);
    this.alignmentUs = 0;
  }

  /** The last barrier arrived now. */
  markAlignmentEnd(): void {
    this.alignmentUs = this.startOfAlignmentUs < 0 ? 0 : Math.max(0, this.now() - this.startOfAlignmentUs);
    this.startOfAlignmentUs = -1;
  }

  /** First and last barrier at once (a single open channel). */
  markAlignmentStartAndEnd(triggerTimestampUs: number): void {
    this.markAlignmentStart(triggerTimestampUs);
    this.markAlignmentEnd();
  }

  /** What the task gets with triggerCheckpointOnBarrier. */
  metrics(): BarrierMetrics {
    return { checkpointStartDelayUs: this.startDelayUs, alignmentDurationUs: this.alignmentUs, bytesProcessedDuringAlignment: 0 };
  }
}
