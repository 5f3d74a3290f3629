/**
 * The metrics port: where tasks report the figures Flink keeps in a task's metric groups, so the
 * world can compute a run's flow metrics (records' latency to commit, throughput, back-pressured
 * time) without a trace event. Reporting has no effect on the run: a metric group only records,
 * the engine never reads one back, and nothing here may schedule work or draw a decision.
 *
 * @see org.apache.flink.runtime.metrics.groups.TaskIOMetricGroup (softBackPressuredTimeMsPerSecond,
 *      backPressuredTimeMsPerSecond), org.apache.flink.runtime.metrics.TimerGauge (markStart /
 *      markEnd), org.apache.flink.metrics.groups.SourceReaderMetricGroup (the records a reader
 *      emits)
 */

/** The metric groups of one host's tasks. */
export interface MetricGroups {
  /**
   * The IO metric group of the task attempt `attemptId` (`<vertex>#<subtask>@<attempt>`),
   * created on first use; asking again for the same attempt gives the same group.
   */
  taskIO(attemptId: string): TaskIOMetricGroup;
}

/** One task attempt's IO metrics. Times are virtual µs. */
export interface TaskIOMetricGroup {
  /**
   * The task's default action stopped because an output had no free network buffer (no credit
   * downstream: Flink's soft back pressure, a TimerGauge's markStart). A start while a wait is
   * open is ignored.
   */
  markBackPressureStart(timeUs: number): void;
  /**
   * The wait opened by {@link markBackPressureStart} ended at `timeUs`: a buffer became free, or
   * the task stopped (TimerGauge.markEnd). Without an open wait it does nothing.
   */
  markBackPressureEnd(timeUs: number): void;
  /**
   * A source reader of this task emitted the record at `offset` of split `split` at `timeUs`,
   * the record's own virtual time (SourceReaderMetricGroup counts these as numRecordsIn).
   */
  markRecordRead(split: number, offset: number, timeUs: number): void;
}
