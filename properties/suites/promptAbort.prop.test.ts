/**
 * The prompt-abort oracle gives no false alarm on the correct engine, and is not vacuous: explore's
 * runs of generated jobs and of flights, in aligned and at-least-once mode, each with one more
 * fault drawn from a few that make the coordinator learn of failures (declines, lost trigger RPCs,
 * failing metadata writes, a global failure while a checkpoint is pending), are judged with the
 * default judge (every oracle, prompt-abort included) and none may violate; across each suite's
 * runs every rule of the oracle must have judged failures of pending checkpoints. The other
 * suites judge their runs with the same default judge, so they are further no-false-alarm runs.
 * `explore --runs 2000` measures it at scale (docs/oracles.md).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Fault, RunMode, RunSpec } from '../../sim/run/RunSpec.ts';
import { runSpecArbitrary, type BuiltInJob } from '../arbitraries/runSpecArbitrary.ts';
import { withSourcePacing } from '../arbitraries/sourcePacing.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';
import { PROMPT_ABORT_RULES, promptAbortJudgement, type PromptAbortRule } from '../oracles/promptAbort.ts';
import { checkRuns } from './checkRuns.ts';

/** One of these is added to each run's drawn faults (the first: none). */
const FAILURES: readonly (readonly Fault[])[] = [
  [],
  [{ type: 'async-snapshot-failure', probability: 0.5 }],
  [{ type: 'message', action: 'lose', method: 'triggerCheckpoint', checkpoint: 2 }],
  [{ type: 'store-failure', probability: 0.3 }],
  [{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'triggered' } } }],
];

function arbitrary(job: BuiltInJob, mode: RunMode, failures: readonly (readonly Fault[])[]): fc.Arbitrary<RunSpec> {
  return fc.tuple(runSpecArbitrary({ job, mode, maxRecords: 300, maxParallelism: 3 }), fc.constantFrom(...failures))
    .map(([spec, more]) => withSourcePacing({ ...spec, faults: [...spec.faults, ...more] }));
}

/**
 * Runs `arbitrary` through checkRuns with the default judge (each run against its own mode's
 * promise); returns how many failures each prompt-abort rule judged.
 */
function judgedPerRule(arbitrary: fc.Arbitrary<RunSpec>, defaultRuns: number): Record<PromptAbortRule, number> {
  const judged: Record<PromptAbortRule, number> = { 'decline': 0, 'trigger-failure': 0, 'finalize-failure': 0, 'task-failure': 0 };
  checkRuns({
    arbitrary,
    expect: 'exactly-once',
    marks: ['checkpoint-declined'],
    defaultRuns,
    invariantsEvery: 0,
    // Failing stores and lost triggers leave more runs without a final state to judge.
    maxStateUnjudgedShare: 0.25,
    judge: (result) => {
      const j = promptAbortJudgement(result);
      for (const r of PROMPT_ABORT_RULES) judged[r] += j.judged[r];
      return defaultJudge(result, expectationOf(result.spec.checkpoint.mode));
    },
  });
  return judged;
}

for (const job of ['generated', 'flights'] as const) {
  for (const mode of ['aligned', 'at-least-once'] as const) {
    test(`prompt abort: no false alarm on ${job} in ${mode} mode; declines, trigger and task failures judged`, () => {
      const judged = judgedPerRule(arbitrary(job, mode, FAILURES), 40);
      for (const r of ['decline', 'trigger-failure', 'task-failure'] as const) {
        expect(judged[r], `rule ${r} judged no failure`).toBeGreaterThan(0);
      }
    });
  }

  // A failed metadata write or store add needs a fully acknowledged checkpoint first: rarer, so
  // these runs have a store whose writes report unknown outcomes (about one run in ten reaches one).
  test(`prompt abort: no false alarm on ${job} in both modes with failing completions; finalize failures judged`, () => {
    const unknown: readonly Fault[] = [{ type: 'store-unknown-outcome', probability: 0.1 }];
    const judged = judgedPerRule(fc.oneof(arbitrary(job, 'aligned', [unknown]), arbitrary(job, 'at-least-once', [unknown])), 40);
    expect(judged['finalize-failure'], 'rule finalize-failure judged no failure').toBeGreaterThan(0);
  });
}
