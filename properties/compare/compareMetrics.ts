/**
 * COMPARE_METRICS: every numeric metric `compare` reports per run, with its label, unit and
 * definition, in the order reports show them (compare.md, the page, docs/compare.md).
 */
import type { MetricKey } from './CompareReport.ts';

export interface CompareMetric {
  readonly key: MetricKey;
  readonly label: string;
  readonly unit: 'ms' | 'bytes' | 'records' | 'records/s';
  /** Which way is better, for readers of a plot. */
  readonly better: 'lower' | 'higher';
  /**
   * `correctness`: a count that is 0 in most runs and matters in any; reports show its sum and in
   * how many runs it was not 0 (a median would hide 12 duplicates in 5 of 20 runs as 0).
   * `cost`: reports show the median and quartiles.
   */
  readonly kind: 'correctness' | 'cost';
  readonly definition: string;
  /**
   * For a cost: what it means when the metric is 0 in every run of every mode (compare.md and the
   * page say it under the table), so a row of zeros does not read as "the modes cost the same".
   */
  readonly whenAllZero?: string;
}

export const COMPARE_METRICS: readonly CompareMetric[] = [
  { key: 'recordsLost', label: 'records lost', unit: 'records', better: 'lower', kind: 'correctness',
    definition: 'records the reference fold of the input produces that no sink ever committed (the job finished)' },
  { key: 'duplicates', label: 'duplicates after restore', unit: 'records', better: 'lower', kind: 'correctness',
    definition: 'committed copies of a record beyond the reference fold\'s count, each attributed to the restore that replayed it' },
  { key: 'checkpointEndToEndMs', label: 'checkpoint end-to-end duration', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over the run\'s completed checkpoints of the time from trigger to the last acknowledgement' },
  { key: 'alignmentMs', label: 'alignment duration', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over completed checkpoints of the longest subtask alignment (first barrier to last)' },
  { key: 'syncMs', label: 'sync duration', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over completed checkpoints of the longest synchronous snapshot part of a subtask',
    whenAllZero: 'the model charges no virtual time for the synchronous part of a snapshot, so this figure cannot tell the modes apart' },
  { key: 'asyncMs', label: 'async duration', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over completed checkpoints of the longest asynchronous snapshot part (state files written)' },
  { key: 'startDelayMs', label: 'start delay', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over completed checkpoints of the longest time from trigger until a subtask saw the first barrier' },
  { key: 'checkpointedBytes', label: 'checkpointed data size', unit: 'bytes', better: 'lower', kind: 'cost',
    definition: 'median over completed checkpoints of the bytes of state files written' },
  { key: 'latencyP50Ms', label: 'record latency p50', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over committed records of the time from the source reading it to the commit that made its output visible' },
  { key: 'latencyP99Ms', label: 'record latency p99', unit: 'ms', better: 'lower', kind: 'cost',
    definition: '99th percentile of that latency' },
  { key: 'throughputPerSec', label: 'throughput', unit: 'records/s', better: 'higher', kind: 'cost',
    definition: 'records committed per virtual second, from the first source read to the last commit' },
  { key: 'backPressuredMs', label: 'time back-pressured', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'virtual ms tasks spent waiting for credit to send, summed over tasks',
    whenAllZero: 'nothing filled the network buffers: this workload never back-pressured, so the comparison cannot show '
      + 'alignment\'s cost under back-pressure' },
  { key: 'recoveryMs', label: 'recovery time', unit: 'ms', better: 'lower', kind: 'cost',
    definition: 'median over restores of the time from the failure to the next completed checkpoint' },
];
