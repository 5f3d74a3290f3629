/**
 * `npm start`: the main job. Explores the flights job (real data, vega-datasets' flights-20k) in
 * the checkpointing modes built so far (aligned and at-least-once; not `none`) under faults for
 * about one minute, prints a summary table per mode (or, with --json, the summary as one JSON
 * object) with the per-run rates of its sums (a time budget gives the modes different run counts)
 * and writes `summary.json`, a repro per violation, the modes compared on ten seeds as
 * `compare.json` and `compare.md` (as `compare` writes them) and `index.html` (the summary, that
 * comparison, every counterexample with its explanation, sequence diagram and replay command:
 * reports/startPage.ts) into `--out` (default `reports/out`).
 *
 * Each start first removes what the previous start wrote into that folder (the files its
 * manifest, `start-manifest.json`, lists, and nothing else), so a summary never sits beside
 * stale repro files of another run; files it did not write stay.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compareModes } from '../../properties/compare/compareModes.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { compareMarkdown } from '../../reports/compareMarkdown.ts';
import {
  PER_RUN_COUNTS, perRunFigures, runCountsNote, startCounterexample, startPage, type StartSummary,
} from '../../reports/startPage.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { prepareOutDir } from '../outDir.ts';
import type { Io } from '../program.ts';
import {
  BUILT_MODES, formatDuration, parseExploreFlags, printReport, runExplore, toJson,
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
  /** Planted bugs to switch on (explore's --mutant), e.g. to see the page with a counterexample. */
  readonly mutant?: string;
}

/**
 * Runs the main job; returns the exit code. `out` (tests) replaces the default folder when
 * `flags.out` is not given.
 * @throws UsageError for bad flags or an output directory that cannot be made or written,
 * before any run (naming `--out` when the folder came from it).
 */
export function runStart(flags: StartFlags, io: Io, version: string, out = START_OUT): number {
  const folder = flags.out ?? out;
  const settings = parseExploreFlags({
    job: 'flights', mode: BUILT_MODES.join(','), timeBudget: flags.timeBudget, seed: flags.seed, out: folder,
    ...(flags.json === true ? { json: true } : {}),
    ...(flags.mutant === undefined ? {} : { mutant: flags.mutant }),
  });
  const dir = prepareOutDir(folder, flags.out === undefined ? `output directory ${folder}` : `--out ${folder}`);
  const removed = clearPreviousStart(dir);
  const json = flags.json === true;
  if (!json) {
    io.out(`checkpoint-sim ${version}: exploring the flights job (${BUILT_MODES.join(', ')}) under faults for `
      + `${formatDuration(settings.timeBudgetMs ?? 0)}\n`);
    if (removed > 0) io.out(`removed ${removed} file(s) the previous start wrote into ${folder}\n`);
  }
  // start prints the report itself: with the per-run rows under the table (a time budget gives
  // the modes different run counts) or, with --json, summary.json's object, which names the
  // comparison.
  const { code, report } = runExplore(settings, io, version, process.stderr.isTTY === true, { print: false });
  if (report === undefined) return code;
  const explored = toJson(report) as StartSummary & { readonly counts: Readonly<Record<string, string>> };
  const summary: StartSummary = {
    ...explored,
    perRun: perRunFigures(explored.modes),
    runCountsNote: runCountsNote(explored.modes),
    compare: { json: 'compare.json', markdown: 'compare.md', seeds: START_COMPARE_SEEDS, seed: settings.seed },
    counts: { ...explored.counts, ...START_COUNT_DEFINITIONS },
  } as StartSummary;
  // summary.json first: what the exploration found is on disk before the comparison runs (its
  // files are named in it; the comparison failing is a harness failure, exit 3).
  const path = join(dir, 'summary.json');
  writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
  // The manifest lists every file this start writes, before the rest is written, so the next start
  // clears them even if this one stops half way.
  const written = ['summary.json', 'index.html', 'compare.json', 'compare.md', ...report.counterexamples.map((c) => relative(dir, c.repro))];
  writeFileSync(join(dir, START_MANIFEST), `${JSON.stringify({ written }, null, 2)}\n`);
  if (!json) {
    printReport(report, io, perRunRows(summary));
    io.out(`comparing the modes on ${START_COMPARE_SEEDS} seeds for the page...\n`);
  }
  // The page: the summary, the modes compared on the same seeds, each counterexample explained
  // (its run replayed for the diagram of its causal window). The comparison's report is written
  // beside it as compare writes it.
  const compare = compareModes({
    job: 'flights', modes: BUILT_MODES, seeds: START_COMPARE_SEEDS, seed: settings.seed,
    simulate: (spec) => simulate(spec), judge: defaultJudge, version,
  });
  writeFileSync(join(dir, 'compare.json'), `${JSON.stringify(compare, null, 2)}\n`);
  writeFileSync(join(dir, 'compare.md'), compareMarkdown(compare));
  const counterexamples = report.counterexamples.map((c) => startCounterexample(c, simulate(c.spec)));
  const page = join(dir, 'index.html');
  writeFileSync(page, startPage({ summary, counterexamples, compare }));
  if (json) io.out(`${JSON.stringify(summary)}\n`);
  else io.out(`summary written to ${path}\ncomparison written to ${join(dir, 'compare.json')} and compare.md\npage written to ${page}\n`);
  return code;
}

/** What start adds to summary.json's `counts` (explore's say what its counts count). */
const START_COUNT_DEFINITIONS = {
  perRun: 'per mode, checkpointsCompleted, restores and duplicatesAfterRestore divided by the mode\'s runs (2 decimals): '
    + 'the figures to compare when the modes ran different numbers of runs',
  runCountsNote: 'said when the modes ran different numbers of runs (a time budget), null otherwise',
  compare: 'the comparison of the modes on the page: compare.json and compare.md beside summary.json, its seeds and fast-check seed',
} as const;

/**
 * The per-run rows start prints under explore's table: checkpoints, restores and duplicates per
 * run for each mode, then a note when the modes ran different numbers of runs.
 */
export function perRunRows(summary: StartSummary): string[] {
  const modes = Object.entries(summary.modes);
  const rates = summary.perRun ?? perRunFigures(summary.modes);
  const head = ['per run', 'runs', 'checkpoints', 'restores', 'duplicates'];
  const rows = modes.map(([m, x]) => [m, String(x.runs), ...PER_RUN_COUNTS.map((k) => String(rates[m]?.[k] ?? 'n/a'))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const note = summary.runCountsNote ?? runCountsNote(summary.modes);
  return [line(head), ...rows.map(line), ...(note === null ? [] : [note])];
}

/** Seeds of the comparison on start's page (each run once per mode). */
const START_COMPARE_SEEDS = 10;

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
