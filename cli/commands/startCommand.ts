/**
 * `npm start`: the main job. Explores the flights job (real data, vega-datasets' flights-20k) in
 * the checkpointing modes built so far (aligned and at-least-once; not `none`) under faults for
 * about one minute, prints a summary table per mode (or, with --json, the summary as one JSON
 * object) and writes `summary.json` and a repro per violation into `--out` (default
 * `reports/out`).
 *
 * Each start first removes what the previous start wrote into that folder (the files its
 * manifest, `start-manifest.json`, lists, and nothing else), so a summary never sits beside
 * stale repro files of another run; files it did not write stay.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { prepareOutDir } from '../outDir.ts';
import type { Io } from '../program.ts';
import {
  BUILT_MODES, formatDuration, parseExploreFlags, runExplore, toJson,
} from './exploreCommand.ts';

/** Where start writes by default, relative to the working directory. */
export const START_OUT = 'reports/out';

/** The file in the output folder listing what the last start wrote there. */
export const START_MANIFEST = 'start-manifest.json';

/** start's flags as commander gives them. */
export interface StartFlags {
  readonly timeBudget: string;
  readonly seed: string;
  readonly out?: string;
  readonly json?: boolean;
}

/**
 * Runs the main job; returns the exit code. `out` (tests) replaces the default folder when
 * `flags.out` is not given.
 * @throws UsageError for bad flags or an output directory that cannot be made or written,
 * before any run.
 */
export function runStart(flags: StartFlags, io: Io, version: string, out = START_OUT): number {
  const folder = flags.out ?? out;
  const settings = parseExploreFlags({
    job: 'flights', mode: BUILT_MODES.join(','), timeBudget: flags.timeBudget, seed: flags.seed, out: folder,
    ...(flags.json === true ? { json: true } : {}),
  });
  const dir = prepareOutDir(folder, `output directory ${folder}`);
  const removed = clearPreviousStart(dir);
  if (flags.json !== true) {
    io.out(`checkpoint-sim ${version}: exploring the flights job (${BUILT_MODES.join(', ')}) under faults for `
      + `${formatDuration(settings.timeBudgetMs ?? 0)}\n`);
    if (removed > 0) io.out(`removed ${removed} file(s) the previous start wrote into ${folder}\n`);
  }
  const { code, report } = runExplore(settings, io, version, process.stderr.isTTY === true);
  if (report !== undefined) {
    const path = join(dir, 'summary.json');
    writeFileSync(path, `${JSON.stringify(toJson(report), null, 2)}\n`);
    const written = ['summary.json', ...report.counterexamples.map((c) => relative(dir, c.repro))];
    writeFileSync(join(dir, START_MANIFEST), `${JSON.stringify({ written }, null, 2)}\n`);
    if (flags.json !== true) io.out(`summary written to ${path}\n`);
  }
  return code;
}

/**
 * Removes the files the previous start listed in `dir`'s manifest (only names inside `dir`),
 * and the manifest; returns how many files it removed.
 */
function clearPreviousStart(dir: string): number {
  const manifest = join(dir, START_MANIFEST);
  if (!existsSync(manifest)) return 0;
  let written: unknown;
  try {
    written = (JSON.parse(readFileSync(manifest, 'utf8')) as { written?: unknown }).written;
  } catch {
    written = undefined;
  }
  let removed = 0;
  if (Array.isArray(written)) {
    for (const name of written) {
      // Only plain names or paths below the folder: a manifest is never a way out of it.
      if (typeof name !== 'string' || name.startsWith('..') || name.startsWith('/') || name.includes('\0')) continue;
      const file = join(dir, name);
      if (existsSync(file)) {
        rmSync(file, { force: true });
        removed++;
      }
    }
  }
  rmSync(manifest, { force: true });
  return removed;
}
