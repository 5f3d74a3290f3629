/**
 * Times a task's back-pressure waits for its TaskIOMetricGroup, as Flink's StreamTask does with a
 * GaugePeriodTimer on softBackPressuredTimePerSecond: a wait starts when the default action finds
 * an output without a free network buffer (no credit downstream) and ends when a buffer of that
 * output is free again, which is when the record writer's availability future completes, not
 * when the task's thread gets round to resuming (work queued on the thread meanwhile is busy
 * time, not back pressure). A task cleaned up while waiting ends its wait then.
 *
 * Hard back pressure (a record blocked in requestBufferBuilderBlocking) has no counterpart here:
 * a record finishes on overdraft buffers (LocalBufferPool), so it is always 0.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask#processInput,
 *      org.apache.flink.runtime.metrics.TimerGauge
 *
 * Invariants: at most one wait is open; a wait never ends before it began.
 */
import type { TaskIOMetricGroup } from '../../api/MetricGroups.ts';

export class BackPressureTimer {
  /** When the open wait began, virtual µs; -1 while none is open. */
  private sinceUs = -1;

  constructor(private readonly group: TaskIOMetricGroup) {}

  /** True while a wait is open. */
  get waiting(): boolean {
    return this.sinceUs >= 0;
  }

  /** The task found no free buffer at `timeUs` (a wait already open goes on). */
  start(timeUs: number): void {
    if (this.sinceUs >= 0) return;
    this.sinceUs = timeUs;
    this.group.markBackPressureStart(timeUs);
  }

  /**
   * A buffer became free at `availableAtUs`. A moment before the open wait began comes from a
   * listener of an earlier wait (the mailbox was resumed meanwhile by something else and found no
   * buffer again): the open wait's own listener ends it.
   */
  bufferAvailable(availableAtUs: number): void {
    if (this.sinceUs >= 0 && availableAtUs >= this.sinceUs) this.end(availableAtUs);
  }

  /** The task stops at `timeUs` (cancel, failure): ends the open wait, if any. */
  stop(timeUs: number): void {
    if (this.sinceUs >= 0) this.end(Math.max(timeUs, this.sinceUs));
  }

  private end(timeUs: number): void {
    this.group.markBackPressureEnd(timeUs);
    this.sinceUs = -1;
  }
}
