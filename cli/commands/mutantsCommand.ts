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
import { writeFileSync } from 'node:fs';
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
import {
  formatStrategyTable, median, strategyTable, type StrategySearch,
} from '../../properties/mutants/strategyTable.ts';
import {
  formatDuration, parseDuration, parseSeed, positiveInt, TIME_BUDGET_ACCEPTS, MIN_TIME_BUDGET_MS, SEED_HELP,
} from './exploreCommand.ts';
import {
  DEFAULT_EXPLORE_STRATEGY, EXPLORE_STRATEGIES, isExploreStrategy, type ExploreStrategy,
} from '../../properties/arbitraries/ExploreStrategy.ts';

/** Where `mutants run` writes the repros by default. */
export const MUTANTS_OUT = 'reports/out/mutants';

/** The default budget per bug. */
export const DEFAULT_MUTANT_BUDGET = '30s';

export interface MutantsRunFlags {
  only?: string;
  timeBudget?: string;
  strategy?: string;
  compareStrategies?: boolean;
  seeds?: string;
  seed?: string;
  out?: string;
  json?: boolean;
}

/** Parsed flags of `mutants run`. */
export interface MutantsRunSettings {
  readonly searches: readonly MutantSearch[];
  readonly timeBudgetMs: number;
  readonly strategy: ExploreStrategy;
  /** Seeds of the strategy table (`--compare-strategies`), or undefined for no table. */
  readonly compareSeeds: number | undefined;
  readonly seed: number;
  readonly out: string;
  readonly json: boolean;
}

/** Seeds per (bug, strategy) of the strategy table by default. */
export const DEFAULT_COMPARE_SEEDS = 5;

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
    .option('--strategy <s>', `how explore draws runs: ${EXPLORE_STRATEGIES.join(', ')} (docs/strategies.md)`, DEFAULT_EXPLORE_STRATEGY)
    .option('--seed <n>', SEED_HELP, '1')
    .option('--compare-strategies', 'also search each bug with every strategy, --seeds seeds each (no shrinking), '
      + 'and print the strategy table (also written to strategies.md and strategies.json in --out)')
    .option('--seeds <n>', `seeds per bug and strategy of the strategy table (from --seed on; default ${DEFAULT_COMPARE_SEEDS})`)
    .option('--out <dir>', 'where the repros (and the strategy table) are written (created before the first run)', MUTANTS_OUT)
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
  const strategy = f.strategy ?? DEFAULT_EXPLORE_STRATEGY;
  if (!isExploreStrategy(strategy)) {
    throw new UsageError(`--strategy must be one of ${EXPLORE_STRATEGIES.join(', ')}, got '${strategy}'`);
  }
  if (f.seeds !== undefined && f.compareStrategies !== true) throw new UsageError('--seeds applies only with --compare-strategies');
  const seeds = positiveInt('--seeds', f.seeds) ?? DEFAULT_COMPARE_SEEDS;
  return {
    searches: mutantSearches(only, (m) => new UsageError(`--only: ${m}`)),
    timeBudgetMs,
    strategy,
    compareSeeds: f.compareStrategies === true ? seeds : undefined,
    seed: parseSeed(f.seed ?? '1'),
    out: f.out ?? MUTANTS_OUT,
    json: f.json === true,
  };
}

/** Runs the scoreboard (and the strategy table when asked); returns the exit code (see the file comment). */
export function runMutants(s: MutantsRunSettings, io: Io, interactive: boolean, version: string): number {
  const outDir = prepareOutDir(s.out, `--out ${s.out}`);
  const tableSearches = s.compareSeeds === undefined ? 0 : s.searches.length * EXPLORE_STRATEGIES.length * s.compareSeeds;
  // --json prints only the JSON (as explore does); otherwise a bar on a terminal, else a line per search.
  const progress = progressOf(io, s.json ? 'quiet' : interactive ? 'bar' : 'lines', s.searches.length + tableSearches);
  const score = (search: MutantSearch, seed: number, strategy: ExploreStrategy, shrink: boolean): MutantScore => scoreMutant(search, {
    seed, strategy, shrink, timeBudgetMs: s.timeBudgetMs, simulate: (spec) => simulate(spec), judge: defaultJudge,
    clock: () => performance.now(), version,
    writeRepro: (x, repro) => {
      const path = join(outDir, reproFileName({
        job: x.job, seed, expect: undefined, maxRecords: undefined, maxParallelism: undefined, mutants: [x.id], strategy,
      }, x.mode));
      writePortableRepro(path, repro);
      return path;
    },
    progress: (runs) => progress.runs(search.id, runs),
  });
  const scores: MutantScore[] = [];
  const searched: StrategySearch[] = [];
  try {
    for (const search of s.searches) {
      progress.next(`${search.id} (${search.mode}, ${s.strategy})`);
      scores.push(score(search, s.seed, s.strategy, true));
    }
    for (let i = 0; i < (s.compareSeeds ?? 0); i++) {
      for (const search of s.searches) {
        for (const strategy of EXPLORE_STRATEGIES) {
          progress.next(`${search.id} (${strategy}, seed ${s.seed + i})`);
          const x = score(search, s.seed + i, strategy, false);
          searched.push({ id: x.id, strategy, seed: x.seed, killed: x.killed, runs: x.killed ? (x.runsToKill as number) : x.runs });
        }
      }
    }
  } catch (e) {
    progress.stop();
    if (e instanceof HarnessError) {
      io.err(`checkpoint-sim: harness failure: ${e.message}\n`);
      return 3;
    }
    throw e;
  }
  progress.stop();
  const table = searched.length === 0 ? undefined : strategyTable(searched);
  if (table !== undefined) {
    const md = formatStrategyTable(table);
    writeFileSync(join(outDir, 'strategies.md'), `${strategyTableTitle(s)}\n\n${md.join('\n')}\n`);
    writeFileSync(join(outDir, 'strategies.json'), `${JSON.stringify({ budgetMs: s.timeBudgetMs, seeds: s.compareSeeds, searches: searched, table })}\n`);
  }
  if (s.json) {
    io.out(`${JSON.stringify(scores)}\n`);
  } else {
    for (const l of formatScoreboard(scores, s.timeBudgetMs)) io.out(`${l}\n`);
    if (table !== undefined) {
      io.out(`\n${strategyTableTitle(s)} (also in ${join(outDir, 'strategies.md')}):\n`);
      for (const l of formatStrategyTable(table)) io.out(`${l}\n`);
    }
  }
  return scores.every((x) => x.killed && x.replays === true) ? 0 : 1;
}

/** The strategy table's heading: what a cell counts. */
function strategyTableTitle(s: MutantsRunSettings): string {
  const n = s.compareSeeds ?? 0;
  return `Runs to kill per planted bug and strategy: median over ${n} seed${n === 1 ? '' : 's'} from ${s.seed}, `
    + `no shrinking (killed/seeds); a search that missed counts the runs it made in ${formatDuration(s.timeBudgetMs)}`;
}

/** Progress for people: a bar on a terminal (searches done, the current one's runs), else a line per search. */
interface Progress {
  next(what: string): void;
  runs(id: string, runs: number): void;
  stop(): void;
}

function progressOf(io: Io, kind: 'quiet' | 'lines' | 'bar', total: number): Progress {
  if (kind !== 'bar') {
    return { next: (what) => kind === 'lines' && io.err(`mutants: ${what}...\n`), runs: () => undefined, stop: () => undefined };
  }
  const bar = new cliProgress.SingleBar({
    format: ' mutants [{bar}] {value}/{total} searches | {what}: {runs} runs | {duration_formatted}', stream: process.stderr,
  }, cliProgress.Presets.shades_classic);
  let done = -1;
  let what = '';
  bar.start(total, 0, { what, runs: 0 });
  return {
    next: (w) => {
      done++;
      what = w;
      bar.update(done, { what, runs: 0 });
    },
    runs: (_id, runs) => bar.update(Math.max(0, done), { what, runs }),
    stop: () => {
      bar.update(total, { what, runs: 0 });
      bar.stop();
    },
  };
}

/** The scoreboard for people: a row per bug, a summary line, then each caught bug's replay command. */
export function formatScoreboard(scores: readonly MutantScore[], budgetMs: number): string[] {
  const head = ['planted bug', 'job, mode', 'caught', 'runs', 'time', 'drawn by', 'property', 'shrunk (faults+actions, overrides, records)',
    'replays'];
  const rows = scores.map((x) => [
    x.id, `${x.job} ${x.mode}`, x.killed ? 'yes' : 'NO', String(x.killed ? x.runsToKill : x.runs),
    x.msToKill === null ? `> ${formatDuration(budgetMs)}` : `${(x.msToKill / 1000).toFixed(1)} s`,
    x.killedBy ?? '-',
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
