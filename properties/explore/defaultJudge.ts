/**
 * The judge explore and replay use by default: every applicable oracle of judgeRun, plus the
 * number of surplus records (committed copies beyond the reference fold's count per record
 * identity, for explore's duplicatesAfterRestore figure) and of missing records (the fold's
 * records never committed, for missingRecords), counted against the reference fold, never
 * against the engine. Both are counted only for a FINISHED job that ran to its end, as the output
 * oracles judge only those (an unfinished job's output is incomplete by design, and liveness
 * judges it; a run an engine assertion ended lost its cleanup even if the job had finished).
 * Also whether the final keyed state was judged (for explore's stateUnjudged figure), whether
 * the operator state was (operatorStateJudged), and what the job's judging left out (sinks and
 * keyed operators, for outputUnjudged and statePartlyUnjudged), and the attribution of its aborts
 * and failovers (for unattributed).
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import { resolveJudging, sinkOutputs } from '../oracles/jobJudging.ts';
import { judgeRun } from '../oracles/judgeRun.ts';
import { judgedAtStop } from '../oracles/stopWithSavepoint.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import type { Expectation, Judgement } from './explore.ts';
import { surplusAndMissing, type RecordIdentity } from './surplusAndMissing.ts';

/** Judges `result` against `expect`. */
export function defaultJudge(result: RunResult, expect: Expectation): Judgement {
  const verdict = judgeRun(result, { expect });
  const { violations, keyedState, knownStuck, operatorState, outputUnjudged, stateUnjudgedOperators, attribution } = verdict;
  const judged = { keyedState, knownStuck, operatorState, outputUnjudged, stateUnjudgedOperators, attribution };
  if (result.jobStatus !== 'FINISHED' || result.engineAssertion !== undefined) {
    return { violations, duplicates: 0, missing: 0, ...judged };
  }
  // Oracle 3 held: every committed record paired with one of F's of its identity, none left on
  // either side, so there is nothing to count (most aligned runs; saves a pass over the output).
  const endToEndHeld = verdict.oracles.includes('end-to-end-exactly-once')
    && !verdict.violations.some((v) => v.property === 'end-to-end-exactly-once');
  if (endToEndHeld) return { violations, duplicates: 0, missing: 0, ...judged };
  // With a job's judging, only the sinks it judges count (an `off` sink's records are not F's).
  const graph = judgedAtStop(result).graph;
  const fold = sharedReferenceFold(graph);
  const groups = result.judging === undefined ? undefined
    : sinkOutputs(resolveJudging(graph, result.judging), fold, result.committed).filter((g) => !g.judgement.off);
  const counts = groups === undefined
    ? surplusAndMissing(fold.outputs, result.committed.map((c) => c.record as RecordIdentity))
    : surplusAndMissing(groups.flatMap((g) => g.expected), groups.flatMap((g) => g.actual));
  return { violations, duplicates: counts.surplus, missing: counts.missing, ...judged };
}
