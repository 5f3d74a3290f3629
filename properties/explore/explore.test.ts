import { expect, test } from 'vitest';
import { simulate } from '../../sim/run/simulate.ts';
import { STATE_JUDGED, stateUnjudged } from '../oracles/stateJudgement.ts';
import { defaultJudge } from './defaultJudge.ts';
import { explore, type Judge } from './explore.ts';

test('explore counts the runs whose keyed state was not judged, per mode and per reason', () => {
  let calls = 0;
  // Every other judged run says its state was not judged, for one of two reasons.
  const judge: Judge = (result, expect) => {
    const verdict = defaultJudge(result, expect);
    const n = calls++;
    if (n % 2 === 0) return { ...verdict, keyedState: STATE_JUDGED };
    const reason = n % 4 === 1 ? 'hidden-search-inconclusive' : 'duplicates-after-keyed-state';
    return { ...verdict, keyedState: stateUnjudged(reason, 'made up by the test') };
  };
  const report = explore({
    job: 'generated', modes: ['at-least-once'], runs: 8, seed: 3, maxRecords: 20,
    determinismEvery: 0, fanOutEvery: 0, simulate: (spec) => simulate(spec), judge, clock: () => 0,
    writeRepro: () => {
      throw new Error('no repro expected');
    },
    version: 'test',
  });
  const summary = report.modes['at-least-once'];
  expect(summary?.runs).toBe(8);
  expect(summary?.stateUnjudged).toBe(4);
  expect(summary?.stateUnjudgedReasons).toEqual({ 'hidden-search-inconclusive': 2, 'duplicates-after-keyed-state': 2 });
});
