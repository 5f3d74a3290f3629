/**
 * Oracle 4 of ORACLES.md, at-least-once with attributed duplicates. The committed output and the
 * final state must equal `F(all input + D)`, where `D` is the multiset of input records processed
 * more than once, and every copy in `D` must be attributed: a duplicate of input record `(s, o)`
 * is explained by a restore (a `checkpoint.restored` trace event) that used a checkpoint `c` with
 * `p_s(c) <= o` (no checkpoint: every split at 0), provided a copy of the record was committed by
 * a transaction begun before that restore (so by an attempt that existed before it). Each restore
 * explains at most one extra copy of a record.
 *
 * `D` is read from the committed output: the extra copies of `(s, o)` are the surplus, per output
 * identity `(s, o, tag)`, of committed copies above F's count. A record that fans out before a
 * network edge can be duplicated unevenly (each output crosses its own channel, and in
 * at-least-once mode each channel's records can fall on either side of a downstream snapshot), so
 * a copy in D may cover only some of the record's outputs; F(all + D) folds exactly those
 * branches again. Missing records and surplus that F(all + D) does not produce are violations.
 *
 * The state's D is the output's only when no non-forward edge follows a keyed operator: a task
 * with several input channels after the keyed state (a sink behind a rebalance, a second keyed
 * stage) takes records behind a barrier into its snapshot while the keyed state does not, so
 * after a restore they are committed again but counted in the state only once (or the other
 * way round). Such at-least-once runs trace what each keyed stage read between its snapshots
 * (sim/run/keyedInputEvidence.ts), and the state is judged from that evidence instead, per keyed
 * operator against `F(all input + D_K)` with `D_K` the copies its chain of restores read again
 * (stateFromEvidence.ts). Without the evidence such a state is not judged.
 *
 * Otherwise a record that F gives no output (filtered, or a keyed function that emits nothing
 * for it) leaves no copy in the output when it is processed again; its duplicate shows only in
 * the state. So when output or state differ from `F(all input + D)`, the oracle also searches
 * sets of such hidden copies that explain the run (hiddenCopies.ts). A differing state key that
 * no hidden copy changes is a violation; when the search ran out before trying every set, the
 * state is not judged (a duplicate the run never shows cannot be counted exactly); the output
 * still is. Whether the state was judged, and if not why, comes back with the violations
 * ({@link judgeAtLeastOnce}, stateJudgement.ts): an unjudged state is never a silent pass.
 *
 * Without checkpointing (mode none) every failover restarts its tasks from scratch with empty
 * state, so the final state must be F(all input) itself, whatever the graph; only the output
 * carries D.
 *
 * With a job's judging (jobJudging.ts), D and the comparison read only the sinks it judges, each
 * by its own judgement against F's records of it, and keyed operators whose state is `off` are
 * left out of every state comparison; all of them off, the state is not judged (`judging-off`).
 *
 * Interleaving-dependent numbers (flights' per-airport `seq`) must run 1..n+d per key where the
 * output's D is the state's; their order by offset is not judged, since a replay numbers old
 * offsets after newer ones.
 */
import { recordIdentity } from '../../engine/index.ts';
import type { DecodedCheckpoint } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import { FLIGHTS_UIDS } from '../../sim/workloads/flights.ts';
import type { FlightOutput } from '../../sim/workloads/flights.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { compareKeyedState } from './compareKeyedState.ts';
import type { StateComparison, StateDiff } from './compareKeyedState.ts';
import { compareOutputs } from './compareOutputs.ts';
import type { CommittedRecord } from './compareOutputs.ts';
import { detectSequenced } from './endToEndExactlyOnce.ts';
import { checkFlights } from './flightsInvariants.ts';
import type { FlightsReport } from './flightsInvariants.ts';
import { foldWithDuplicates } from './foldWithDuplicates.ts';
import type { DuplicatedInput } from './foldWithDuplicates.ts';
import type { StreamGraph, StreamRecord } from '../../engine/index.ts';
import type { FoldResult } from '../referenceFold.ts';
import { checkSequences } from './sequenceInvariants.ts';
import type { SequenceReport } from './sequenceInvariants.ts';
import { explainHidden, HIDDEN_SEARCH_FOLDS, hiddenCandidates } from './hiddenCopies.ts';
import { splitPositions } from './splitPositions.ts';
import { wholeGraphOf } from './stopWithSavepoint.ts';
import { transactionBegins, txnKey } from './transactionBegins.ts';
import { judgeStateFromEvidence } from './stateFromEvidence.ts';
import type { EvidenceStateVerdict } from './stateFromEvidence.ts';
import { duplicatesAfterKeyedState } from '../../sim/run/keyedInputEvidence.ts';
import { STATE_JUDGED, stateUnjudged } from './stateJudgement.ts';
import {
  allStateOff, compareSinkOutputs, sinkOutputs, unjudgedSuffix, withoutOperators,
} from './jobJudging.ts';
import type { ResolvedJudging, SinkOutput } from './jobJudging.ts';
import type { StateJudgement } from './stateJudgement.ts';

export { duplicatesAfterKeyedState } from '../../sim/run/keyedInputEvidence.ts';

/** Options of {@link atLeastOnce}. */
export interface AtLeastOnceOptions {
  /** Longest list in a violation's details; default 20 (counts are exact). */
  readonly maxListed?: number;
  /** The job's judging, resolved; absent: all sinks together, numbering detected by uid. */
  readonly judging?: ResolvedJudging;
}

/** A committed copy with the virtual time its transaction began (undefined: not in the trace). */
interface Copy {
  readonly record: CommittedRecord;
  readonly beganUs: number | undefined;
}

/** A restore as the trace shows it. */
interface Restore {
  readonly timeUs: number;
  readonly checkpointId: number;
}

/** A duplicate no restore explains. */
export interface UnexplainedDuplicate {
  readonly split: number;
  readonly offset: number;
  readonly copies: number;
  readonly explainedBy: readonly number[];
  readonly attempts: readonly string[];
}

/** What {@link judgeAtLeastOnce} says of a run. */
export interface AtLeastOnceVerdict {
  /** At most two: unattributed duplicates, and output or state that differs from F(all input + D). */
  readonly violations: Violation[];
  /** Whether the final keyed state was judged, and if not, why. */
  readonly state: StateJudgement;
}

/** The violations of {@link judgeAtLeastOnce}. */
export function atLeastOnce(result: RunResult, options: AtLeastOnceOptions = {}): Violation[] {
  return judgeAtLeastOnce(result, options).violations;
}

/** The duplicates of a run and how the restores explain them (what the oracle attributes). */
export interface DuplicateAttribution {
  /** D: per input record, the extra copies committed (surplus over F), by split and offset. */
  readonly duplicates: readonly DuplicatedInput[];
  /** The duplicates no restore explains (each restore explains at most one copy of a record). */
  readonly unexplained: readonly UnexplainedDuplicate[];
  /** The run's restores, in order: time (ms) and checkpoint id (-1: none). */
  readonly restores: readonly { readonly timeMs: number; readonly checkpointId: number }[];
}

/**
 * The duplicated input records of a run's committed output and their attribution to restores,
 * computed as {@link judgeAtLeastOnce} computes them (for scenario expectations that count
 * duplicates: scenarios/judgeExpectation.ts).
 */
export function attributeDuplicates(result: RunResult): DuplicateAttribution {
  const began = transactionBegins(result.trace);
  const committed: Copy[] = result.committed.map((c) => ({
    record: c.record as CommittedRecord,
    beganUs: began.get(txnKey(c.txn.sink, c.txn.subtask, c.txn.attempt, c.txn.epoch)),
  }));
  const duplicates = duplicatedInputs(sharedReferenceFold(result.graph).outputs, committed.map((c) => c.record));
  const restores = restoresOf(result);
  const positions = restorePositions(restores, result.checkpoints.completed, result.graph);
  return {
    duplicates,
    unexplained: attribute(duplicates, committed, restores, positions),
    restores: restores.map((r) => ({ timeMs: r.timeUs / 1000, checkpointId: r.checkpointId })),
  };
}

/**
 * Judges `result` as an at-least-once run: the violations, and whether the final keyed state was
 * judged (see the file comment for when it is not).
 */
export function judgeAtLeastOnce(result: RunResult, options: AtLeastOnceOptions = {}): AtLeastOnceVerdict {
  const maxListed = options.maxListed ?? 20;
  const judging = options.judging;
  const graph = result.graph;
  const endMs = result.jobEndMs ?? result.outcome.timeMs;
  const began = transactionBegins(result.trace);
  // With a judging, only the judged sinks' records count (an `off` sink's are no evidence of D).
  const offStores = new Set(judging?.sinks.filter((g) => g.off).map((g) => g.store) ?? []);
  const stored = offStores.size === 0 ? result.committed : result.committed.filter((c) => !offStores.has(c.txn.sink));
  const committed: Copy[] = stored.map((c) => ({
    record: c.record as CommittedRecord,
    beganUs: began.get(txnKey(c.txn.sink, c.txn.subtask, c.txn.attempt, c.txn.epoch)),
  }));
  const groupsOf = (f: FoldResult): SinkOutput[] | undefined => (judging === undefined ? undefined : sinkOutputs(judging, f, stored));
  const judgedExpected = (f: FoldResult): readonly StreamRecord[] =>
    groupsOf(f)?.filter((g) => !g.judgement.off).flatMap((g) => g.expected) ?? f.outputs;
  const duplicates = duplicatedInputs(judgedExpected(sharedReferenceFold(graph)), committed.map((c) => c.record));
  const restores = restoresOf(result);
  const positions = restorePositions(restores, result.checkpoints.completed, graph);
  const violations: Violation[] = [];
  const unexplained = attribute(duplicates, committed, restores, positions);
  if (unexplained.length > 0) violations.push(unattributedViolation(unexplained, restores, maxListed, endMs));
  // Folded with D: the records read ahead of a stop's cut that a restore explains (aheadOfCut).
  const ahead = aheadOfCut(graph, committed, restores, positions);
  const folded = ahead.length === 0 ? duplicates : [...duplicates, ...ahead];
  const sequenced = detectSequenced(graph);
  const records = committed.map((c) => c.record);
  const compareTo = (f: FoldResult): OutputComparison => {
    const groups = groupsOf(f);
    return groups === undefined
      ? compareOutputs({ expected: f.outputs, actual: records, maxListed, ...(sequenced === null ? {} : { project: sequenced.project }) })
      : compareSinkOutputs(graph, groups, maxListed, false).outputs;
  };
  // Without checkpointing (mode none) a failover restarts its tasks from scratch with empty
  // state: the final state is F(all input) with no copies, whatever the graph, and a replayed
  // record is numbered from the start again, so per-key sequences do not run 1..n+d. Only the
  // output carries D.
  const fromScratch = result.spec.checkpoint.mode === 'none';
  const allOff = allStateOff(judging);
  const stateOff = judging?.stateOff ?? new Set<string>();
  const evidence = fromScratch || allOff ? undefined
    : judgeStateFromEvidence(result, graph, checkpointPositions(result.checkpoints.completed, graph), maxListed, stateOff);
  const { fold, outputs, state, hidden, judgement } = evidence === undefined
    ? compareWithoutEvidence({ result, duplicates: folded, positions, fromScratch, compareTo, maxListed, stateOff, allOff })
    : compareWithEvidence(graph, folded, evidence, compareTo);
  const { sequence, flights, flightsProblems } = outputInvariants(result, fold, records, maxListed, groupsOf);
  const left = unjudgedSuffix(judging);
  const counts = {
    missingCount: outputs.missingCount,
    surplusCount: outputs.surplusCount,
    valueMismatchCount: outputs.valueMismatchCount,
    stateDiffCount: state.diffCount,
    stateMissingCount: evidence?.missingCount ?? 0,
    stateUnexplainedCount: evidence?.unexplainedCount ?? 0,
    badSequenceKeyCount: sequence?.problemCount ?? 0,
    flightsProblemCount: flightsProblems,
  };
  const problems = Object.entries(counts).filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k.replace(/Count$/, '')}`);
  if (problems.length > 0) {
    violations.push({
      property: 'at-least-once',
      summary: `committed output or final state differ from F(all input + D): ${problems.join(', ')}${replayHint(counts)}${left === '' ? '' : `; ${left}`}`,
      details: {
        duplicatedInputs: duplicates.length,
        ...(ahead.length === 0 ? {} : { readAheadOfStop: ahead.length }),
        hiddenCandidates: hidden,
        expectedCount: fold.outputs.length,
        committedCount: records.length,
        missing: outputs.missing,
        surplus: outputs.surplus,
        valueMismatches: outputs.valueMismatches,
        stateDiffs: state.diffs,
        ...(evidence === undefined ? {} : {
          keyedInputs: {
            duplicatedInputs: evidence.duplicatedInputs, missing: evidence.missing, unexplained: evidence.unexplained,
          },
        }),
        ...counts,
        ...(sequence === undefined ? {} : { sequence }),
        ...(flights === undefined ? {} : { flights }),
        ...(judging === undefined || judging.outputUnjudged.length === 0 ? {} : { outputUnjudged: judging.outputUnjudged }),
        ...(stateOff.size === 0 ? {} : { stateUnjudged: judging?.keyed.filter((k) => stateOff.has(k)) }),
      },
      timeMs: endMs,
    });
  }
  return { violations, state: judgement };
}

/** The violation of duplicates no restore explains. */
function unattributedViolation(
  unexplained: readonly UnexplainedDuplicate[], restores: readonly Restore[], maxListed: number, timeMs: number,
): Violation {
  const total = unexplained.reduce((n, u) => n + u.copies - u.explainedBy.length, 0);
  return {
    property: 'at-least-once',
    summary: `${total} duplicate(s) of ${unexplained.length} input record(s) explained by no restore`,
    details: { unexplained: unexplained.slice(0, maxListed), unexplainedCount: unexplained.length, restores },
    timeMs,
  };
}

/**
 * The per-key sequences (flights' `seq`) and flights' statistics of the committed output against
 * `fold`. They follow the state's count, which the output's D gives only when no non-forward edge
 * follows the keyed state, and not at all without checkpoints (numbering restarts from 1): then
 * they are not judged.
 */
function outputInvariants(
  result: RunResult, fold: FoldResult, records: readonly CommittedRecord[], maxListed: number,
  groupsOf: (f: FoldResult) => SinkOutput[] | undefined,
): { sequence: SequenceReport | undefined; flights: FlightsReport | undefined; flightsProblems: number } {
  const graph = result.graph;
  const sequenced = detectSequenced(graph);
  const judged = result.spec.checkpoint.mode !== 'none' && !duplicatesAfterKeyedState(graph);
  const groups = judged ? groupsOf(fold) : undefined;
  const sequence = !judged ? undefined
    : groups !== undefined ? compareSinkOutputs(graph, groups, maxListed).sequence
      : sequenced === null ? undefined : checkSequences(sequenced, graph, fold.outputs, records, maxListed);
  const flightsSinkOff = groups?.some((g) => g.judgement.off && g.judgement.sinks.includes(FLIGHTS_UIDS.sink)) ?? false;
  const flights = judged && !flightsSinkOff && graph.nodes.some((n) => n.uid === FLIGHTS_UIDS.stats)
    ? checkFlights(fold.outputs.map((r) => (r.value as FlightOutput).flightId), fold.state, records, maxListed)
    : undefined;
  const flightsProblems = flights === undefined ? 0
    : flights.missingFlightIds.length + flights.unexpectedFlightIds.length + flights.airportStatsDiffs.length;
  return { sequence, flights, flightsProblems };
}

type OutputComparison = ReturnType<typeof compareOutputs>;

/** Output and state compared with F(all input + D), and what that says of the state. */
interface Comparison {
  /** The fold compared with (F(all + D), plus hidden copies if they explained the run). */
  readonly fold: FoldResult;
  readonly outputs: OutputComparison;
  readonly state: { readonly diffs: readonly StateDiff[]; readonly diffCount: number };
  /** Hidden candidate copies that change something (0 when not searched). */
  readonly hidden: number;
  readonly judgement: StateJudgement;
}

/**
 * Output and state against F(all input + D) with D read from the output (the trace has no
 * evidence of what the keyed stages read): the state is judged only where the output's D is the
 * state's (mode none: F(all input) itself), searching hidden copies when they differ.
 */
function compareWithoutEvidence(c: {
  readonly result: RunResult;
  readonly duplicates: readonly DuplicatedInput[];
  readonly positions: readonly (ReadonlyMap<number, number> | undefined)[];
  readonly fromScratch: boolean;
  readonly compareTo: (f: FoldResult) => OutputComparison;
  readonly maxListed: number;
  /** Keyed operators whose state the job's judging leaves out. */
  readonly stateOff: ReadonlySet<string>;
  /** Every keyed operator's state is off: nothing to judge. */
  readonly allOff: boolean;
}): Comparison {
  const { result, duplicates, fromScratch, compareTo, stateOff } = c;
  const graph = result.graph;
  // With checkpoints, a task with several input channels after the keyed state (e.g. a sink
  // behind a rebalance) takes records behind a barrier into its snapshot while the keyed state
  // does not: after a restore those records are produced and committed again but counted in the
  // state only once. Then the output's D and the state's D differ, and only the output
  // (completeness and attribution) can be judged without the trace's evidence.
  const stateJudged = !c.allOff && (fromScratch || !duplicatesAfterKeyedState(graph));
  let judgement: StateJudgement = stateJudged ? STATE_JUDGED
    : c.allOff ? stateUnjudged('judging-off', 'the job\'s judging says state off for every keyed operator')
      : stateUnjudged('duplicates-after-keyed-state',
        'a non-forward edge after a keyed operator lets the state hold other duplicates than the output, '
        + 'and the trace holds no evidence of what the keyed stages read');
  const finalState = withoutOperators(result.finalState, stateOff);
  const compareStateTo = (f: FoldResult): StateComparison => (stateJudged
    ? compareKeyedState(withoutOperators(fromScratch ? sharedReferenceFold(graph).state : f.state, stateOff), finalState, c.maxListed)
    : { diffs: [], diffCount: 0 });
  let fold = duplicates.length === 0 ? sharedReferenceFold(graph) : foldWithDuplicates(graph, duplicates);
  let outputs = compareTo(fold);
  let state = compareStateTo(fold);
  let hidden = 0;
  if (stateJudged && !fromScratch
    && outputs.missingCount + outputs.surplusCount + outputs.valueMismatchCount + state.diffCount > 0) {
    const candidates = hiddenCandidates(graph, duplicates, c.positions);
    const search = explainHidden(graph, duplicates, fold, candidates, finalState, stateOff, (f) => {
      const o = compareTo(f);
      return o.missingCount + o.surplusCount + o.valueMismatchCount === 0 && compareStateTo(f).diffCount === 0;
    });
    hidden = search.relevant;
    if (search.fold !== undefined) {
      fold = search.fold;
      outputs = compareTo(fold);
      state = compareStateTo(fold);
    } else if (search.inconclusive) {
      state = { diffs: [], diffCount: 0 };
      judgement = stateUnjudged('hidden-search-inconclusive', `${search.relevant} candidate cop(ies) of records `
        + `with no output could explain the state; not every set was tried (${HIDDEN_SEARCH_FOLDS} folds)`);
    }
  }
  return { fold, outputs, state, hidden, judgement };
}

/**
 * The output against F(all input + D) with D read from the output, and the state as the
 * trace's evidence judged it (stateFromEvidence.ts): no hidden copies to search, the evidence
 * names them.
 */
function compareWithEvidence(
  graph: StreamGraph,
  duplicates: readonly DuplicatedInput[],
  evidence: EvidenceStateVerdict,
  compareTo: (f: FoldResult) => OutputComparison,
): Comparison {
  const fold = duplicates.length === 0 ? sharedReferenceFold(graph) : foldWithDuplicates(graph, duplicates);
  return {
    fold, outputs: compareTo(fold), state: { diffs: evidence.diffs, diffCount: evidence.diffCount },
    hidden: 0, judgement: evidence.judgement,
  };
}

/** Checkpoint id -> its split positions, for the completed checkpoints (each decoded once). */
function checkpointPositions(
  checkpoints: readonly DecodedCheckpoint[],
  graph: StreamGraph,
): (checkpointId: number) => ReadonlyMap<number, number> | undefined {
  const byId = new Map(checkpoints.map((c) => [c.checkpointId, c] as const));
  const memo = new Map<number, ReadonlyMap<number, number>>();
  return (id) => {
    const c = byId.get(id);
    if (c === undefined) return undefined;
    let p = memo.get(id);
    if (p === undefined) {
      p = splitPositions(c, graph).positions;
      memo.set(id, p);
    }
    return p;
  };
}

/**
 * D: per input record, the surplus of committed copies over F's count of each of its outputs.
 * A record whose outputs are all duplicated equally is a whole copy; otherwise the copy is
 * partial and carries the surplus per output tag (see foldWithDuplicates).
 */
export function duplicatedInputs(
  expected: readonly { split: number; offset: number; tag: string }[],
  committed: readonly CommittedRecord[],
  /** The copies F already accounts for: F's count of each output (default), or none (aheadOfCut). */
  base: 'fold' | 'none' = 'fold',
): DuplicatedInput[] {
  const count = new Map<string, number>();
  /** Per input record, the tags F gives its outputs. */
  const outputsOf = new Map<string, Set<string>>();
  for (const r of expected) {
    count.set(recordIdentity(r), (count.get(recordIdentity(r)) ?? 0) + 1);
    const key = `${r.split}:${r.offset}`;
    const tags = outputsOf.get(key) ?? new Set<string>();
    tags.add(r.tag);
    outputsOf.set(key, tags);
  }
  const seen = new Map<string, { split: number; offset: number; tag: string; n: number }>();
  for (const r of committed) {
    const id = recordIdentity(r);
    const entry = seen.get(id) ?? { split: r.split, offset: r.offset, tag: r.tag, n: 0 };
    entry.n++;
    seen.set(id, entry);
  }
  const surplus = new Map<string, { split: number; offset: number; tags: Map<string, number> }>();
  for (const [id, e] of seen) {
    const perCopy = count.get(id) ?? 0;
    const accounted = base === 'fold' ? perCopy : 0;
    if (perCopy === 0 || e.n <= accounted) continue;
    // One replay of the record produces the identity `perCopy` times. Tags are collision-free on
    // one path through the job (outputTag.ts), but a stream that feeds several operators gives
    // every branch the record's identity (two sinks, or two branches into one sink): then
    // perCopy > 1, and a surplus of s takes ceil(s / perCopy) extra copies to explain.
    const copies = Math.ceil((e.n - accounted) / perCopy);
    const key = `${e.split}:${e.offset}`;
    const entry = surplus.get(key) ?? { split: e.split, offset: e.offset, tags: new Map<string, number>() };
    entry.tags.set(e.tag, copies);
    surplus.set(key, entry);
  }
  const out: DuplicatedInput[] = [];
  for (const [key, e] of surplus) {
    const copies = Math.max(...e.tags.values());
    const all = outputsOf.get(key) ?? new Set<string>();
    const whole = [...all].every((t) => e.tags.get(t) === copies);
    out.push(whole ? { split: e.split, offset: e.offset, copies } : { split: e.split, offset: e.offset, copies, tags: e.tags });
  }
  return out.sort((a, b) => a.split - b.split || a.offset - b.offset);
}

/**
 * The records past a stop's cut that an at-least-once history committed legitimately: a record
 * an earlier lineage read ahead of the cut (in at-least-once mode a snapshot's side effects take
 * records behind a barrier on another channel), committed by a transaction begun before a restore
 * that rewound its split to at or before it, so the stopped job never read it again and a job
 * resumed from the savepoint will: each committed copy is one a restore explains, as for a
 * duplicate. Returned as copies to fold in addition to the cut input (foldWithDuplicates looks
 * them up in the whole job); an unexplained one is left out and shows as surplus. Empty unless
 * `graph` was cut at a stop's savepoint.
 */
function aheadOfCut(
  graph: StreamGraph, committed: readonly Copy[], restores: readonly Restore[],
  positions: readonly (ReadonlyMap<number, number> | undefined)[],
): DuplicatedInput[] {
  const whole = wholeGraphOf(graph);
  if (whole === graph) return [];
  const cutAt = new Map<number, number>();
  for (const node of graph.nodes) {
    if (node.spec.kind === 'source') for (const s of node.spec.source.splits) cutAt.set(s.id, s.records.length);
  }
  const ahead = committed.filter((c) => c.record.offset >= (cutAt.get(c.record.split) ?? Infinity));
  if (ahead.length === 0) return [];
  const keys = new Set(ahead.map((c) => `${c.record.split}:${c.record.offset}`));
  const expected = sharedReferenceFold(whole).outputs.filter((r) => keys.has(`${r.split}:${r.offset}`));
  const copies = duplicatedInputs(expected, ahead.map((c) => c.record), 'none');
  const unexplained = new Set(attribute(copies, ahead, restores, positions).map((u) => `${u.split}:${u.offset}`));
  return copies.filter((d) => !unexplained.has(`${d.split}:${d.offset}`));
}

/**
 * Per restore, the split positions of the checkpoint it used (every split at 0 for none);
 * undefined for a checkpoint not among the completed ones.
 */
function restorePositions(
  restores: readonly Restore[],
  checkpoints: readonly DecodedCheckpoint[],
  graph: StreamGraph,
): (ReadonlyMap<number, number> | undefined)[] {
  const byId = new Map(checkpoints.map((c) => [c.checkpointId, c] as const));
  return restores.map((r) => {
    const c = r.checkpointId < 0 ? undefined : byId.get(r.checkpointId);
    if (r.checkpointId >= 0 && c === undefined) return undefined;
    return splitPositions(c, graph).positions;
  });
}

function attribute(
  duplicates: readonly DuplicatedInput[],
  committed: readonly Copy[],
  restores: readonly Restore[],
  positions: readonly (ReadonlyMap<number, number> | undefined)[],
): UnexplainedDuplicate[] {
  const copiesOf = new Map<string, Copy[]>();
  for (const c of committed) {
    const key = `${c.record.split}:${c.record.offset}`;
    const list = copiesOf.get(key) ?? [];
    list.push(c);
    copiesOf.set(key, list);
  }
  const out: UnexplainedDuplicate[] = [];
  for (const d of duplicates) {
    const copies = copiesOf.get(`${d.split}:${d.offset}`) ?? [];
    const explainedBy: number[] = [];
    restores.forEach((r, i) => {
      const p = positions[i]?.get(d.split);
      if (p === undefined || p > d.offset) return;
      // A copy whose transaction is not in the (possibly capped) trace is given the benefit of
      // the doubt: it may well predate the restore.
      if (copies.some((c) => c.beganUs === undefined || c.beganUs < r.timeUs)) {
        explainedBy.push(r.checkpointId);
      }
    });
    if (explainedBy.length < d.copies) {
      out.push({
        split: d.split, offset: d.offset, copies: d.copies, explainedBy,
        attempts: copies.map((c) => `${c.record.subtask}@${c.record.attempt}`),
      });
    }
  }
  return out;
}

/**
 * The restores of a run: its `checkpoint.restored` events; without checkpointing (mode none)
 * every failover (`scheduler.restarting`) restarts its tasks from the beginning of their splits,
 * a restore from no checkpoint (id -1, every split at 0).
 */
function restoresOf(result: RunResult): Restore[] {
  const none = result.spec.checkpoint.mode === 'none';
  return result.trace
    .filter((e) => e.type === 'checkpoint.restored' || (none && e.type === 'scheduler.restarting'))
    .map((e) => ({ timeUs: e.timeUs, checkpointId: e.type === 'checkpoint.restored' ? Number(e.attrs['checkpointId']) : -1 }));
}

/**
 * When only output values differ (no record missing or extra, the state explained), the likeliest
 * cause in a user's job is a value computed from keyed state after a replay: in at-least-once mode
 * a replayed record is applied to the state again, and what a later record's value reads depends
 * on where the replay fell, which F(all input + D) cannot place. Said as a possibility, with the
 * ways out (docs/jobs.md, Limitations).
 */
export function replayHint(c: Readonly<Record<string, number>>): string {
  const onlyValues = (c['valueMismatchCount'] ?? 0) > 0
    && Object.entries(c).every(([k, n]) => k === 'valueMismatchCount' || n === 0);
  return onlyValues
    ? ' (no record missing or extra, only values differ: a value computed from keyed state after a replay, such as a running '
      + 'total, depends on where the replay fell, which the fold cannot predict in at-least-once mode; write order-free values '
      + 'or judge the sink by identity, docs/jobs.md "Limitations")'
    : '';
}
