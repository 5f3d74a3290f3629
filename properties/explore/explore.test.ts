/**
 * explore's per-mode figures and what it does with a counterexample, with the real simulator of
 * small generated jobs and judges written for the test (explore takes its judge as a parameter).
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { defaultJudge } from './defaultJudge.ts';
import { explore, type ExploreOptions, type Judge } from './explore.ts';

/** Options of a small search: generated jobs of at most 10 records, no sampled extra runs. */
function small(judge: Judge, over: Partial<ExploreOptions> = {}): ExploreOptions {
  return {
    job: 'generated', modes: ['aligned'], runs: 4, seed: 7, maxRecords: 10,
    determinismEvery: 0, fanOutEvery: 0,
    simulate: (spec) => simulate(spec), judge, clock: () => 0, version: 'test',
    writeRepro: () => {
      throw new Error('no repro expected');
    },
    ...over,
  };
}

describe('explore per-mode figures', () => {
  test('missingRecords sums what the judge counted missing in each run', () => {
    const judge: Judge = (result: RunResult, expect) => ({ ...defaultJudge(result, expect), missing: 2 });
    const report = explore(small(judge));
    expect(report.modes['aligned']?.runs).toBe(4);
    expect(report.modes['aligned']?.missingRecords).toBe(8);
    expect(report.counterexamples).toEqual([]);
  });
});
