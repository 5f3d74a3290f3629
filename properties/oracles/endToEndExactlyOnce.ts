/**
 * Oracle 3 of ORACLES.md, end-to-end exactly-once: the transactional store's committed output
 * equals the output of F(all input) as a multiset of record identities with matching values, and
 * the engine's final keyed state equals F's. For outputs numbered per key in arrival order
 * (flights' `seq`, wordcount's `count`) the value is compared without the number, and the numbers
 * are judged on their own: per key exactly `{1..n}`, increasing with the offset within a split.
 * For the flights job, in addition: every flight id exactly once, and the per-airport count,
 * total and maximum over the committed output equal the fold's.
 *
 * With a job's judging (jobJudging.ts) each sink is judged on its own, by its judgement, against
 * F's records of that sink; a sink judged `off` and keyed operators whose state is `off` are left
 * out and the verdict says so (`outputUnjudged`, `stateUnjudged`, and the summary), never as a
 * pass. Without one, all sinks are judged together with the numbering detected by uid.
 *
 * A violation is a value, never an exception: the verdict says what is missing, surplus or
 * different. (Exceptions mean a harness problem: a job F cannot fold, see referenceFold.)
 */
import type { StreamGraph, StreamRecord } from '../../engine/index.ts';
import { WORDCOUNT_OUTPUT_COMPARISON } from '../../sim/jobs/builtInOutputComparisons.ts';
import { FLIGHTS_UIDS } from '../../sim/workloads/flights.ts';
import type { FlightOutput } from '../../sim/workloads/flights.ts';
import { WORDCOUNT_UIDS } from '../../sim/workloads/wordcount.ts';
import { foldStateMatches, referenceFold } from '../referenceFold.ts';
import type { FoldResult, KeyedStateView } from '../referenceFold.ts';
import { compareKeyedState } from './compareKeyedState.ts';
import type { StateDiff } from './compareKeyedState.ts';
import { compareOutputs } from './compareOutputs.ts';
import type {
  CommittedRecord, MissingRecord, SurplusRecord, ValueMismatch,
} from './compareOutputs.ts';
import { checkFlights, FLIGHTS_SEQUENCE } from './flightsInvariants.ts';
import type { FlightsReport } from './flightsInvariants.ts';
import {
  allStateOff, compareSinkOutputs, sequencedOf, sinkOutputs, unjudgedSuffix, withoutOperators,
} from './jobJudging.ts';
import type { OutputUnjudged, ResolvedJudging } from './jobJudging.ts';
import { checkSequences } from './sequenceInvariants.ts';
import type { SequencedOutput, SequenceReport } from './sequenceInvariants.ts';

export type { CommittedRecord } from './compareOutputs.ts';

/**
 * Wordcount's running counts: per word, `count`; the word itself must match F. The same
 * functions as WORDCOUNT_OUTPUT_COMPARISON, which a JobJudging holds.
 */
export const WORDCOUNT_SEQUENCE: SequencedOutput = Object.freeze(
  sequencedOf(WORDCOUNT_OUTPUT_COMPARISON) as SequencedOutput);

/** Input of {@link endToEndExactlyOnce}. */
export interface EndToEndInput {
  /** The job (its sources hold the input splits). */
  readonly graph: StreamGraph;
  /** Every committed record of the judged sink(s). */
  readonly committed: readonly CommittedRecord[];
  /** Final keyed state as decoded by the engine: uid → state name → String(key) → value. */
  readonly finalState: KeyedStateView;
  /** Judge only this sink's output (by uid); default all sinks together. Not with `judging`. */
  readonly sink?: string;
  /**
   * The job's judging, resolved (jobJudging.ts): each sink judged on its own by it (then
   * `sequenced` and `sink` are not read). Needs `stores`.
   */
  readonly judging?: ResolvedJudging;
  /** With `judging`: the transactional store (`txn.sink`) of each record of `committed`, in order. */
  readonly stores?: readonly string[];
  /** F(all input), if already computed for this graph. */
  readonly expected?: FoldResult;
  /**
   * Per-key numbering of the output; default detected from the graph (flights, wordcount),
   * `null` for none (values compared whole).
   */
  readonly sequenced?: SequencedOutput | null;
  /** Run the flights checks; default: the graph has the flights stats operator. */
  readonly flights?: boolean;
  /** Longest list in the details; default 100 (counts are always exact). */
  readonly maxListed?: number;
  /**
   * Compare the final keyed state (default true). False when there is none to compare (a stop
   * whose job failed after its savepoint): the summary says it was not judged.
   */
  readonly judgeState?: boolean;
}

/** Everything the oracle found. */
export interface EndToEndDetails {
  readonly expectedCount: number;
  readonly committedCount: number;
  readonly missing: readonly MissingRecord[];
  readonly missingCount: number;
  readonly surplus: readonly SurplusRecord[];
  readonly surplusCount: number;
  readonly valueMismatches: readonly ValueMismatch[];
  readonly valueMismatchCount: number;
  readonly stateDiffs: readonly StateDiff[];
  readonly stateDiffCount: number;
  readonly sequence?: SequenceReport;
  readonly flights?: FlightsReport;
  /** With a judging that leaves sinks out: which, and why. */
  readonly outputUnjudged?: readonly OutputUnjudged[];
  /** With a judging that leaves keyed operators' state out: their uids. */
  readonly stateUnjudged?: readonly string[];
}

/** The oracle's verdict. */
export interface EndToEndVerdict {
  readonly ok: boolean;
  readonly property: 'end-to-end-exactly-once';
  /** One line: what failed, with counts, or that it held. */
  readonly summary: string;
  readonly details: EndToEndDetails;
}

/**
 * Judges a run's committed output and final state against F(all input).
 * Never throws for a violation; throws only when F itself cannot run (see referenceFold).
 */
export function endToEndExactlyOnce(input: EndToEndInput): EndToEndVerdict {
  const maxListed = input.maxListed ?? 100;
  const fold = input.expected ?? referenceFold(input.graph);
  const judging = input.judging;
  const expected = judging !== undefined || input.sink === undefined
    ? fold.outputs
    : (fold.outputsBySink.get(input.sink) ?? []);
  const { outputs, sequence, expectedCount, committedCount, judgedRecords } = judging === undefined
    ? compareDetected(input, expected, maxListed)
    : compareJudged(input, judging, fold, maxListed);
  // Compared on F's stores first: the state view is built only for a difference (with operators
  // left out, F's stores hold more than the view compared, so straight to the views).
  const stateOff = judging?.stateOff ?? new Set<string>();
  const judgeState = (input.judgeState ?? true) && !allStateOff(judging);
  const state = !judgeState || (stateOff.size === 0 && foldStateMatches(fold, input.finalState))
    ? { diffs: [], diffCount: 0 }
    : compareKeyedState(withoutOperators(fold.state, stateOff), withoutOperators(input.finalState, stateOff), maxListed);
  const isFlights = (input.flights ?? hasUid(input.graph, FLIGHTS_UIDS.stats))
    && (judging === undefined || !judging.outputUnjudged.some((u) => u.sink === FLIGHTS_UIDS.sink));
  const flights = isFlights
    ? checkFlights(
      expected.map((r) => (r.value as FlightOutput).flightId),
      fold.state,
      judgedRecords,
      maxListed,
    )
    : undefined;
  const stateUnjudged = judging === undefined ? [] : judging.keyed.filter((k) => stateOff.has(k));
  const details: EndToEndDetails = {
    expectedCount,
    committedCount,
    missing: outputs.missing,
    missingCount: outputs.missingCount,
    surplus: outputs.surplus,
    surplusCount: outputs.surplusCount,
    valueMismatches: outputs.valueMismatches,
    valueMismatchCount: outputs.valueMismatchCount,
    stateDiffs: state.diffs,
    stateDiffCount: state.diffCount,
    ...(sequence === undefined ? {} : { sequence }),
    ...(flights === undefined ? {} : { flights }),
    ...(judging === undefined || judging.outputUnjudged.length === 0 ? {} : { outputUnjudged: judging.outputUnjudged }),
    ...(stateUnjudged.length === 0 ? {} : { stateUnjudged }),
  };
  const problems = [
    count(details.missingCount, 'missing record', 'missing records'),
    count(details.surplusCount, 'surplus record', 'surplus records'),
    count(details.valueMismatchCount, 'value mismatch', 'value mismatches'),
    count(details.stateDiffCount, 'state diff', 'state diffs'),
    count(sequence?.problemCount ?? 0,
      'key with bad sequence numbers', 'keys with bad sequence numbers'),
    count(sequence?.orderViolationCount ?? 0,
      'sequence order violation', 'sequence order violations'),
    count(flights?.problemCount ?? 0, 'flights problem', 'flights problems'),
  ].filter((p) => p !== '');
  const ok = problems.length === 0;
  const left = unjudgedSuffix(judging);
  const stateWord = !judgeState ? 'final state not judged'
    : stateUnjudged.length > 0 ? 'final state of the judged operators equal' : 'final state equal';
  const summary = (ok
    ? `end-to-end exactly-once holds: ${details.committedCount} committed records equal F's `
      + `${details.expectedCount}, ${stateWord}`
    : `end-to-end exactly-once violated: ${problems.join(', ')}${orderHint(details)}`) + (left === '' ? '' : `; ${left}`);
  return { ok, property: 'end-to-end-exactly-once', summary, details };
}

/**
 * When only values differ (every identity committed exactly once, state equal), the likeliest
 * cause in a user's job is a value computed from the order one key's records arrive in from
 * several splits (a running total): that order varies from run to run in Flink too, and the
 * fold can predict only one. Said as a possibility, since a restore that lost state looks alike.
 */
function orderHint(d: EndToEndDetails): string {
  return d.valueMismatchCount > 0 && d.missingCount === 0 && d.surplusCount === 0 && d.stateDiffCount === 0
    ? ' (every record committed once, only values differ: if a value depends on the order in which one key\'s records '
      + 'arrive from several splits, keep each key in one split or judge the sink by identity or an OutputComparison, docs/jobs.md "Input")'
    : '';
}

/** The output comparison of {@link endToEndExactlyOnce}, and the records it judged. */
interface Compared {
  readonly outputs: ReturnType<typeof compareOutputs>;
  readonly sequence: SequenceReport | undefined;
  readonly expectedCount: number;
  readonly committedCount: number;
  /** The committed records of the judged sinks (for the flights checks). */
  readonly judgedRecords: readonly CommittedRecord[];
}

/** The comparison without a job's judging: all `committed` against `expected`, numbering by uid. */
function compareDetected(input: EndToEndInput, expected: readonly StreamRecord[], maxListed: number): Compared {
  const sequenced = input.sequenced === undefined ? detectSequenced(input.graph) : input.sequenced;
  const outputs = compareOutputs({
    expected,
    actual: input.committed,
    maxListed,
    ...(sequenced === null ? {} : { project: sequenced.project }),
  });
  const sequence: SequenceReport | undefined = sequenced === null
    ? undefined
    : checkSequences(sequenced, input.graph, expected, input.committed, maxListed);
  return {
    outputs, sequence, expectedCount: expected.length, committedCount: input.committed.length,
    judgedRecords: input.committed,
  };
}

/** The comparison by a job's judging: each sink on its own, those judged `off` left out. */
function compareJudged(input: EndToEndInput, judging: ResolvedJudging, fold: FoldResult, maxListed: number): Compared {
  const stores = input.stores;
  if (stores === undefined || stores.length !== input.committed.length) {
    throw new Error(`endToEndExactlyOnce: with a judging, stores must name the store of each of the ${input.committed.length} committed record(s)`);
  }
  const groups = sinkOutputs(judging, fold, input.committed.map((record, i) => ({ record, txn: { sink: stores[i] as string } })));
  const c = compareSinkOutputs(input.graph, groups, maxListed);
  return {
    outputs: c.outputs, sequence: c.sequence, expectedCount: c.expectedCount, committedCount: c.committedCount,
    judgedRecords: groups.filter((g) => !g.judgement.off).flatMap((g) => g.actual),
  };
}

/** The numbering of a built-in job's output, or null. */
export function detectSequenced(graph: StreamGraph): SequencedOutput | null {
  if (hasUid(graph, FLIGHTS_UIDS.stats)) return FLIGHTS_SEQUENCE;
  if (hasUid(graph, WORDCOUNT_UIDS.count)) return WORDCOUNT_SEQUENCE;
  return null;
}

function hasUid(graph: StreamGraph, uid: string): boolean {
  return graph.nodes.some((n) => n.uid === uid);
}

function count(n: number, one: string, many: string): string {
  return n === 0 ? '' : `${n} ${n === 1 ? one : many}`;
}
