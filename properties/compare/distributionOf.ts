/**
 * distributionOf: the figures of one metric over one mode's runs (CompareReport's Distribution):
 * count, missing, min, the quartiles and median by nearest rank, max, mean and the values in the
 * order given (seed order). Pure; nulls are left out and counted as missing.
 */
import type { Distribution } from './CompareReport.ts';

/**
 * The nearest-rank percentile of `sorted` (ascending, non-empty): the smallest value with at
 * least `p` percent of the values at or below it, `sorted[ceil(p/100 * n) - 1]` (the first value
 * for p = 0). A value that occurs in the data, never an interpolation, so a median of virtual
 * times is a time some run really had. The same definition as RunResult.flow's percentiles
 * (sim/run/flowMetrics.ts `percentile`, nearest-rank).
 * @param p 0..100.
 * @throws RangeError on an empty list or p outside 0..100.
 */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('nearestRank of an empty list');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The nearest-rank median of `values` (any order), or null when there are none. */
export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return nearestRank([...values].sort((a, b) => a - b), 50);
}

/** The distribution of `values` (seed order; null: the run has no value). */
export function distributionOf(values: readonly (number | null)[]): Distribution {
  const present = values.filter((v): v is number => v !== null);
  const missing = values.length - present.length;
  if (present.length === 0) {
    return { count: 0, missing, min: null, p25: null, median: null, p75: null, max: null, mean: null, values: [] };
  }
  const sorted = [...present].sort((a, b) => a - b);
  const sum = present.reduce((s, v) => s + v, 0);
  return {
    count: present.length,
    missing,
    min: sorted[0] as number,
    p25: nearestRank(sorted, 25),
    median: nearestRank(sorted, 50),
    p75: nearestRank(sorted, 75),
    max: sorted[sorted.length - 1] as number,
    mean: sum / present.length,
    values: present,
  };
}
