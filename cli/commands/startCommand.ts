/**
 * `npm start`: the main job. Explores the flights job (real data, vega-datasets' flights-20k) in
 * the checkpointing modes built so far (aligned and at-least-once; not `none`) under faults for
 * about one minute, prints a summary table per mode and writes `reports/out/summary.json` (and a
 * repro per violation) into `reports/out`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareOutDir } from '../outDir.ts';
import type { Io } from '../program.ts';
import {
  BUILT_MODES, formatDuration, parseExploreFlags, runExplore, toJson,
} from './exploreCommand.ts';

/** Where start writes, relative to the working directory. */
export const START_OUT = 'reports/out';

/**
 * Runs the main job; returns the exit code. `out` replaces START_OUT (tests).
 * @throws UsageError for bad flags or an output directory that cannot be made or written,
 * before any run.
 */
export function runStart(flags: { timeBudget: string; seed: string }, io: Io, version: string, out = START_OUT): number {
  const settings = parseExploreFlags({
    job: 'flights', mode: BUILT_MODES.join(','), timeBudget: flags.timeBudget, seed: flags.seed, out,
  });
  const dir = prepareOutDir(out, `output directory ${out}`);
  io.out(`checkpoint-sim ${version}: exploring the flights job (${BUILT_MODES.join(', ')}) under faults for `
    + `${formatDuration(settings.timeBudgetMs ?? 0)}\n`);
  const { code, report } = runExplore(settings, io, version, process.stderr.isTTY === true);
  if (report !== undefined) {
    const path = join(dir, 'summary.json');
    writeFileSync(path, `${JSON.stringify(toJson(report), null, 2)}\n`);
    io.out(`summary written to ${path}\n`);
  }
  return code;
}
