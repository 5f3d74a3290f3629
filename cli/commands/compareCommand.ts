/**
 * `checkpoint-sim compare`: the checkpointing modes side by side on the same runs
 * (properties/compare/compareModes.ts, docs/compare.md). Parses the flags, checks the output
 * files can be written before any run, shows progress (a bar with the real total and runs per
 * second on a terminal, one line every few seconds otherwise), then writes `compare.json` (the
 * CompareReport), `compare.md` (reports/compareMarkdown.ts) and `index.html`
 * (reports/comparePage.ts) into --out, and prints the table (or, with --json, the report).
 *
 * Exit codes: 0 the comparison was made, whatever it found (it is a measurement, not a check:
 * runs that break their mode's promise are counted and listed, and `explore` is the command that
 * fails on them); 2 bad usage or input (one line); 3 the harness broke (a run's spec depends on
 * the mode, anything simulate or the oracles throw).
 */
import { dirname, join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import type { ExploreJob } from '../../properties/arbitraries/runSpecArbitrary.ts';
import type { CompareReport } from '../../properties/compare/CompareReport.ts';
import { compareModes } from '../../properties/compare/compareModes.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { HarnessError, type Simulate } from '../../properties/explore/explore.ts';
import { compareMarkdown } from '../../reports/compareMarkdown.ts';
// The page with the plots (issue 15, helper "page"); a placeholder until it lands.
import { comparePage } from '../../reports/comparePage.ts';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { MAX_RUN_PARALLELISM } from '../../sim/run/validateRunSpec.ts';
import { prepareOutDir } from '../outDir.ts';
import { OutputFile } from '../outputFile.ts';
import { JOB_FLAG_HELP, parseJobFlag } from '../jobModuleFiles.ts';
import { UsageError, type Io } from '../program.ts';
import {
  BUILT_MODES, MAX_RECORDS_HELP, MODE_HELP, parseMaxParallelism, parseMaxRecords, parseModes, parseSeed,
  positiveInt, SEED_HELP,
} from './exploreCommand.ts';

/** Seed indexes per mode when --seeds is not given. */
export const DEFAULT_SEEDS = 20;
/** The most --seeds takes (every run's figures are kept in memory until the report is written). */
export const MAX_SEEDS = 10_000;
/** The fast-check seed when --seed is not given: a comparison repeats unless asked otherwise. */
export const DEFAULT_COMPARE_SEED = 1;
/** Where compare writes when --out is not given, relative to the working directory. */
export const COMPARE_OUT = 'reports/out/compare';
/** Off a terminal, a progress line at most this often (real ms). */
export const PROGRESS_LINE_EVERY_MS = 5000;

export interface CompareFlags {
  job?: string;
  modes?: string;
  seeds?: string;
  seed?: string;
  out?: string;
  json?: boolean;
  maxRecords?: string;
  maxParallelism?: string;
}

/** Parsed compare flags. */
export interface CompareSettings {
  readonly job: ExploreJob;
  readonly modes: RunMode[];
  readonly seeds: number;
  readonly seed: number;
  readonly out: string;
  readonly json: boolean;
  readonly maxRecords: number | undefined;
  readonly maxParallelism: number | undefined;
}

/** Validates the flags. @throws UsageError with a one-line reason. */
export function parseCompareFlags(f: CompareFlags): CompareSettings {
  const job = parseJobFlag(f.job);
  const seeds = positiveInt('--seeds', f.seeds) ?? DEFAULT_SEEDS;
  if (seeds > MAX_SEEDS) throw new UsageError(`--seeds must be at most ${MAX_SEEDS}, got '${f.seeds}'`);
  return {
    job,
    modes: parseModes(f.modes ?? BUILT_MODES.join(','), '--modes'),
    seeds,
    seed: f.seed === undefined ? DEFAULT_COMPARE_SEED : parseSeed(f.seed),
    out: f.out ?? COMPARE_OUT,
    json: f.json === true,
    maxRecords: parseMaxRecords(job, f.maxRecords),
    maxParallelism: parseMaxParallelism(f.maxParallelism),
  };
}

const EXAMPLES = `
Examples:
  npx checkpoint-sim compare                                  # flights, aligned vs at-least-once, 20 seeds, into ${COMPARE_OUT}
  npx checkpoint-sim compare --job flights --seeds 20 --out out/compare --json
  npx checkpoint-sim compare --modes aligned,at-least-once,none --seeds 5 --max-records 500
  npx checkpoint-sim replay --seed 1 --path 3 --mode at-least-once --strategy swarm   # seed index 3's run in one mode, again

Writes compare.json (the report), compare.md (a Markdown table per mode: records lost and
duplicates summed, costs as median [p25–p75], what each mode promises) and index.html (the
plots) into --out. Metrics and how to read them: docs/compare.md.

Exit codes:
  0  the comparison was made (runs that break their mode's promise are counted, not failed on)
  2  bad usage or input (unknown job or mode, --seeds not a positive integer, an unwritable --out)
  3  the harness broke (a spec that depends on the mode, an error in the simulator or the oracles)
`;

/** Adds the compare flags and help to `cmd`. */
export function compareOptions(cmd: Command): Command {
  return cmd
    .option('--job <job>', JOB_FLAG_HELP, 'flights')
    .option('--modes <modes>', MODE_HELP, BUILT_MODES.join(','))
    .option('--seeds <n>', `seed indexes: runs per mode, each one RunSpec run in every mode (at most ${MAX_SEEDS})`, String(DEFAULT_SEEDS))
    .option('--seed <n>', SEED_HELP, String(DEFAULT_COMPARE_SEED))
    .option('--out <dir>', 'where compare.json, compare.md and index.html are written (created before the first run)', COMPARE_OUT)
    .option('--max-records <n>', `${MAX_RECORDS_HELP} (default 2000, as explore)`)
    .option('--max-parallelism <n>', `largest parallelism per run, at most ${MAX_RUN_PARALLELISM} (default 4, as explore)`)
    .option('--json', 'print the report (compare.json) instead of the table')
    .addHelpText('after', EXAMPLES);
}

/** Progress for people: a bar on a terminal, a line every few seconds otherwise. */
interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

/** Progress over `total` runs; on a terminal the bar shows from the start (0 runs). */
function progressOf(io: Io, interactive: boolean, clock: () => number, total: number): Progress {
  const started = clock();
  const rate = (done: number): string => {
    const s = (clock() - started) / 1000;
    return s <= 0 ? '0.0' : (done / s).toFixed(1);
  };
  if (interactive) {
    const bar = new cliProgress.SingleBar({
      format: ' compare [{bar}] {value}/{total} runs | {rate} runs/s | {duration_formatted}', stream: process.stderr,
    }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { rate: '0.0' });
    return {
      update: (done) => bar.update(done, { rate: rate(done) }),
      stop: () => bar.stop(),
    };
  }
  let last = started;
  return {
    update: (done, total) => {
      if (done < total && clock() - last < PROGRESS_LINE_EVERY_MS) return;
      last = clock();
      io.err(`compare: ${done}/${total} runs, ${rate(done)} runs/s\n`);
    },
    stop: () => undefined,
  };
}

/**
 * Runs compare with `s`; returns the exit code (0, or 3 for a HarnessError; see the file
 * comment). `deps` replace the simulator and the real clock (tests).
 * @throws UsageError (exit 2) when an output file cannot be made or written, before any run when
 * it can tell.
 */
export function runCompare(
  s: CompareSettings, io: Io, version: string, interactive: boolean,
  deps?: { readonly simulate?: Simulate; readonly clock?: () => number },
): { code: number; report?: CompareReport } {
  const clock = deps?.clock ?? (() => performance.now());
  // Before any run: minutes of runs must not end in a file that cannot be written.
  // The folder first, so a folder that cannot be made is named as the folder, not as compare.json.
  prepareOutDir(s.out, `--out ${s.out}`);
  const file = (name: string): OutputFile => OutputFile.of('--out', join(s.out, name)) as OutputFile;
  const files = { json: file('compare.json'), md: file('compare.md'), html: file('index.html') };
  const started = clock();
  const progress = progressOf(io, interactive && !s.json, clock, s.seeds * s.modes.length);
  let report: CompareReport;
  try {
    report = compareModes({
      job: s.job,
      modes: s.modes,
      seeds: s.seeds,
      seed: s.seed,
      ...(s.maxRecords === undefined ? {} : { maxRecords: s.maxRecords }),
      ...(s.maxParallelism === undefined ? {} : { maxParallelism: s.maxParallelism }),
      // No trace cap: the oracles and the duplicate attribution read the whole trace.
      simulate: deps?.simulate ?? ((spec) => simulate(spec)),
      judge: defaultJudge,
      version,
      progress: (done, total) => progress.update(done, total),
    });
  } catch (e) {
    progress.stop();
    if (e instanceof HarnessError) {
      io.err(`checkpoint-sim: harness failure: ${e.message}\n`);
      return { code: 3 };
    }
    throw e;
  }
  progress.stop();
  const wallS = (clock() - started) / 1000;
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const markdown = compareMarkdown(report);
  files.json.write(json);
  files.md.write(markdown);
  files.html.write(comparePage(report));
  const runs = report.runs.length;
  io.err(`compare: ${runs} runs in ${wallS.toFixed(1)} s (${wallS > 0 ? (runs / wallS).toFixed(1) : '0.0'} runs/s); `
    + `wrote compare.json, compare.md and index.html into ${dirname(files.json.abs)}\n`);
  io.out(s.json ? json : markdown);
  return { code: 0, report };
}
