/**
 * `checkpoint-sim mutants run`: the scoreboard. The explorer runs against each planted bug (in
 * the job and mode where its code runs; properties/mutants/mutantSearches.ts) with a wall-clock
 * budget per bug, and the command reports per bug whether it was caught, the runs and wall time
 * to the first violation, the property that caught it, the shrunk repro's size and its replay
 * command (each repro is read back and replayed before it is reported). `--compare-strategies`
 * adds the second table: each search strategy's runs to kill per bug, the median over `--seeds`
 * seeds (properties/mutants/strategyTable.ts).
 *
 * Exit codes: 0 every bug searched was caught (and every repro replays), 1 one was not (a planted
 * bug the harness misses is a finding), 2 bad usage, 3 the harness broke.
 */
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { writePortableRepro } from '../../properties/jobModules/portableRepro.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { HarnessError } from '../../properties/explore/explore.ts';
import { reproFileName } from '../../properties/explore/reproFileName.ts';
import { mutantSearches } from '../../properties/mutants/mutantSearches.ts';
import { scoreMutant, type MutantScore, type MutantSearch } from '../../properties/mutants/scoreMutant.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { prepareOutDir } from '../outDir.ts';
import { UsageError } from '../UsageError.ts';
import type { Io } from '../program.ts';
import { median } from '../../properties/mutants/strategyTable.ts';
import { formatDuration, parseDuration, parseSeed, TIME_BUDGET_ACCEPTS, MIN_TIME_BUDGET_MS, SEED_HELP } from './exploreCommand.ts';

/** Where `mutants run` writes the repros by default. */
export const MUTANTS_OUT = 'reports/out/mutants';

/** The default budget per bug. */
export const DEFAULT_MUTANT_BUDGET = '30s';

export interface MutantsRunFlags {
  only?: string;
  timeBudget?: string;
  seed?: string;
  out?: string;
  json?: boolean;
}

/** Parsed flags of `mutants run`. */
export interface MutantsRunSettings {
  readonly searches: readonly MutantSearch[];
  readonly timeBudgetMs: number;
  readonly seed: number;
  readonly out: string;
  readonly json: boolean;
}

const EXAMPLES = `
Examples:
  npx checkpoint-sim mutants run                                   every planted bug, 30 s each
  npx checkpoint-sim mutants run --only sink-commits-only-notified,fm-ignore-expired --time-budget 10s
  npx checkpoint-sim mutants run --time-budget 60s --json          one JSON array, an element per bug

Exit codes: 0 every bug caught, 1 a bug not caught within its budget (or a repro that does not
replay), 2 bad usage, 3 the harness broke.`;

/**
 * Adds `run` to the `mutants` command; `version` goes into the repros, `setExit` takes the exit
 * code its action chose.
 */
export function mutantsRunCommand(mutants: Command, io: Io, version: string, setExit: (code: number) => void): void {
  mutants.command('run')
    .description('run the explorer against each planted bug and report whether and how fast it was caught')
    .option('--only <ids>', 'planted bugs to search for, comma-separated (default: every one; see mutants list)')
    .option('--time-budget <duration>', `wall-clock budget per bug: ${TIME_BUDGET_ACCEPTS}`, DEFAULT_MUTANT_BUDGET)
    .option('--seed <n>', SEED_HELP, '1')
    .option('--out <dir>', 'where the repros are written (created before the first run)', MUTANTS_OUT)
    .option('--json', 'print one JSON array, an element per bug')
    .addHelpText('after', EXAMPLES)
    .action((flags: MutantsRunFlags) => {
      setExit(runMutants(parseMutantsRunFlags(flags), io, process.stderr.isTTY === true, version));
    });
}

/** Validates the flags. @throws UsageError with a one-line reason. */
export function parseMutantsRunFlags(f: MutantsRunFlags): MutantsRunSettings {
  const only = f.only === undefined ? undefined : f.only.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (only !== undefined && only.length === 0) throw new UsageError('--only needs at least one planted-bug id');
  const budget = f.timeBudget ?? DEFAULT_MUTANT_BUDGET;
  const timeBudgetMs = parseDuration(budget);
  if (timeBudgetMs < MIN_TIME_BUDGET_MS) {
    throw new UsageError(`--time-budget must be at least ${formatDuration(MIN_TIME_BUDGET_MS)} (${TIME_BUDGET_ACCEPTS}), got '${budget}'`);
  }
  return {
    searches: mutantSearches(only, (m) => new UsageError(`--only: ${m}`)),
    timeBudgetMs,
    seed: parseSeed(f.seed ?? '1'),
    out: f.out ?? MUTANTS_OUT,
    json: f.json === true,
  };
}

/** Runs the scoreboard; returns the exit code (see the file comment). */
export function runMutants(s: MutantsRunSettings, io: Io, interactive: boolean, version: string): number {
  const outDir = prepareOutDir(s.out, `--out ${s.out}`);
  const bar = interactive && !s.json ? new cliProgress.SingleBar({
    format: ' mutants [{bar}] {value}/{total} bugs | {bug}: {runs} runs | {duration_formatted}', stream: process.stderr,
  }, cliProgress.Presets.shades_classic) : undefined;
  bar?.start(s.searches.length, 0, { bug: '', runs: 0 });
  const scores: MutantScore[] = [];
  try {
    for (const search of s.searches) {
      if (bar === undefined && !s.json) io.err(`mutants: ${search.id} (${search.mode})...\n`);
      scores.push(scoreMutant(search, {
        seed: s.seed,
        timeBudgetMs: s.timeBudgetMs,
        simulate: (spec) => simulate(spec),
        judge: defaultJudge,
        clock: () => performance.now(),
        version,
        writeRepro: (x, repro) => {
          const path = join(outDir, reproFileName({
            job: x.job, seed: s.seed, expect: undefined, maxRecords: undefined, maxParallelism: undefined, mutants: [x.id],
          }, x.mode));
          writePortableRepro(path, repro);
          return path;
        },
        progress: (runs) => bar?.update(scores.length, { bug: search.id, runs }),
      }));
      bar?.update(scores.length, { bug: search.id });
    }
  } catch (e) {
    bar?.stop();
    if (e instanceof HarnessError) {
      io.err(`checkpoint-sim: harness failure: ${e.message}\n`);
      return 3;
    }
    throw e;
  }
  bar?.stop();
  if (s.json) io.out(`${JSON.stringify(scores)}\n`);
  else for (const l of formatScoreboard(scores, s.timeBudgetMs)) io.out(`${l}\n`);
  return scores.every((x) => x.killed && x.replays === true) ? 0 : 1;
}

/** The scoreboard for people: a row per bug, a summary line, then each caught bug's replay command. */
export function formatScoreboard(scores: readonly MutantScore[], budgetMs: number): string[] {
  const head = ['planted bug', 'mode', 'caught', 'runs', 'time', 'property', 'shrunk (faults+actions, overrides, records)', 'replays'];
  const rows = scores.map((x) => [
    x.id, x.mode, x.killed ? 'yes' : 'NO', String(x.killed ? x.runsToKill : x.runs),
    x.msToKill === null ? `> ${formatDuration(budgetMs)}` : `${(x.msToKill / 1000).toFixed(1)} s`,
    x.property ?? '-',
    x.killed ? `${x.shrunkFaults}, ${x.shrunkOverrides}, ${x.shrunkRecords}` : '-',
    x.replays === null ? '-' : x.replays ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const killed = scores.filter((x) => x.killed);
  const times = killed.map((x) => x.msToKill as number).sort((a, b) => a - b);
  const medianMs = times.length === 0 ? undefined : median(times);
  const out = [line(head), ...rows.map(line), ''];
  out.push(`caught ${killed.length} of ${scores.length} planted bugs within ${formatDuration(budgetMs)} each`
    + (medianMs === undefined ? '' : `; median time to kill ${(medianMs / 1000).toFixed(1)} s, slowest ${((times.at(-1) ?? 0) / 1000).toFixed(1)} s`));
  for (const x of killed) out.push(`  ${x.id}: ${x.replay ?? ''}`);
  return out;
}
