/**
 * `checkpoint-sim scenario list [--json]` and `checkpoint-sim scenario run NAME... | --all |
 * --file F.json [--fuzz N] [--json] [--out DIR]` (docs/scenarios.md).
 *
 * run prints, per scenario, passed or failed, the expectation (or oracle, or step) that failed,
 * the steps fired, the trace hash and the replay command; `--json` prints an array of
 * `{ name, passed, traceHash, stepsFired, failure }`. With `--fuzz N` each scenario's steps are
 * kept and N schedules around them explored (scenarios/fuzzScenario.ts): the runs, violations
 * and unfired steps are printed, and a violation's shrunk repro. A progress bar goes to stderr
 * only when stderr is a terminal and the output is not JSON.
 *
 * Exit codes: 0 every scenario passed, 1 one failed (or fuzzing found a violation), 2 bad input
 * (an unknown name, listed with the close ones; a malformed scenario file, one line naming the
 * field).
 */
import { formatJobRuns } from './jobRunsSummary.ts';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { CATALOGUE } from '../../scenarios/catalogue/index.ts';
import { fuzzScenario, type FuzzReport } from '../../scenarios/fuzzScenario.ts';
import { parseScenario } from '../../scenarios/parseScenario.ts';
import { runScenario, type ScenarioResult } from '../../scenarios/runScenario.ts';
import type { Scenario } from '../../scenarios/Scenario.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { closeMatches } from '../../sim/closeMatches.ts';
import { prepareOutDir } from '../outDir.ts';
import { loadFileJobModule } from '../jobModuleFiles.ts';
import { readJsonFile } from '../readJsonFile.ts';
import { UsageError, type Io } from '../program.ts';

export interface ScenarioRunFlags {
  all?: boolean;
  file?: string[];
  fuzz?: string;
  seed?: string;
  json?: boolean;
  out?: string;
}

/** Adds `scenario list` and `scenario run` to `program`; `done` receives the exit code. */
export function scenarioCommands(program: Command, io: Io, done: (code: number) => void): void {
  const scenario = program.command('scenario').description('list or run the scenario catalogue, or a scenario file');
  scenario.command('list')
    .description('list the catalogue: name and what each scenario protects')
    .option('--json', 'print a JSON array')
    .action((flags: { json?: boolean }) => done(listScenarios(io, flags.json === true)));
  scenario.command('run [names...]')
    .description('run scenarios by name, --all of them, or a --file; exit 1 if one fails')
    .option('--all', 'every scenario of the catalogue')
    .option('--file <file>', 'a scenario JSON file (repeat for several)', (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
    .option('--fuzz <n>', 'explore n schedules around each scenario\'s steps (the standing oracles judge)')
    .option('--seed <n>', 'with --fuzz: fast-check\'s seed, a 32-bit signed integer (default: a hash of the scenario\'s name)')
    .option('--json', 'print a JSON array')
    .option('--out <dir>', 'where repro files go', 'reports/out')
    .action(async (names: string[], flags: ScenarioRunFlags) => {
      for (const file of flags.file ?? []) await loadFileJobModule(file, 'scenario');
      done(runScenarios(names, flags, io, process.stderr.isTTY === true));
    });
}

/** Prints the catalogue; returns 0. */
export function listScenarios(io: Io, json: boolean): number {
  if (json) {
    io.out(`${JSON.stringify(CATALOGUE.map((s) => ({
      name: s.name, protects: s.protects, ...(s.source === undefined ? {} : { source: s.source }), steps: s.steps.length,
    })))}\n`);
    return 0;
  }
  const width = Math.max(...CATALOGUE.map((s) => s.name.length));
  for (const s of CATALOGUE) io.out(`${s.name.padEnd(width)}  ${s.protects}\n`);
  return 0;
}

/** The catalogue scenario `name`. @throws UsageError listing the close names. */
function byName(name: string): Scenario {
  const found = CATALOGUE.find((s) => s.name === name);
  if (found !== undefined) return found;
  const close = closeMatches(name, CATALOGUE.map((s) => s.name));
  const hint = close.length > 0 ? `close: ${close.join(', ')}` : 'see checkpoint-sim scenario list';
  throw new UsageError(`unknown scenario '${name}' (${hint})`);
}

/** A scenario file. @throws UsageError naming the file and the field. */
function fromFile(path: string): Scenario {
  const value = readJsonFile(path, 'scenario');
  try {
    return parseScenario(value, 'file');
  } catch (e) {
    if (!(e instanceof SimInputError)) throw e;
    // A RunSpec given to `scenario run` is the likeliest mix-up: say which command reads it.
    const o = value !== null && typeof value === 'object' ? value as Record<string, unknown> : {};
    const hint = 'seed' in o && 'faults' in o && 'budgets' in o ? ' (this is a RunSpec: run it with checkpoint-sim run)' : '';
    throw new UsageError(`${path}: ${e.message}${hint}`, { cause: e });
  }
}

/** Runs `f`; a bad-input error a file's scenario causes at run time (a task the job lacks) names the file. */
function inFile<T>(file: string | undefined, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (file !== undefined && e instanceof SimInputError) throw new UsageError(`${file}: ${e.message}`, { cause: e });
    throw e;
  }
}

function selection(names: readonly string[], flags: ScenarioRunFlags): Scenario[] {
  const forms = [names.length > 0, flags.all === true, flags.file !== undefined].filter(Boolean).length;
  if (forms !== 1) throw new UsageError('scenario run takes scenario names, --all, or --file <file>... (exactly one of them)');
  if (flags.all === true) return [...CATALOGUE];
  const chosen = flags.file !== undefined ? flags.file.map(fromFile) : names.map(byName);
  // One name, one repro file: two scenarios of one name would write over each other's repro.
  const seen = new Set<string>();
  for (const s of chosen) {
    if (seen.has(s.name)) throw new UsageError(`two scenarios named '${s.name}' in one run (a failure's repro is named after its scenario): give each its own name`);
    seen.add(s.name);
  }
  return chosen;
}

function parseFuzz(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100_000) throw new UsageError(`--fuzz must be an integer in 1..100000, got '${v}'`);
  return Number(v);
}

/** `--seed`: a 32-bit signed integer (fast-check's seed), only with --fuzz. */
function parseSeed(v: string | undefined, fuzz: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (fuzz === undefined) throw new UsageError('--seed is for --fuzz runs (a scenario run without --fuzz has no schedule to draw)');
  if (!/^-?\d+$/.test(v) || Number(v) < -(2 ** 31) || Number(v) > 2 ** 31 - 1) {
    throw new UsageError(`--seed must be a 32-bit signed integer, got '${v}'`);
  }
  return Number(v);
}

/** Runs the selected scenarios; returns the exit code. @throws UsageError for bad input. */
export function runScenarios(names: readonly string[], flags: ScenarioRunFlags, io: Io, interactive: boolean): number {
  const scenarios = selection(names, flags);
  const fuzz = parseFuzz(flags.fuzz);
  const seed = parseSeed(flags.seed, fuzz);
  const out = flags.out ?? 'reports/out';
  const outDir = prepareOutDir(out, `--out ${out}`);
  const json = flags.json === true;
  const total = scenarios.length * (fuzz ?? 1);
  const bar = interactive && !json && total > 1
    ? new cliProgress.SingleBar({ format: ' {name} [{bar}] {value}/{total} runs | {duration_formatted}', stream: process.stderr },
      cliProgress.Presets.shades_classic)
    : undefined;
  bar?.start(total, 0, { name: '' });
  try {
    if (fuzz !== undefined) {
      const reports: FuzzReport[] = [];
      scenarios.forEach((s, i) => {
        bar?.update(i * fuzz, { name: s.name });
        reports.push(inFile(flags.file?.[i], () => fuzzScenario(s, { runs: fuzz, outDir, ...(seed === undefined ? {} : { seed }), progress: (d) => bar?.update(i * fuzz + d, { name: s.name }) })));
      });
      bar?.stop();
      printFuzz(reports, io, json);
      return reports.some((r) => r.violations > 0) ? 1 : 0;
    }
    const results: ScenarioResult[] = [];
    scenarios.forEach((s, i) => {
      bar?.update(i, { name: s.name });
      results.push(inFile(flags.file?.[i], () => runScenario(s, { outDir })));
    });
    bar?.update(total, { name: '' });
    bar?.stop();
    printResults(results, io, json);
    return results.every((r) => r.passed) ? 0 : 1;
  } finally {
    bar?.stop();
  }
}

function printResults(results: readonly ScenarioResult[], io: Io, json: boolean): void {
  if (json) {
    io.out(`${JSON.stringify(results.map((r) => ({
      name: r.name, passed: r.passed, traceHash: r.traceHash, stepsFired: r.stepsFired, stepsTotal: r.stepsTotal,
      knownStuck: r.knownStuck === true,
      ...(r.jobRuns === undefined ? {} : { jobRuns: r.jobRuns }),
      failure: r.failure === undefined ? null : {
        kind: r.failure.kind, property: r.failure.property, summary: r.failure.summary, message: r.failure.message,
        ...(r.failure.timeMs === undefined ? {} : { timeMs: r.failure.timeMs }),
        events: r.failure.events ?? [], repro: r.reproPath ?? null, replay: r.replayCommand ?? null,
      },
    })))}\n`);
    return;
  }
  for (const r of results) {
    // A scenario without steps (world settings in config.faults, or no faults) has none to fire:
    // say so rather than "0/0", which reads as nothing tested (its expectations pin the run).
    const steps = r.stepsTotal === 0 ? 'no steps' : `steps fired ${r.stepsFired}/${r.stepsTotal}`;
    // Liveness could not judge a stop stuck for good: said, never passed off as judged.
    const stuck = r.knownStuck === true ? '  (stop-with-savepoint stuck, known in Flink 1.20: liveness not judged)' : '';
    io.out(`${r.passed ? 'passed' : 'FAILED'}  ${r.name}  ${steps}  trace ${r.traceHash}${stuck}\n`);
    // A history of several job runs: each run's parallelism and what it was restored from.
    const runs = formatJobRuns(r.jobRuns);
    if (runs !== undefined) io.out(`  ${runs}\n`);
    if (r.failure !== undefined) io.out(`${r.failure.message.split('\n').map((l) => `  ${l}`).join('\n')}\n`);
  }
  const failed = results.filter((r) => !r.passed).length;
  const stuck = results.filter((r) => r.passed && r.knownStuck === true).length;
  io.out(`${results.length - failed} passed${stuck === 0 ? '' : ` (${stuck} with liveness not judged: a stop stuck for good)`}, ${failed} failed\n`);
}

function printFuzz(reports: readonly FuzzReport[], io: Io, json: boolean): void {
  if (json) {
    io.out(`${JSON.stringify(reports.map((r) => ({ passed: r.violations === 0, ...r })))}\n`);
    return;
  }
  for (const r of reports) {
    io.out(`${r.violations > 0 ? 'FAILED' : 'passed'}  ${r.name}  fuzz runs ${r.runs} (seed ${r.seed}), violations ${r.violations}, `
      + `runs with unfired steps ${r.runsWithUnfiredSteps} (${r.stepsUnfired} steps)\n`);
    const c = r.counterexample;
    if (c !== undefined) {
      io.out(`  ${c.property} at ${c.timeMs} ms: ${c.summary}\n  shrunk schedule: seed ${c.seed}, overrides ${JSON.stringify(c.overrides)}\n`
        + `  trace ${c.traceHash}\n  replay: ${c.replayCommand}\n`);
    }
  }
}
