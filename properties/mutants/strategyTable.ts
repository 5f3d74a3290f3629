/**
 * strategyTable: the scoreboard's second table, the search strategies compared on the planted
 * bugs. Each (bug, strategy) was searched once per seed; a search counts the runs it took to the
 * first violation, and a search that caught nothing within its budget counts the runs it made in
 * the budget (so a strategy that misses a bug pays for the whole budget, never nothing). A cell is
 * the median of its seeds' counts; a strategy's total is the sum of its cells, the catalogue's
 * cost in runs. Pure: the searches are run elsewhere (cli/commands/mutantsCommand.ts).
 */

/** One search of one bug with one strategy and one seed. */
export interface StrategySearch {
  readonly id: string;
  readonly strategy: string;
  readonly seed: number;
  readonly killed: boolean;
  /** Runs to the first violation when killed, else every run made within the budget. */
  readonly runs: number;
}

/** One cell: a bug under a strategy, over its seeds. */
export interface StrategyCell {
  /** The median of the seeds' run counts (the mean of the two middle ones for an even count). */
  readonly medianRuns: number;
  /** Seeds whose search caught the bug. */
  readonly killed: number;
  readonly seeds: number;
}

/** The whole table: a row per bug, a column per strategy, and per strategy its totals. */
export interface StrategyTable {
  readonly strategies: readonly string[];
  readonly bugs: readonly string[];
  /** `cells[bug][strategy]`. */
  readonly cells: Readonly<Record<string, Readonly<Record<string, StrategyCell>>>>;
  /** Per strategy: the sum of its cells' medians, and the bugs caught by at least half the seeds. */
  readonly totals: Readonly<Record<string, { readonly medianRuns: number; readonly bugsKilled: number }>>;
}

/** The median of `xs` (non-empty). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * The table of `searches`, bugs and strategies in the order they first appear.
 * @throws Error when a (bug, strategy) pair has no search (the table would have a hole).
 */
export function strategyTable(searches: readonly StrategySearch[]): StrategyTable {
  const strategies = [...new Set(searches.map((s) => s.strategy))];
  const bugs = [...new Set(searches.map((s) => s.id))];
  const cells: Record<string, Record<string, StrategyCell>> = {};
  const totals: Record<string, { medianRuns: number; bugsKilled: number }> = {};
  for (const strategy of strategies) totals[strategy] = { medianRuns: 0, bugsKilled: 0 };
  for (const id of bugs) {
    const row: Record<string, StrategyCell> = {};
    for (const strategy of strategies) {
      const mine = searches.filter((s) => s.id === id && s.strategy === strategy);
      if (mine.length === 0) throw new Error(`strategy table: no search of ${id} with ${strategy}`);
      const cell = { medianRuns: median(mine.map((s) => s.runs)), killed: mine.filter((s) => s.killed).length, seeds: mine.length };
      row[strategy] = cell;
      const total = totals[strategy] as { medianRuns: number; bugsKilled: number };
      total.medianRuns += cell.medianRuns;
      if (cell.killed * 2 >= cell.seeds) total.bugsKilled++;
    }
    cells[id] = row;
  }
  return { strategies, bugs, cells, totals };
}

/**
 * The table as Markdown: a row per bug with `median runs (killed/seeds)` per strategy, then the
 * totals row (`sum of medians`, and the bugs caught by at least half the seeds).
 */
export function formatStrategyTable(t: StrategyTable): string[] {
  const head = ['planted bug', ...t.strategies];
  const rows = t.bugs.map((id) => [id, ...t.strategies.map((s) => {
    const c = t.cells[id]?.[s] as StrategyCell;
    return `${formatRuns(c.medianRuns)} (${c.killed}/${c.seeds})`;
  })]);
  const total = ['total (sum of medians; bugs caught)', ...t.strategies.map((s) => {
    const x = t.totals[s] as { medianRuns: number; bugsKilled: number };
    return `${formatRuns(x.medianRuns)}; ${x.bugsKilled}/${t.bugs.length}`;
  })];
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line), line(total)];
}

function formatRuns(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
