import fc from 'fast-check';
import { expect, test } from 'vitest';
import { runSpecArbitrary } from '../arbitraries/runSpecArbitrary.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import type { Judge } from '../explore/explore.ts';
import { stateUnjudged } from '../oracles/stateJudgement.ts';
import { checkRuns } from './checkRuns.ts';

const arbitrary = runSpecArbitrary({ job: 'generated', mode: 'at-least-once', maxRecords: 20, maxParallelism: 2 });

test('a suite whose runs leave the keyed state unjudged too often fails, and says why', () => {
  const samples = fc.sample(arbitrary, { seed: 9, numRuns: 10 });
  let n = 0;
  // Every third run unjudged: 4 of 10 is above 5%.
  const judge: Judge = (result, expect) => {
    const verdict = defaultJudge(result, expect);
    return n++ % 3 === 0 ? { ...verdict, keyedState: stateUnjudged('hidden-search-inconclusive', 'test') } : verdict;
  };
  const run = (maxStateUnjudgedShare?: number) => checkRuns({
    arbitrary: fc.constantFrom(...samples), expect: 'at-least-once', marks: [], defaultRuns: 10, invariantsEvery: 0,
    judge, ...(maxStateUnjudgedShare === undefined ? {} : { maxStateUnjudgedShare }),
  });
  expect(() => run()).toThrow(/^the final keyed state went unjudged in \d+ of 10 run\(s\), more than 5% \(\d+ hidden-search-inconclusive/);
  n = 0;
  const summary = run(1);
  expect(summary.stateUnjudged['hidden-search-inconclusive']).toBe(4);
});
