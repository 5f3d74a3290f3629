/**
 * Timing helpers for benchmarks: the only code besides cli/ that reads the real clock.
 */
import { performance } from 'node:perf_hooks';

/** The median of `values` (the mean of the middle two for an even count). @throws on empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Runs `work` once to warm up, then `repetitions` times; each run returns how many units it
 * processed. Returns the median rate in units per real second.
 */
export function medianRate(work: () => number, repetitions = 5): number {
  work();
  const rates: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const t0 = performance.now();
    const units = work();
    const ms = performance.now() - t0;
    rates.push(units / (ms / 1000));
  }
  return median(rates);
}
