/**
 * CompareReport: what `checkpoint-sim compare` finds, the shape of `compare.json` (docs/compare.md):
 * the same mode-neutral runs in each checkpointing mode, their correctness and cost per run, the
 * distributions per mode, the paired differences per seed index against the first mode, and one
 * run per mode as a checkpoint timeline. Times are virtual ms, sizes bytes; a metric a run has no
 * value for (no completed checkpoint, no restore) is null in the run and left out of (and counted
 * as `missing` by) its distribution.
 *
 * Format version 2 added `CompareRun.actedFaults`, `CompareRun.firedActions`, `differentFaults` and `paired`.
 */
import type { RunMode } from '../../sim/run/RunSpec.ts';

export const COMPARE_FORMAT = 'checkpoint-sim-compare';
export const COMPARE_FORMAT_VERSION = 2;

/** Per-run values (see COMPARE_METRICS for each definition). */
export interface RunMetrics {
  readonly recordsLost: number;
  readonly duplicates: number;
  /** Each restore's share of the duplicates: when, from which checkpoint, how many. */
  readonly duplicatesByRestore: readonly { readonly restoreTimeMs: number; readonly checkpointId: number; readonly duplicates: number }[];
  readonly checkpointEndToEndMs: number | null;
  readonly alignmentMs: number | null;
  readonly syncMs: number | null;
  readonly asyncMs: number | null;
  readonly startDelayMs: number | null;
  readonly checkpointedBytes: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  readonly throughputPerSec: number | null;
  readonly backPressuredMs: number;
  readonly recoveryMs: number | null;
}

/** The numeric metrics of a run, the ones with a distribution. */
export type MetricKey = Exclude<keyof RunMetrics, 'duplicatesByRestore'>;

/** The metrics of kind `cost` in COMPARE_METRICS (the correctness counts are summed, never paired). */
export type CostMetricKey = Exclude<MetricKey, 'recordsLost' | 'duplicates'>;

export interface CompareRun {
  readonly seedIndex: number;
  /** The RunSpec's seed. */
  readonly runSeed: string;
  readonly mode: RunMode;
  readonly traceHash: string;
  readonly expect: 'exactly-once' | 'at-least-once';
  readonly violations: readonly { readonly property: string; readonly summary: string }[];
  /** Indexes into the spec's faults that never fired in this mode (a point the mode never reaches). */
  readonly unfiredFaults: readonly number[];
  /** describeFault's phrase of each fault in `unfiredFaults`, in the same order (compare.md lists them). */
  readonly unfiredFaultTexts: readonly string[];
  /**
   * Indexes into the spec's faults that acted in this run (the fault log's entries other than
   * `skipped`), ascending, each once. World-setting faults act from time 0 in every run. Two
   * runs of one seed index with different lists met different faults: different experiments.
   */
  readonly actedFaults: readonly number[];
  /**
   * Indexes into the spec's actions (savepoints) that fired in this run, ascending. A savepoint
   * that fired in one mode only makes the two runs different experiments too.
   */
  readonly firedActions: readonly number[];
  readonly metrics: RunMetrics;
}

/** A metric's values over one mode's runs. */
export interface Distribution {
  /** Runs with a value. */
  readonly count: number;
  /** Runs without one (null). */
  readonly missing: number;
  readonly min: number | null;
  readonly p25: number | null;
  readonly median: number | null;
  readonly p75: number | null;
  readonly max: number | null;
  readonly mean: number | null;
  /** The values, in seed order, nulls left out. */
  readonly values: readonly number[];
}

export interface ModeFigures {
  readonly runs: number;
  /** Runs with at least one violation. */
  readonly violations: number;
  /** Faults that never fired, summed over the runs. */
  readonly unfiredFaults: number;
  readonly distributions: Readonly<Record<MetricKey, Distribution>>;
}

/** One run drawn as a checkpoint timeline. */
export interface Timeline {
  readonly runSeed: string;
  readonly endMs: number;
  readonly checkpoints: readonly { readonly id: number; readonly triggerMs: number; readonly endMs: number | null; readonly status: string }[];
  readonly faults: readonly { readonly timeMs: number; readonly index: number; readonly text: string }[];
  readonly restores: readonly { readonly timeMs: number; readonly checkpointId: number }[];
}

/**
 * One cost metric's differences per seed index, `mode` minus `baseline` (PairedComparison), over
 * the seed indexes where both runs have a value and the same faults acted in both. Positive: the
 * mode's value is higher (worse for a lower-is-better metric). Differences of ms metrics are
 * rounded to the µs (the virtual clock's resolution: it only removes floating-point noise).
 */
export interface PairedDifference {
  /** Seed indexes paired. */
  readonly count: number;
  /** Nearest-rank quartiles and median of the differences (distributionOf's nearestRank); null when none was paired. */
  readonly p25: number | null;
  readonly median: number | null;
  readonly p75: number | null;
  /** Paired seed indexes where the mode's value is higher than, lower than, equal to the baseline's. */
  readonly higher: number;
  readonly lower: number;
  readonly equal: number;
  /** The paired seed indexes, ascending, and the difference at each, in the same order. */
  readonly seedIndexes: readonly number[];
  readonly differences: readonly number[];
  /**
   * Seed indexes left out, ascending: `differentFaults`, the two runs met different faults
   * (their `actedFaults` differ); `noValue`, the same faults acted but one run or both have no
   * value of the metric.
   */
  readonly leftOut: { readonly differentFaults: readonly number[]; readonly noValue: readonly number[] };
}

/** Every cost metric's paired differences of one mode against the baseline (`modes[0]`). */
export interface PairedComparison {
  readonly mode: RunMode;
  readonly baseline: RunMode;
  readonly metrics: Readonly<Record<CostMetricKey, PairedDifference>>;
}

export interface CompareReport {
  readonly format: typeof COMPARE_FORMAT;
  readonly formatVersion: typeof COMPARE_FORMAT_VERSION;
  readonly checkpointSimVersion: string;
  readonly job: string;
  /** The seed of the whole comparison (each run's RunSpec seed derives from it and the seed index). */
  readonly seed: number;
  readonly seeds: number;
  readonly modes: readonly RunMode[];
  /** One entry per (seed index, mode), seed-major. */
  readonly runs: readonly CompareRun[];
  /** Per mode over all its runs, those of `differentFaults` included. */
  readonly byMode: Readonly<Record<string, ModeFigures>>;
  /** Seed indexes, ascending, at which the same faults did not act in every mode (CompareRun.actedFaults). */
  readonly differentFaults: readonly number[];
  /** One entry per mode after the first, in `modes` order: its paired differences against `modes[0]`. */
  readonly paired: readonly PairedComparison[];
  /**
   * Per mode, the run of one seed index drawn as a checkpoint timeline, the same index in every
   * mode, preferring one where the same faults acted in every mode and the runs restored
   * (compareModes.ts, representativeSeedIndex, gives the order).
   */
  readonly timelines: Readonly<Record<string, Timeline>>;
}
