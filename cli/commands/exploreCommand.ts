/**
 * `checkpoint-sim explore` and `checkpoint-sim start`: parse flags, hand the real clock and a file
 * writer to properties/explore, print a progress bar on a terminal, a summary per mode, and on a
 * violation the counterexample (property, details, expanded configuration, decisive events and
 * the replay command). Exit codes: 0 no violation, 1 a violation, 2 bad usage, 3 harness failure.
 */
import { writePortableRepro } from '../../properties/jobModules/portableRepro.ts';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import type { BuiltInJob, ExploreJob } from '../../properties/arbitraries/runSpecArbitrary.ts';
import { reproFileName } from '../../properties/explore/reproFileName.ts';
import { PLANTED_BUG_IDS } from '../../engine/index.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import {
  BUILT_MODES, DEFAULT_RUNS_PER_MODE, explore, HarnessError, type Expectation, type ExploreReport, type ModeSummary, type Simulate,
} from '../../properties/explore/explore.ts';
import {
  DEFAULT_EXPLORE_STRATEGY, EXPLORE_STRATEGIES, isExploreStrategy, STRATEGY_HELP, type ExploreStrategy,
} from '../../properties/arbitraries/ExploreStrategy.ts';
import type { Repro } from '../../properties/explore/Repro.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import { MAX_RUN_PARALLELISM } from '../../sim/run/validateRunSpec.ts';
import { FLIGHTS_FILE_SIZE } from '../../sim/workloads/flights.ts';
import { GENERATED_JOB_LIMITS } from '../../sim/workloads/generatedJob.ts';
import { formatExplanation } from '../../properties/explain/formatExplanation.ts';
import { formatDetails } from '../../properties/explore/formatDetails.ts';
import { describeUnattributed, type UnattributedSummary } from '../../properties/explore/unattributedSummary.ts';
import { regenerateCommand, type RegenerateFlags } from '../../properties/explore/regenerateCommand.ts';
import { prepareOutDir } from '../outDir.ts';
import { JOB_FLAG_HELP, parseJobFlag } from '../jobModuleFiles.ts';
import { UsageError, type Io } from '../program.ts';

export { BUILT_MODES };
/** The jobs explore and compare generate runs of. */
export const JOBS: readonly BuiltInJob[] = ['flights', 'wordcount', 'generated'];

/** fast-check takes a 32-bit signed seed and silently wraps anything else (2^32 + 1 acts as 1). */
export const SEED_MIN = -(2 ** 31);
export const SEED_MAX = 2 ** 31 - 1;

/** Below this a time budget leaves a mode no time for even one run (generation included). */
export const MIN_TIME_BUDGET_MS = 1000;

/**
 * The largest --max-records per job: flights has 20000 records in its data set; a generated job
 * draws up to 4 splits of at most half of --max-records each, and a split holds at most 1000
 * records (GENERATED_JOB_LIMITS), so 2000. Wordcount's input is its fixed built-in text, which
 * --max-records does not change, so it is refused there rather than silently ignored.
 */
export const MAX_RECORDS: Readonly<Record<BuiltInJob, number | undefined>> = {
  flights: FLIGHTS_FILE_SIZE,
  generated: 2 * GENERATED_JOB_LIMITS.maxRecordsPerSplit,
  wordcount: undefined,
};

export interface ExploreFlags {
  job?: string;
  mode?: string;
  expect?: string;
  mutant?: string;
  runs?: string;
  timeBudget?: string;
  seed?: string;
  out?: string;
  json?: boolean;
  maxRecords?: string;
  maxParallelism?: string;
  strategy?: string;
}

export { reproFileName };

/** Parsed explore flags. @throws UsageError with a one-line reason. */
export interface ExploreSettings {
  readonly job: ExploreJob;
  readonly modes: RunMode[];
  readonly expect: Expectation | undefined;
  readonly mutants: string[];
  readonly runs: number | undefined;
  readonly timeBudgetMs: number | undefined;
  readonly seed: number;
  readonly seedDrawn: boolean;
  readonly out: string;
  readonly json: boolean;
  readonly maxRecords: number | undefined;
  readonly maxParallelism: number | undefined;
  readonly strategy: ExploreStrategy;
}

/** `v` as a positive integer (undefined when absent). @throws UsageError naming the flag `name`. */
export function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`${name} must be a positive integer, got '${v}'`);
  return Number(v);
}

/**
 * What --time-budget accepts, for its help and its errors: said in full each time, so a refused
 * value never leads to another refused one (an example below the minimum, say).
 */
export const TIME_BUDGET_FORMS = 'a number of seconds or a duration like 60s, 2m or 1500ms';
export const TIME_BUDGET_ACCEPTS = `${TIME_BUDGET_FORMS}; at least ${formatDuration(MIN_TIME_BUDGET_MS)}`;

/** The error for a budget below MIN_TIME_BUDGET_MS (`given` as typed). */
const tooShort = (given: string): UsageError => new UsageError(`--time-budget must be at least ${formatDuration(MIN_TIME_BUDGET_MS)} `
  + `(${TIME_BUDGET_FORMS}), got '${given}'`);

/** Parses `60s`, `2m`, `1500ms` or a number of seconds into ms. @throws UsageError saying what is accepted. */
export function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v.trim());
  if (m === null) throw new UsageError(`--time-budget must be ${TIME_BUDGET_ACCEPTS}, got '${v}'`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const ms = unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000;
  if (ms <= 0) throw tooShort(v);
  return ms;
}

/** `2 s`, `1.5 s`, `2 min`, `500 ms`: a duration in ms as people read it (whole minutes as min). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

/**
 * The modes of --mode (or compare's --modes, `flag`): one or more modes separated by commas, or
 * `all` alone. @throws UsageError.
 */
export function parseModes(modeFlag: string, flag = '--mode'): RunMode[] {
  if (modeFlag === 'all') return [...BUILT_MODES];
  const modes = modeFlag.split(',').map((m) => m.trim()) as RunMode[];
  for (const m of modes) {
    if ((m as string) === 'all') throw new UsageError(`${flag} takes one or more modes separated by commas, or 'all' alone, got '${modeFlag}'`);
    if (m === 'unaligned' || m === 'aligned-timeout') throw new UsageError(`mode ${m} is not available yet`);
    if (!BUILT_MODES.includes(m) && m !== 'none') {
      throw new UsageError(`unknown mode '${m}' (modes: ${BUILT_MODES.join(', ')}, none; or all for ${BUILT_MODES.join(' and ')})`);
    }
  }
  const repeated = modes.find((m, i) => modes.indexOf(m) !== i);
  if (repeated !== undefined) throw new UsageError(`${flag} names ${repeated} twice, got '${modeFlag}'`);
  return modes;
}

/** The --seed: an integer fast-check takes as it is. @throws UsageError. */
export function parseSeed(v: string): number {
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--seed must be an integer, got '${v}'`);
  const seed = Number(v);
  if (seed < SEED_MIN || seed > SEED_MAX) {
    throw new UsageError(`--seed must be a 32-bit signed integer (${SEED_MIN}..${SEED_MAX}), got '${v}'`);
  }
  return seed;
}

/** --max-records within what `job` has (MAX_RECORDS). @throws UsageError. */
export function parseMaxRecords(job: ExploreJob, v: string | undefined): number | undefined {
  const n = positiveInt('--max-records', v);
  if (n === undefined) return undefined;
  if (typeof job !== 'string') return n;
  const max = MAX_RECORDS[job];
  if (max === undefined) throw new UsageError(`--max-records does not apply to the ${job} job (its input is fixed)`);
  if (n > max) throw new UsageError(`--max-records must be at most ${max} for the ${job} job, got '${v}'`);
  return n;
}

/** --max-parallelism, at most MAX_RUN_PARALLELISM. @throws UsageError. */
export function parseMaxParallelism(v: string | undefined): number | undefined {
  const n = positiveInt('--max-parallelism', v);
  if (n !== undefined && n > MAX_RUN_PARALLELISM) {
    throw new UsageError(`--max-parallelism must be at most ${MAX_RUN_PARALLELISM} (the largest parallelism a run may have), got '${v}'`);
  }
  return n;
}

/** --strategy (default mixed). @throws UsageError listing the strategies. */
export function parseStrategy(v: string | undefined): ExploreStrategy {
  if (v === undefined) return DEFAULT_EXPLORE_STRATEGY;
  if (!isExploreStrategy(v)) throw new UsageError(`--strategy must be one of ${EXPLORE_STRATEGIES.join(', ')}, got '${v}'`);
  return v;
}

/** Validates the flags. @throws UsageError. */
export function parseExploreFlags(f: ExploreFlags): ExploreSettings {
  const job = parseJobFlag(f.job);
  const modes = parseModes(f.mode ?? 'all');
  if (f.expect !== undefined && f.expect !== 'exactly-once' && f.expect !== 'at-least-once') {
    throw new UsageError(`--expect must be exactly-once or at-least-once, got '${f.expect}'`);
  }
  if (f.runs !== undefined && f.timeBudget !== undefined) throw new UsageError('give --runs or --time-budget, not both');
  let seed: number;
  let seedDrawn = false;
  if (f.seed === undefined) {
    seed = Math.floor(Math.random() * SEED_MAX);
    seedDrawn = true;
  } else {
    seed = parseSeed(f.seed);
  }
  const timeBudgetMs = f.timeBudget === undefined ? undefined : parseDuration(f.timeBudget);
  if (timeBudgetMs !== undefined && timeBudgetMs < MIN_TIME_BUDGET_MS) {
    throw tooShort(f.timeBudget ?? '');
  }
  const maxParallelism = parseMaxParallelism(f.maxParallelism);
  const mutants = f.mutant === undefined ? [] : f.mutant.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  // `--mutant ""` would silently run without any planted bug.
  if (f.mutant !== undefined && mutants.length === 0) throw new UsageError('--mutant needs at least one planted-bug id');
  const unknown = mutants.find((m) => !PLANTED_BUG_IDS.includes(m));
  if (unknown !== undefined) {
    throw new UsageError(`--mutant: unknown planted bug '${unknown}' (planted bugs: ${PLANTED_BUG_IDS.join(', ')})`);
  }
  // Named twice, a planted bug would be switched on once: say so rather than read it as meant.
  const repeated = mutants.find((m, i) => mutants.indexOf(m) !== i);
  if (repeated !== undefined) throw new UsageError(`--mutant: planted bug '${repeated}' named twice`);
  return {
    job,
    modes,
    expect: f.expect as Expectation | undefined,
    mutants,
    runs: positiveInt('--runs', f.runs),
    timeBudgetMs,
    seed,
    seedDrawn,
    out: f.out ?? 'reports/out',
    json: f.json === true,
    maxRecords: parseMaxRecords(job, f.maxRecords),
    maxParallelism,
    strategy: parseStrategy(f.strategy),
  };
}

/** Help text of --seed, shared by explore, replay and start. */
export const SEED_HELP = `fast-check seed, a 32-bit signed integer (${SEED_MIN}..${SEED_MAX})`;

/** Help text of --mode. */
export const MODE_HELP = `${BUILT_MODES.join(', ')} or none (no checkpointing), several separated by commas, `
  + `or all: the checkpointing modes ${BUILT_MODES.join(' and ')}`;

/** Help text of --max-records. */
export const MAX_RECORDS_HELP = `largest input per run: at most ${MAX_RECORDS.flights} for flights (its data set), `
  + `${MAX_RECORDS.generated} for generated; wordcount's input is fixed`;

/** Adds the explore flags to `cmd`. */
export function exploreOptions(cmd: Command): Command {
  return cmd
    .option('--job <job>', JOB_FLAG_HELP, 'flights')
    .option('--mode <mode>', MODE_HELP, 'all')
    .option('--expect <promise>', 'exactly-once or at-least-once (default: what the mode promises)')
    .option('--mutant <ids>', 'planted bugs to switch on, comma-separated')
    .option('--runs <n>', `runs per mode (default ${DEFAULT_RUNS_PER_MODE}); a mode stops at its first violation`)
    .option('--time-budget <duration>', `wall-clock budget shared by all modes instead of --runs: ${TIME_BUDGET_ACCEPTS}`)
    .option('--seed <n>', `${SEED_HELP}; drawn and printed when absent`)
    .option('--out <dir>', 'where counterexamples are written (created before the first run)', 'reports/out')
    .option('--max-records <n>', MAX_RECORDS_HELP)
    .option('--max-parallelism <n>', `largest parallelism per run, at most ${MAX_RUN_PARALLELISM}`)
    .option('--strategy <s>', STRATEGY_FLAG_HELP)
    .option('--json', 'print one JSON object');
}

/** Help text of --strategy: each strategy in a few words (docs/strategies.md tells them in full). */
export const STRATEGY_FLAG_HELP = `how runs are drawn: ${EXPLORE_STRATEGIES.map((st) => `${st}: ${STRATEGY_HELP[st]}`).join('; ')}`;

/**
 * Runs explore with `s`; returns the exit code. `deps.simulate` replaces the real simulator
 * (tests inject a nondeterministic fake to see exit code 3).
 */
export function runExplore(
  s: ExploreSettings, io: Io, version: string, interactive: boolean,
  deps?: { readonly simulate?: Simulate; /** false: print nothing at the end (start prints the report itself). */ readonly print?: boolean },
): { code: number; report?: ExploreReport } {
  // Before any run: a violation found later must not be lost to an unusable --out.
  const outDir = prepareOutDir(s.out, `--out ${s.out}`);
  let bar: cliProgress.SingleBar | undefined;
  let barMode = '';
  if (interactive && !s.json) {
    bar = new cliProgress.SingleBar({ format: ' {mode} [{bar}] {value}/{total} runs | {duration_formatted}', stream: process.stderr },
      cliProgress.Presets.shades_classic);
  }
  // The drawn seed is said once the first run has been judged (or at the end, or with a harness
  // failure): bad input found by the first run (a job module that cannot be judged) stays one line.
  let seedSaid = false;
  const sayDrawnSeed = (): void => {
    if (seedSaid) return;
    seedSaid = true;
    if (s.seedDrawn && !s.json) io.err(`explore: fast-check seed ${s.seed} (pass --seed ${s.seed} to repeat)\n`);
  };
  let report: ExploreReport;
  try {
    report = explore({
      job: s.job,
      modes: s.modes,
      ...(s.expect === undefined ? {} : { expect: s.expect }),
      mutants: s.mutants,
      ...(s.runs === undefined ? {} : { runs: s.runs }),
      ...(s.timeBudgetMs === undefined ? {} : { timeBudgetMs: s.timeBudgetMs }),
      seed: s.seed,
      strategy: s.strategy,
      ...(s.maxRecords === undefined ? {} : { maxRecords: s.maxRecords }),
      ...(s.maxParallelism === undefined ? {} : { maxParallelism: s.maxParallelism }),
      // No trace cap: the oracles read the whole trace (a capped one gives false violations).
      simulate: deps?.simulate ?? ((spec) => simulate(spec)),
      judge: defaultJudge,
      clock: () => performance.now(),
      version,
      writeRepro: (mode, repro) => writeRepro(outDir, s, mode, repro),
      progress: (mode, done, total) => {
        sayDrawnSeed();
        if (bar === undefined) return;
        if (mode !== barMode) {
          bar.stop();
          bar.start(total ?? 0, 0, { mode });
          barMode = mode;
        }
        if (total === undefined) bar.setTotal(done);
        bar.update(done, { mode });
      },
    });
  } catch (e) {
    bar?.stop();
    if (e instanceof HarnessError) {
      sayDrawnSeed();
      io.err(`checkpoint-sim: harness failure: ${e.message}\n`);
      return { code: 3 };
    }
    throw e;
  }
  bar?.stop();
  sayDrawnSeed();
  if (deps?.print === false) {
    // The caller prints.
  } else if (s.json) io.out(`${JSON.stringify(toJson(report))}\n`);
  else printReport(report, io, [], s);
  return { code: report.counterexamples.length > 0 ? 1 : 0, report };
}

/** The JSON shape of DESIGN.md's explore --json. */
export function toJson(r: ExploreReport): unknown {
  return {
    job: r.job,
    seed: r.seed,
    strategy: r.strategy,
    runsPerMode: r.runsPerMode,
    mutants: r.mutants,
    modes: r.modes,
    counterexamples: r.counterexamples.map((c) => ({
      mode: c.mode, property: c.property, repro: c.repro, replay: c.replay, fastCheck: c.fastCheck, strategy: c.strategy, fork: c.fork ?? null,
      regenerate: c.regenerate ?? null, explanation: c.explanation,
    })),
    fanOut: r.fanOut,
    timing: r.timing,
    counts: COUNT_DEFINITIONS,
  };
}

/** What each count of explore's JSON (and summary.json) counts, carried with them. */
/** The marks of a stop's outcomes, and how explore's text names them. */
const STOP_OUTCOMES = [
  ['stop-with-savepoint-finished', 'finished'], ['stop-with-savepoint-failed', 'failed (the job failed over or the request was refused)'],
  ['stop-with-savepoint-job-failed', 'failed the job after the savepoint'], ['stop-with-savepoint-stuck', 'stuck'],
] as const;

/** The marks of job runs a rescale started, in the order the summary names them. */
const RESCALE_MARKS = [
  ['rescale-up', 'up'], ['rescale-down', 'down'], ['restored-from-savepoint', 'from a savepoint'],
  ['restored-no-claim', 'in NO_CLAIM mode'], ['list-state-redistributed', 'with list state redistributed'],
  ['union-state-redistributed', 'with union state redistributed'], ['lingering-transaction-aborted', 'lingering transactions aborted'],
] as const;

const COUNT_DEFINITIONS = {
  mutants: 'planted bugs switched on for every run (empty: the correct engine)',
  runs: 'generated runs judged in the mode (restore fan-out forks and determinism reruns not counted)',
  violations: 'runs that violated a property (a mode stops at its first)',
  checkpointsCompleted: 'completed checkpoints, summed over the runs',
  restores: 'restores of the job from a checkpoint (one per failover that restored, regional or global), summed over the runs',
  duplicatesAfterRestore: 'committed copies of records beyond the reference fold\'s count per record identity',
  missingRecords: 'records the reference fold produces that were never committed (finished jobs only)',
  unfiredFaults: 'faults whose time or protocol point the run never reached (or reached only after the heal time)',
  unfiredActions: 'actions (savepoints, stop-with-savepoint) whose time or protocol point the run never reached',
  knownStuck: 'runs whose stop-with-savepoint waits forever for a lost confirmation or abort, a known Flink 1.20 outcome: liveness did not judge them (not passes of it)',
  stateUnjudged: 'runs whose final keyed state no oracle judged (not passes of it); stateUnjudgedReasons splits them',
  outputUnjudged: 'runs with a sink whose committed output no oracle compared (the job module turned its judging off; not passes of it); outputUnjudgedReasons splits them',
  outputUnjudgedReasons: 'runs with an unjudged sink, per reason (judging-off: the job module set judge.output to off)',
  statePartlyUnjudged: 'runs whose final keyed state was judged only for some keyed operators (the job module turned the others off)',
  operatorStateJudged: 'runs in which the operator-state oracle judged at least one restore of list or union state',
  operatorStateUnjudgedReasons: 'runs whose job has list- or union-state operators that the oracle could not judge, per reason (no-restore: nothing was restored; not passes of it)',
  rescales: 'rescale actions that fired: restored (a new job run started), failed (its stop failed or no checkpoint was retained), refused (the new run\'s restore was refused at submission)',
  unattributed: 'checkpoint aborts and failovers whose cause chain reaches no fault, action, configuration limit, subsumption, finishing task or slow path (aborts, failovers, runs with one, a few examples with their run, fast-check path and event; attributed: the others per category); each is also a violation of property attribution',
  marks: 'occurrences of each situation (a mark per occurrence: restore-from-checkpoint counts once per restored task)',
  runsByStrategy: 'runs per strategy that drew them (--strategy; under mixed, each run is drawn by one of the others)',
  schedule: 'order decisions summed over the runs (events of different threads, links or channels due at the same instant); '
    + 'pctRuns, pctOrderDecisions: the runs with a PCT schedule and theirs; pctDiffered: those where the schedule ran another candidate than the seeded draw would',
  firstViolation: 'the mode\'s first violation before shrinking: the run that found it (1 for the first), wall ms from the mode\'s start, the strategy that drew it',
  'fanOut.runs': 'restore fan-out forks run (a run with a global failure when its middle completed checkpoint completes)',
  'fanOut.violations': 'forks that violated a property',
  'fanOut.unfired': 'forks whose global failure never fired, so they tested no restore',
  'fanOut.rescaleRuns': 'restore fan-out forks across a rescale run (cancelled when the same checkpoint completes, restored from it at another parallelism)',
  'fanOut.rescaleViolations': 'forks across a rescale that violated a property',
  'fanOut.rescaleUnfired': 'forks across a rescale whose rescale never fired, so they tested no restore',
} as const;

/**
 * The aborts and failovers of mode `m` whose cause chain reached nothing that explains them, and
 * an example or two with the command that regenerates its run; nothing when there are none.
 */
export function unattributedLines(m: string, u: UnattributedSummary | undefined, r: Pick<ExploreReport, 'seed' | 'job' | 'strategy' | 'mutants'>,
  s?: Pick<ExploreSettings, 'job' | 'expect' | 'maxRecords' | 'maxParallelism'>): string[] {
  if (u === undefined || u.aborts + u.failovers === 0) return [];
  // Every flag that decides the run (regenerateCommand), or replay draws another one.
  const flags: RegenerateFlags = {
    job: s?.job ?? (r.job as ExploreJob), strategy: r.strategy, mutants: r.mutants,
    ...(s?.expect === undefined ? {} : { expect: s.expect }),
    ...(s?.maxRecords === undefined ? {} : { maxRecords: s.maxRecords }),
    ...(s?.maxParallelism === undefined ? {} : { maxParallelism: s.maxParallelism }),
  };
  return [
    `${m}: ${u.aborts} abort(s) and ${u.failovers} failover(s) in ${u.runs} run(s) unattributed (no fault, action, limit, `
      + 'subsumption, finishing task or slow path on their cause chain; each a violation of property attribution)',
    ...u.examples.slice(0, 2).map((e) => `  ${describeUnattributed(e)} (${regenerateCommand(flags, m as RunMode, { seed: r.seed, path: e.path })} --events)`),
  ];
}

function writeRepro(outDir: string, s: ExploreSettings, mode: RunMode, repro: Repro): string {
  const path = join(outDir, reproFileName(s, mode));
  writePortableRepro(path, repro);
  return path;
}

/**
 * What a mode's runs say about the strategy: the runs per strategy under mixed, what a PCT
 * schedule changed, and which run found the first violation (before shrinking) and when.
 */
export function strategyLines(strategy: string, x: ModeSummary): string[] {
  const lines: string[] = [];
  const by = Object.entries(x.runsByStrategy ?? {});
  if (strategy === 'mixed' && by.length > 0) lines.push(`runs by strategy: ${by.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const sc = x.schedule;
  if (sc !== undefined && sc.pctRuns > 0) {
    const share = sc.pctOrderDecisions === 0 ? 0 : Math.round((100 * sc.pctDiffered) / sc.pctOrderDecisions);
    lines.push(`a PCT schedule in ${sc.pctRuns} run(s) ran another candidate than the seeded draw at ${sc.pctDiffered} `
      + `of their ${sc.pctOrderDecisions} order decisions (${share}%)`);
  }
  const f = x.firstViolation;
  if (f !== undefined) lines.push(`first violation in run ${f.run} (drawn by ${f.strategy}), ${(f.ms / 1000).toFixed(1)} s into the mode`);
  return lines;
}

/**
 * The summary table and the counterexamples, for people. `afterTable`: lines printed right under
 * the table's rows (start's per-run rates).
 */
export function printReport(r: ExploreReport, io: Io, afterTable: readonly string[] = [],
  s?: Pick<ExploreSettings, 'job' | 'expect' | 'maxRecords' | 'maxParallelism'>): void {
  io.out(`explore ${r.job}, fast-check seed ${r.seed}, strategy ${r.strategy}, ${r.runsPerMode ?? 'time-budgeted'} runs per mode, `
    + `${(r.timing.wallMs / 1000).toFixed(1)} s\n`);
  const head = ['mode', 'runs', 'violations', 'checkpoints', 'restores', 'duplicates', 'missing', 'unfired faults',
    'state unjudged', 'unattributed'];
  const rows = Object.entries(r.modes).map(([m, x]) => [m, x.runs, x.violations, x.checkpointsCompleted, x.restores,
    x.duplicatesAfterRestore, x.missingRecords, x.unfiredFaults, x.stateUnjudged,
    (x.unattributed?.aborts ?? 0) + (x.unattributed?.failovers ?? 0)].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}\n`;
  io.out(line(head));
  for (const row of rows) io.out(line(row));
  for (const l of afterTable) io.out(`${l}\n`);
  // Runs whose state no oracle judged are no passes of it: say why, per mode.
  for (const [m, x] of Object.entries(r.modes)) {
    for (const l of strategyLines(r.strategy, x)) io.out(`${m}: ${l}\n`);
    const reasons = Object.entries(x.stateUnjudgedReasons).map(([k, n]) => `${n} ${k}`);
    if (reasons.length > 0) io.out(`${m}: final keyed state not judged in ${x.stateUnjudged} run(s): ${reasons.join(', ')}\n`);
    if ((x.outputUnjudged ?? 0) > 0) {
      const why = Object.entries(x.outputUnjudgedReasons ?? {}).map(([k, n]) => `${n} ${k}`).join(', ');
      io.out(`${m}: a sink's output not judged in ${x.outputUnjudged ?? 0} run(s): ${why}\n`);
    }
    if ((x.statePartlyUnjudged ?? 0) > 0) io.out(`${m}: keyed state judged only in part (operators turned off) in ${x.statePartlyUnjudged ?? 0} run(s)\n`);
    const opUnjudged = Object.entries(x.operatorStateUnjudgedReasons ?? {}).map(([k, n]) => `${n} ${k}`);
    const opJudged = x.operatorStateJudged ?? 0;
    if (opJudged > 0 || opUnjudged.length > 0) {
      io.out(`${m}: operator state (list, union) judged in ${opJudged} run(s)`
        + `${opUnjudged.length > 0 ? `, not judged in ${opUnjudged.join(', ')}` : ''}\n`);
    }
    // Like unfired faults, actions that never fired tested nothing: counted, never hidden.
    if (x.unfiredActions > 0) io.out(`${m}: ${x.unfiredActions} action(s) (savepoints, stops) never fired (their time or point never came)\n`);
    // What the stops came to, from their marks (a stop that never fired is among the unfired actions).
    const stops = STOP_OUTCOMES.map(([mark, words]) => [x.marks[mark] ?? 0, words] as const);
    if (stops.some(([n]) => n > 0)) io.out(`${m}: stop-with-savepoint (a rescale's stops included): ${stops.map(([n, words]) => `${n} ${words}`).join(', ')}\n`);
    // Job runs a rescale started (histories of several runs: docs/runspec.md, Job runs).
    const rs = x.rescales;
    if (rs !== undefined && rs.fired > 0) {
      io.out(`${m}: rescales: ${rs.fired} fired, ${rs.restored} started a new job run, ${rs.failed} failed (the stop failed or nothing was retained)`
        + `${rs.refused > 0 ? `, ${rs.refused} new run(s) refused at submission (Flink's restore refusal)` : ''}\n`);
    }
    const rescales = RESCALE_MARKS.map(([mark, words]) => [x.marks[mark] ?? 0, words] as const);
    if (rescales.some(([n]) => n > 0)) io.out(`${m}: job runs restored by a rescale: ${rescales.map(([n, words]) => `${n} ${words}`).join(', ')}\n`);
    if (x.knownStuck > 0) {
      io.out(`${m}: ${x.knownStuck} run(s) stuck in stop-with-savepoint (a lost confirmation or abort: known in Flink 1.20), liveness not judged\n`);
    }
    for (const l of unattributedLines(m, x.unattributed, r, s)) io.out(`${l}\n`);
  }
  if (r.fanOut.runs > 0) {
    io.out(`restore fan-out: ${r.fanOut.runs} forked runs, ${r.fanOut.violations} violations`
      + `${r.fanOut.unfired > 0 ? `, ${r.fanOut.unfired} whose failover never fired (no restore tested)` : ''}`
      + `; across a rescale ${r.fanOut.rescaleRuns} forked runs, ${r.fanOut.rescaleViolations} violations`
      + `${r.fanOut.rescaleUnfired > 0 ? `, ${r.fanOut.rescaleUnfired} whose rescale never fired` : ''}\n`);
  }
  for (const c of r.counterexamples) {
    io.out(`\nVIOLATION in mode ${c.mode}: ${c.property}\n  ${c.summary}\n`);
    const actions = c.actions === 0 ? '' : `, ${c.actions} action${c.actions === 1 ? '' : 's'}`;
    const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
    io.out(`  shrunk to ${plural(c.faults, 'fault')}${actions} and ${plural(c.overrides, 'override')}; trace hash ${c.traceHash}\n`);
    io.out(`  drawn by the ${c.strategy.run} strategy${c.strategy.explore === c.strategy.run ? '' : ` (explore --strategy ${c.strategy.explore})`}\n`);
    const details = formatDetails(c.violation.details, { indent: '    ' });
    if (details.length > 0) io.out(`  details:\n${details.join('\n')}\n`);
    if (c.fork !== undefined) {
      io.out(c.fork.rescale === true
        ? `  found in the restore fan-out fork across a rescale at checkpoint ${c.fork.checkpointId} (cancelled when it completed, restored from it at another parallelism)\n`
        : `  found in the restore fan-out fork at checkpoint ${c.fork.checkpointId} (the run with a global failure when it completed)\n`);
    }
    for (const l of formatExplanation(c.explanation, '    ')) io.out(`  ${l}\n`);
    io.out(`  expanded configuration: ${JSON.stringify(c.configuration)}\n`);
    io.out(`  repro: ${c.repro}\n  replay: ${c.replay}\n`);
    io.out(`  fast-check: seed ${c.fastCheck.seed}, path ${c.fastCheck.path}${c.regenerate === undefined
      ? ' (replay --seed --path does not regenerate this shrunk run here: replay the repro file)'
      : ` (before unfired faults were dropped): ${c.regenerate}`}\n`);
  }
}
