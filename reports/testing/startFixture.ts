/**
 * startFixture: a StartPageInput for the start page tests with a real counterexample: the
 * explanation fixture (properties/explain/fixtures/lostTriggerThenCrash.ts: an at-least-once run
 * whose restore from checkpoint 2 duplicates records) simulated and judged under exactly-once,
 * explained, and drawn as `replay --mermaid` would; a summary like explore's JSON; and the
 * compare fixture. The summary's counts are written by hand (a real explore would take a minute).
 */
import { explainRun } from '../../properties/explain/explainRun.ts';
import lostTriggerThenCrash from '../../properties/explain/fixtures/lostTriggerThenCrash.ts';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import type { ModeSummary } from '../../properties/explore/explore.ts';
import { compileScenario } from '../../scenarios/compileScenario.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { startCounterexample, type StartCounterexample, type StartPageInput } from '../startPage.ts';
import { compareFixture } from './compareFixture.ts';

const summaryOf = (m: Partial<ModeSummary>): ModeSummary => ({
  runs: 100, violations: 0, checkpointsCompleted: 1480, restores: 61, duplicatesAfterRestore: 0, missingRecords: 0, unfiredFaults: 37, unfiredActions: 0, knownStuck: 0,
  stateUnjudged: 0, stateUnjudgedReasons: {}, marks: { 'restore-from-checkpoint': 212, 'rpc-lost': 40 }, ...m,
});

let cached: StartCounterexample | undefined;

/** The fixture's counterexample (simulated once per test file). */
export function fixtureCounterexample(): StartCounterexample {
  if (cached !== undefined) return cached;
  const run = simulate(compileScenario(lostTriggerThenCrash).spec);
  const violation = defaultJudge(run, 'exactly-once').violations[0];
  if (violation === undefined) throw new Error('the lostTriggerThenCrash fixture no longer violates exactly-once');
  cached = startCounterexample({
    mode: 'at-least-once', property: violation.property, summary: violation.summary,
    replay: 'npx checkpoint-sim replay reports/out/repro-flights-at-least-once-1-expect-exactly-once.json',
    explanation: explainRun(run, violation), violation,
  }, run);
  return cached;
}

/** Explore's summary with one counterexample in at-least-once mode, and the comparison. */
export function startFixture(): StartPageInput {
  return {
    summary: {
      job: 'flights', seed: 1, runsPerMode: 100, mutants: [],
      modes: {
        aligned: summaryOf({}),
        'at-least-once': summaryOf({ runs: 37, violations: 1, checkpointsCompleted: 548, restores: 20, duplicatesAfterRestore: 14, stateUnjudged: 2,
          stateUnjudgedReasons: { 'duplicates-after-keyed-state': 2 } }),
      },
      fanOut: { runs: 13, violations: 0, unfired: 2, rescaleRuns: 12, rescaleViolations: 0, rescaleUnfired: 1 },
      timing: { wallMs: 41_250 },
    },
    counterexamples: [fixtureCounterexample()],
    compare: compareFixture(),
  };
}
