/**
 * `npm start`: the main job. Explores the flights job (real data, vega-datasets' flights-20k) in
 * every mode built so far under faults for about one minute, prints a summary table per mode and
 * writes `reports/out/summary.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Io } from '../program.ts';
import { BUILT_MODES, parseExploreFlags, runExplore, toJson } from './exploreCommand.ts';

/** Runs the main job; returns the exit code. */
export function runStart(flags: { timeBudget: string; seed: string }, io: Io, version: string): number {
  const settings = parseExploreFlags({
    job: 'flights', mode: BUILT_MODES.join(','), timeBudget: flags.timeBudget, seed: flags.seed, out: 'reports/out',
  });
  io.out(`checkpoint-sim ${version}: exploring the flights job (${BUILT_MODES.join(', ')}) under faults for ${flags.timeBudget}\n`);
  const { code, report } = runExplore(settings, io, version, process.stderr.isTTY === true);
  if (report !== undefined) {
    const dir = resolve('reports/out');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'summary.json');
    writeFileSync(path, `${JSON.stringify(toJson(report), null, 2)}\n`);
    io.out(`summary written to ${path}\n`);
  }
  return code;
}
