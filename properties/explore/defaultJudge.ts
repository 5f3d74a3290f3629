/**
 * The judge explore and replay use by default: every applicable oracle of judgeRun, plus the
 * number of records committed more than once (for explore's duplicatesAfterRestore figure),
 * counted against the reference fold, never against the engine, and whether the final keyed
 * state was judged (for explore's stateUnjudged figure).
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import { judgeRun } from '../oracles/judgeRun.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import type { Expectation, Judgement } from './explore.ts';

/** Judges `result` against `expect`. */
export function defaultJudge(result: RunResult, expect: Expectation): Judgement {
  const verdict = judgeRun(result, { expect });
  let duplicates = 0;
  if (result.jobStatus === 'FINISHED') {
    const expected = sharedReferenceFold(result.graph).outputs.length;
    duplicates = Math.max(0, result.committed.length - expected);
  }
  return { violations: verdict.violations, duplicates, keyedState: verdict.keyedState };
}
