/**
 * Runs every benchmark and returns one object with a field per area (DESIGN.md `bench --json`).
 * Each figure is a median of repetitions after a warm-up.
 *
 * Each area runs in a fresh Node process (benchArea.ts, with NODE_FLAGS), one after another.
 * In one process, an area measured after others ran on code the JIT had optimized for their
 * workloads: the explore bench after the kernel and engine benches measured about 165 runs/s
 * against about 200 on its own (3 alternating pairs, passes 9-14), and the explore command never
 * runs after the engine bench. A process per area measures each the way it is used.
 */
import { spawnSync } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEngine, type EngineBenchResult } from './engineBench.ts';
import { benchExplore, type ExploreBenchResult } from './exploreBench.ts';
import { benchKernel, type KernelBenchResult } from './kernelBench.ts';
import { NODE_FLAGS } from './nodeFlags.ts';

export interface BenchReport {
  readonly kernel: KernelBenchResult;
  readonly engine: EngineBenchResult;
  readonly explore: ExploreBenchResult;
}

/** The areas, in the order they run. */
export const BENCH_AREAS = ['kernel', 'engine', 'explore'] as const;
export type BenchArea = (typeof BENCH_AREAS)[number];

/** Whether `s` names a bench area. */
export function isBenchArea(s: string): s is BenchArea {
  return (BENCH_AREAS as readonly string[]).includes(s);
}

/** Runs one area in this process. @throws Error when that bench fails (see each bench). */
export function benchArea(area: BenchArea): BenchReport[BenchArea] {
  switch (area) {
    case 'kernel': return benchKernel();
    case 'engine': return benchEngine();
    case 'explore': return benchExplore();
  }
}

/**
 * How long one area's process may take, ms. An area takes seconds (about 12 s for all three on
 * a 2-core machine); a child that hangs must not hang `bench` with it.
 */
const AREA_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Runs one area in a fresh Node process (this process's own flags, e.g. a TypeScript loader,
 * plus NODE_FLAGS) and returns its result.
 * @throws Error with the child's message when it fails, times out after
 *   {@link AREA_TIMEOUT_MS}, or prints no JSON.
 */
function benchAreaInProcess(area: BenchArea): BenchReport[BenchArea] {
  // The child is this module's sibling, compiled (.js) or run from source (.ts) alike.
  const script = fileURLToPath(new URL(`./benchArea${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  const child = spawnSync(process.execPath, [...process.execArgv, ...NODE_FLAGS, script, area], {
    encoding: 'utf8', maxBuffer: 1 << 20, timeout: AREA_TIMEOUT_MS,
  });
  if (child.error !== undefined) {
    const timedOut = (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
    throw new Error(`bench ${area}: ${timedOut ? `no result after ${AREA_TIMEOUT_MS / 60_000} min` : child.error.message}`);
  }
  if (child.status !== 0) {
    throw new Error(`bench ${area} failed (exit ${child.status ?? child.signal}): ${child.stderr.trim()}`);
  }
  try {
    return JSON.parse(child.stdout) as BenchReport[BenchArea];
  } catch {
    throw new Error(`bench ${area} printed no JSON: ${child.stdout.slice(0, 200)}`);
  }
}

/**
 * Runs the benchmarks, each area in a process of its own (see the file comment); `progress`
 * hears which one starts (for a terminal display).
 * @throws Error when a bench fails.
 */
export function runBench(progress: (area: string) => void = () => {}): BenchReport {
  const report: Partial<Record<BenchArea, unknown>> = {};
  for (const area of BENCH_AREAS) {
    progress(area);
    report[area] = benchAreaInProcess(area);
  }
  return report as unknown as BenchReport;
}

/** Flattens a report into `area.field -> value` rows for a table. */
export function benchRows(report: BenchReport): [string, number][] {
  const rows: [string, number][] = [];
  for (const [area, fields] of Object.entries(report)) {
    for (const [name, value] of Object.entries(fields as Record<string, number>)) rows.push([`${area}.${name}`, value]);
  }
  return rows;
}
