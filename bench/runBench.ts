/**
 * Runs every benchmark and returns one object with a field per area (DESIGN.md `bench --json`).
 * Each figure is the median of 5 repetitions after a warm-up, measured in this process.
 */
import { benchEngine, type EngineBenchResult } from './engineBench.ts';
import { benchExplore, type ExploreBenchResult } from './exploreBench.ts';
import { benchKernel, type KernelBenchResult } from './kernelBench.ts';

export interface BenchReport {
  readonly kernel: KernelBenchResult;
  readonly engine: EngineBenchResult;
  readonly explore: ExploreBenchResult;
}

/** Runs the benchmarks; `progress` hears which one starts (for a terminal display). */
export function runBench(progress: (area: string) => void = () => {}): BenchReport {
  progress('kernel');
  const kernel = benchKernel();
  progress('engine');
  const engine = benchEngine();
  progress('explore');
  const explore = benchExplore();
  return { kernel, engine, explore };
}

/** Flattens a report into `area.field -> value` rows for a table. */
export function benchRows(report: BenchReport): [string, number][] {
  const rows: [string, number][] = [];
  for (const [area, fields] of Object.entries(report)) {
    for (const [name, value] of Object.entries(fields as Record<string, number>)) rows.push([`${area}.${name}`, value]);
  }
  return rows;
}
