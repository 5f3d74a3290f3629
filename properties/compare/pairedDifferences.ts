/**
 * pairedDifferences: compare's paired figures (CompareReport's `paired`, `differentFaults` and
 * CompareRun's `actedFaults`). Each seed index runs one spec in every mode, so the difference of
 * two modes' values at one seed index is the mode's effect on that job under those faults. The
 * per-mode medians do not say that: on a spread with two clusters (runs with and without a
 * restore, say) the two medians can land on different seed indexes and differ by far more than
 * any seed's own difference. A seed index where the modes met different faults (a protocol point
 * one mode never reached) is two different experiments, so it is left out of the pairs.
 *
 * Pure: made from the runs alone.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import type { CompareRun, CostMetricKey, PairedComparison, PairedDifference } from './CompareReport.ts';
import { COMPARE_METRICS, type CompareMetric } from './compareMetrics.ts';
import { nearestRank } from './distributionOf.ts';

/**
 * The indexes of the spec's faults that acted in `result`: those in its fault log with an action
 * other than `skipped` (a point reached at or after the heal time), ascending, each once. The
 * timelines draw the same actions (timelineOf.ts).
 */
export function actedFaultsOf(result: Pick<RunResult, 'faults'>): number[] {
  return [...new Set(result.faults.filter((f) => f.action !== 'skipped').map((f) => f.fault))].sort((a, b) => a - b);
}

const sameList = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

/** The runs of `mode` by seed index. */
function bySeed(runs: readonly CompareRun[], mode: RunMode): Map<number, CompareRun> {
  return new Map(runs.filter((r) => r.mode === mode).map((r) => [r.seedIndex, r] as const));
}

/** The seed indexes of `runs`, ascending, each once. */
function seedIndexes(runs: readonly CompareRun[]): number[] {
  return [...new Set(runs.map((r) => r.seedIndex))].sort((a, b) => a - b);
}

/**
 * The seed indexes, ascending, at which the same faults did not act in every one of `modes`
 * (their runs' `actedFaults` differ, or their `firedActions`: a savepoint fired in one mode only,
 * or a mode has no run there).
 */
export function differentFaultSeeds(modes: readonly RunMode[], runs: readonly CompareRun[]): number[] {
  const maps = modes.map((m) => bySeed(runs, m));
  return seedIndexes(runs).filter((i) => {
    const [first, ...rest] = maps.map((m) => m.get(i));
    return first === undefined || rest.some((r) => r === undefined || !sameList(r.actedFaults, first.actedFaults)
      || !sameList(r.firedActions, first.firedActions));
  });
}

/** `a - b` in the metric's resolution: ms to the µs (virtual times are whole µs), others as they are. */
function difference(a: number, b: number, unit: CompareMetric['unit']): number {
  const d = a - b;
  return unit === 'ms' ? Math.round(d * 1000) / 1000 : d;
}

/**
 * One metric's paired differences, `mode` minus `baseline`, over the seed indexes of `runs` (see
 * PairedDifference). A seed index without a run in one of the two modes counts as `noValue`.
 */
export function pairedDifference(runs: readonly CompareRun[], mode: RunMode, baseline: RunMode, metric: CompareMetric): PairedDifference {
  const base = bySeed(runs, baseline);
  const own = bySeed(runs, mode);
  const paired: number[] = [];
  const differences: number[] = [];
  const differentFaults: number[] = [];
  const noValue: number[] = [];
  for (const i of seedIndexes(runs)) {
    const b = base.get(i);
    const m = own.get(i);
    if (b !== undefined && m !== undefined && !sameList(b.actedFaults, m.actedFaults)) {
      differentFaults.push(i);
      continue;
    }
    const bv = b?.metrics[metric.key] ?? null;
    const mv = m?.metrics[metric.key] ?? null;
    if (bv === null || mv === null) {
      noValue.push(i);
      continue;
    }
    paired.push(i);
    differences.push(difference(mv, bv, metric.unit));
  }
  const sorted = [...differences].sort((a, b) => a - b);
  const rank = (p: number): number | null => (sorted.length === 0 ? null : nearestRank(sorted, p));
  return {
    count: paired.length,
    p25: rank(25),
    median: rank(50),
    p75: rank(75),
    higher: differences.filter((d) => d > 0).length,
    lower: differences.filter((d) => d < 0).length,
    equal: differences.filter((d) => d === 0).length,
    seedIndexes: paired,
    differences,
    leftOut: { differentFaults, noValue },
  };
}

/** Per mode after the first, every cost metric's paired differences against `modes[0]` (none for one mode). */
export function pairedComparisons(modes: readonly RunMode[], runs: readonly CompareRun[]): PairedComparison[] {
  const [baseline, ...others] = modes;
  if (baseline === undefined) return [];
  return others.map((mode) => {
    const metrics = {} as Record<CostMetricKey, PairedDifference>;
    for (const m of COMPARE_METRICS) {
      if (m.kind === 'cost') metrics[m.key as CostMetricKey] = pairedDifference(runs, mode, baseline, m);
    }
    return { mode, baseline, metrics };
  });
}
