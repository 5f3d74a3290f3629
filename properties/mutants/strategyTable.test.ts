import { describe, expect, test } from 'vitest';
import { formatStrategyTable, median, strategyTable, type StrategySearch } from './strategyTable.ts';

const s = (id: string, strategy: string, seed: number, killed: boolean, runs: number): StrategySearch => ({ id, strategy, seed, killed, runs });

describe('strategyTable', () => {
  test('median of odd and even counts', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 10])).toBe(3.5);
  });

  test('a cell is the median over seeds, a miss counts its budget runs, totals sum the medians', () => {
    const t = strategyTable([
      s('bug-a', 'uniform', 1, true, 10), s('bug-a', 'uniform', 2, true, 30), s('bug-a', 'uniform', 3, false, 900),
      s('bug-a', 'mixed', 1, true, 4), s('bug-a', 'mixed', 2, true, 6), s('bug-a', 'mixed', 3, true, 2),
      s('bug-b', 'uniform', 1, false, 700), s('bug-b', 'uniform', 2, false, 650), s('bug-b', 'uniform', 3, true, 5),
      s('bug-b', 'mixed', 1, true, 50), s('bug-b', 'mixed', 2, true, 70), s('bug-b', 'mixed', 3, false, 600),
    ]);
    expect(t.strategies).toEqual(['uniform', 'mixed']);
    expect(t.cells['bug-a']?.['uniform']).toEqual({ medianRuns: 30, killed: 2, seeds: 3 });
    expect(t.cells['bug-b']?.['uniform']).toEqual({ medianRuns: 650, killed: 1, seeds: 3 });
    expect(t.totals['uniform']).toEqual({ medianRuns: 680, bugsKilled: 1 });
    expect(t.totals['mixed']).toEqual({ medianRuns: 74, bugsKilled: 2 });
    const md = formatStrategyTable(t);
    expect(md[0]).toBe('| planted bug | uniform | mixed |');
    expect(md[2]).toBe('| bug-a | 30 (2/3) | 4 (3/3) |');
    expect(md.at(-1)).toBe('| total (sum of medians; bugs caught) | 680; 1/2 | 74; 2/2 |');
  });

  test('a (bug, strategy) pair without a search is an error, not a hole', () => {
    expect(() => strategyTable([s('bug-a', 'uniform', 1, true, 1), s('bug-b', 'mixed', 1, true, 1)]))
      .toThrow('strategy table: no search of bug-a with mixed');
  });
});
