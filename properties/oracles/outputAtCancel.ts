/**
 * The output oracle of a history that ended with a cancel (its last job run CANCELED: in this
 * model only a user's `cancel` or `rescale` action cancels a job). The rest of the input was
 * never read, and what was committed depends on which checkpoints' notifications arrived before
 * the cancel, so completeness cannot be judged; what can be is that nothing was committed that
 * F(all input) does not produce: no record identity beyond its multiplicity in F (exactly-once: a
 * duplicate is a surplus; at-least-once: duplicates are allowed, records from nowhere are not),
 * and no record with another value than F's (sequenced outputs, flights' per-airport numbers,
 * compared by identity only, as their values depend on the interleaving). The final state is not
 * judged. Independent of the engine: F is the plain fold of the input. With a job's judging
 * (jobJudging.ts) each sink is compared on its own by its judgement, and sinks judged `off` not
 * at all (the summary says which).
 */
import { recordIdentity } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { compareOutputs, type CommittedRecord } from './compareOutputs.ts';
import { detectSequenced } from './endToEndExactlyOnce.ts';
import { compareSinkOutputs, sinkOutputs, unjudgedSuffix } from './jobJudging.ts';
import type { ResolvedJudging } from './jobJudging.ts';
import { restoreRefused } from './restoreRefused.ts';

/**
 * True when the history ended with its last job run cancelled, or with a run submitted after a
 * cancel (a rescale via cancel) whose restore was refused (restoreRefused.ts).
 */
export function endedByCancel(result: RunResult): boolean {
  if (result.jobStatus === 'CANCELED') return true;
  const runs = result.jobRuns;
  return restoreRefused(result) !== undefined && runs[runs.length - 2]?.status === 'CANCELED';
}

/**
 * Judges the committed output of a cancelled history (see the file comment) for `oracle`, by
 * `judging` when given (absent: all sinks together, numbering detected by uid).
 * @returns at most one violation, naming the surplus (and mismatched) records.
 */
export function outputAtCancel(result: RunResult, oracle: 'at-least-once' | 'end-to-end-exactly-once',
  maxListed: number, judging?: ResolvedJudging): Violation[] {
  const fold = sharedReferenceFold(result.graph);
  const groups = judging === undefined ? undefined
    : sinkOutputs(judging, fold, result.committed).filter((g) => !g.judgement.off);
  const committed = groups === undefined ? result.committed.map((c) => c.record as CommittedRecord) : groups.flatMap((g) => g.actual);
  const expected = groups === undefined ? fold.outputs : groups.flatMap((g) => g.expected);
  const sequenced = detectSequenced(result.graph);
  const outputs = groups === undefined
    ? compareOutputs({ expected, actual: committed, maxListed, ...(sequenced === null ? {} : { project: sequenced.project }) })
    : compareSinkOutputs(result.graph, groups, maxListed, false).outputs;
  const left = unjudgedSuffix(judging);
  const exactly = oracle === 'end-to-end-exactly-once';
  // At-least-once allows duplicates of records F produces, so only records F never produces count.
  const expectedIds = new Set(expected.map((r) => recordIdentity(r)));
  const surplus = exactly ? outputs.surplus : outputs.surplus.filter((s) => !expectedIds.has(s.id));
  const surplusCount = exactly ? outputs.surplusCount : surplus.length;
  if (surplusCount === 0 && outputs.valueMismatchCount === 0) return [];
  return [{
    property: oracle,
    summary: `after the cancel: ${surplusCount} committed record(s) F(all input) does not produce${exactly ? ' (or duplicates)' : ''}`
      + `${outputs.valueMismatchCount > 0 ? `, ${outputs.valueMismatchCount} with another value` : ''}`
      + `${left === '' ? '' : `; ${left}`}`,
    details: {
      kind: 'cancelled', committedCount: committed.length, surplus, surplusCount,
      valueMismatches: outputs.valueMismatches, valueMismatchCount: outputs.valueMismatchCount,
    },
    timeMs: result.jobEndMs ?? result.outcome.timeMs,
  }];
}
