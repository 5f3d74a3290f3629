/**
 * A job's judging (JobJudging, sim/jobs/JobDefinition.ts) resolved against its graph, for the
 * oracles: per sink, how its committed output is compared with the reference fold's (the
 * projection for compareOutputs, the per-key numbering for checkSequences, or not at all), and
 * the keyed operators whose state is not compared.
 *
 * Without a JobJudging (a RunResult of the built-in jobs before they carry one) the oracles keep
 * their detection by operator uid and judge all sinks' output together (`detectSequenced`); with
 * one, each sink is judged on its own against the fold's records of that sink. What is not
 * judged comes back as {@link OutputUnjudged} entries and as the set of operators whose state is
 * off, so a verdict says it instead of passing silently (as stateJudgement.ts does for state).
 *
 * Committed records name their transactional store (`txn.sink`, the SinkDefinition's name), not
 * the sink's uid: a sink node's store is its `two-phase-commit` name. Sinks sharing one store are
 * judged together (their records cannot be told apart) and must be judged alike; a store no sink
 * of the graph writes to is judged against no expected output (each of its records a surplus).
 */
import type { StreamGraph, StreamRecord } from '../../engine/index.ts';
import type { JobJudging, OutputComparison as JobOutputComparison, OutputJudging } from '../../sim/jobs/JobDefinition.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import type { FoldResult, KeyedStateView } from '../referenceFold.ts';
import { compareOutputs } from './compareOutputs.ts';
import type { CommittedRecord, OutputComparison } from './compareOutputs.ts';
import { checkSequences } from './sequenceInvariants.ts';
import type { SequencedOutput, SequenceReport } from './sequenceInvariants.ts';

/** Why a sink's output was not judged: a short stable code (counted by explore). */
export type OutputUnjudgedReason =
  /** The job's judging says `off` for the sink (JobJudging.output). */
  'judging-off';

/** Every reason, in a fixed order (for reports that list them all). */
export const OUTPUT_UNJUDGED_REASONS: readonly OutputUnjudgedReason[] = ['judging-off'];

/** A sink whose committed output no oracle compared, with why (never a pass). */
export interface OutputUnjudged {
  /** The sink's uid. */
  readonly sink: string;
  readonly reason: OutputUnjudgedReason;
  /** A line for people. */
  readonly detail: string;
}

/** How one group of sinks (one transactional store) is judged. */
export interface SinkJudgement {
  /** The uids of the sinks writing to the store (several only when they share it). */
  readonly sinks: readonly string[];
  /** The transactional store's name (`txn.sink`); undefined for a sink that writes to none. */
  readonly store: string | undefined;
  /** Not compared at all. */
  readonly off: boolean;
  /** What of a value must equal F's per identity; undefined: the whole value. */
  readonly project: ((value: unknown) => unknown) | undefined;
  /** The per-key numbering judged by checkSequences, or null. */
  readonly sequenced: SequencedOutput | null;
  /** `identity-and-value`, `identity`, `off`, or the OutputComparison's name: for reports. */
  readonly how: string;
}

/** A job's judging resolved against its graph (see the file comment). */
export interface ResolvedJudging {
  /** Per store, in the order the graph's sinks first name it. */
  readonly sinks: readonly SinkJudgement[];
  /** The sinks not judged (judging `off`), in graph order. */
  readonly outputUnjudged: readonly OutputUnjudged[];
  /** Keyed operator uids whose state is not compared (judging `off`). */
  readonly stateOff: ReadonlySet<string>;
  /** Every keyed operator uid of the graph, in graph order. */
  readonly keyed: readonly string[];
}

/** One group of sinks with F's records of them and the committed records of their store. */
export interface SinkOutput {
  readonly judgement: SinkJudgement;
  readonly expected: readonly StreamRecord[];
  readonly actual: readonly CommittedRecord[];
}

/** A committed record with the store it was committed to (sim's CommittedRecord, in part). */
export interface StoredRecord {
  readonly record: unknown;
  readonly txn: { readonly sink: string };
}

/**
 * The {@link SequencedOutput} an {@link JobOutputComparison} with a `sequence` stands for (null
 * without one): checkSequences reads it; `project` and the name are the comparison's.
 */
export function sequencedOf(comparison: JobOutputComparison): SequencedOutput | null {
  const s = comparison.sequence;
  if (s === undefined) return null;
  return { name: comparison.name, key: s.key, seq: s.seq, project: comparison.project };
}

/** Identity only: every value projects to the same constant. */
const identityOnly = (): null => null;

/**
 * Resolves `judging` against `graph` (see the file comment).
 * @throws SimInputError when `judging` names a uid that is no keyed operator (state) or no sink
 *   (output) of the graph, or judges sinks sharing a store differently: a typo would otherwise
 *   leave the default judging in place without a word.
 */
export function resolveJudging(graph: StreamGraph, judging: JobJudging): ResolvedJudging {
  const keyed = graph.nodes.filter((n) => n.spec.kind === 'keyedProcess').map((n) => n.uid);
  const sinkNodes = graph.nodes.filter((n) => n.spec.kind === 'sink');
  const stateOff = new Set<string>();
  for (const [uid, s] of Object.entries(judging.state ?? {})) {
    if (!keyed.includes(uid)) {
      throw new SimInputError(`job judging: state names ${uid}, which is no keyed operator of job ${graph.jobName} (keyed: ${keyed.join(', ') || 'none'})`);
    }
    if (s === 'off') stateOff.add(uid);
    else if (s !== 'exact') throw new SimInputError(`job judging: state of ${uid} must be 'exact' or 'off', got ${String(s)}`);
  }
  const sinkUids = sinkNodes.map((n) => n.uid);
  const output = judging.output ?? {};
  for (const uid of Object.keys(output)) {
    if (!sinkUids.includes(uid)) {
      throw new SimInputError(`job judging: output names ${uid}, which is no sink of job ${graph.jobName} (sinks: ${sinkUids.join(', ') || 'none'})`);
    }
  }
  const groups = new Map<string, { store: string | undefined; sinks: string[]; how: OutputJudging }>();
  for (const node of sinkNodes) {
    if (node.spec.kind !== 'sink') continue;
    const store = node.spec.sink.kind === 'two-phase-commit' ? node.spec.sink.name : undefined;
    const how = output[node.uid] ?? 'identity-and-value';
    const key = store === undefined ? `\u0000${node.uid}` : store;
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { store, sinks: [node.uid], how });
    } else if (!group.sinks.includes(node.uid)) {
      if (group.how !== how) {
        throw new SimInputError(`job judging: sinks ${group.sinks.join(', ')} and ${node.uid} write to store ${String(store)} and must be judged alike`);
      }
      group.sinks.push(node.uid);
    }
  }
  const sinks = [...groups.values()].map((g) => sinkJudgement(g.sinks, g.store, g.how));
  const outputUnjudged = sinks.filter((s) => s.off).flatMap((s) => s.sinks.map((sink) => ({
    sink, reason: 'judging-off' as const, detail: `the job's judging says output off for sink ${sink}`,
  })));
  return { sinks, outputUnjudged, stateOff, keyed };
}

function sinkJudgement(sinks: readonly string[], store: string | undefined, how: OutputJudging): SinkJudgement {
  if (how === 'off') return { sinks, store, off: true, project: undefined, sequenced: null, how };
  if (how === 'identity') return { sinks, store, off: false, project: identityOnly, sequenced: null, how };
  if (how === 'identity-and-value') return { sinks, store, off: false, project: undefined, sequenced: null, how };
  if (typeof how !== 'object' || how === null || typeof how.project !== 'function' || typeof how.name !== 'string') {
    throw new SimInputError(`job judging: output of ${sinks.join(', ')} must be 'identity-and-value', 'identity', 'off' or a comparison {name, project, sequence?}`);
  }
  return { sinks, store, off: false, project: how.project, sequenced: sequencedOf(how), how: how.name };
}

/**
 * Per group of sinks: F's records of its sinks (from `fold.outputsBySink`) and the committed
 * records of its store, in commit order; then one group per store no sink writes to, with no
 * expected records. Groups judged `off` are included (the caller skips them).
 */
export function sinkOutputs(
  resolved: ResolvedJudging, fold: FoldResult, committed: readonly StoredRecord[],
): SinkOutput[] {
  const byStore = new Map<string, CommittedRecord[]>();
  for (const c of committed) {
    let list = byStore.get(c.txn.sink);
    if (list === undefined) { list = []; byStore.set(c.txn.sink, list); }
    list.push(c.record as CommittedRecord);
  }
  const out: SinkOutput[] = resolved.sinks.map((judgement) => {
    const expected = judgement.sinks.length === 1
      ? (fold.outputsBySink.get(judgement.sinks[0] as string) ?? [])
      : judgement.sinks.flatMap((s) => fold.outputsBySink.get(s) ?? []);
    const actual = judgement.store === undefined ? [] : (byStore.get(judgement.store) ?? []);
    return { judgement, expected, actual };
  });
  const known = new Set(resolved.sinks.map((s) => s.store));
  for (const [store, actual] of byStore) {
    if (known.has(store)) continue;
    out.push({
      judgement: { sinks: [], store, off: false, project: undefined, sequenced: null, how: 'identity-and-value' },
      expected: [], actual,
    });
  }
  return out;
}

/** `view` without the operators in `off` (the same object when `off` is empty). */
export function withoutOperators(view: KeyedStateView, off: ReadonlySet<string>): KeyedStateView {
  if (off.size === 0) return view;
  const out: KeyedStateView = {};
  for (const uid of Object.keys(view)) if (!off.has(uid)) out[uid] = view[uid] as KeyedStateView[string];
  return out;
}

/**
 * The line a verdict adds for what the judging left out: `` when nothing, else e.g.
 * `output of sink s not judged (judging off); state of k not judged (judging off)`.
 */
export function unjudgedSuffix(resolved: ResolvedJudging | undefined): string {
  if (resolved === undefined) return '';
  const parts: string[] = [];
  const sinks = resolved.outputUnjudged.map((u) => u.sink);
  if (sinks.length > 0) parts.push(`output of sink${sinks.length === 1 ? '' : 's'} ${sinks.join(', ')} not judged (judging off)`);
  const ops = resolved.keyed.filter((k) => resolved.stateOff.has(k));
  if (ops.length > 0) parts.push(`state of ${ops.join(', ')} not judged (judging off)`);
  return parts.join('; ');
}

/** Whether every keyed operator of the job has its state judging off (and there is one). */
export function allStateOff(resolved: ResolvedJudging | undefined): boolean {
  return resolved !== undefined && resolved.keyed.length > 0 && resolved.keyed.every((k) => resolved.stateOff.has(k));
}

/** What {@link compareSinkOutputs} found over the judged groups, merged. */
export interface SinkOutputsComparison {
  /** Lists concatenated in group order, then truncated to `maxListed`; counts summed. */
  readonly outputs: OutputComparison;
  /** The sequence reports of the groups with a numbering, merged (undefined: none had one). */
  readonly sequence: SequenceReport | undefined;
  /** F's records and the committed ones of the judged groups. */
  readonly expectedCount: number;
  readonly committedCount: number;
}

/**
 * Compares each group of `outputs` not judged `off` by its own judgement (compareOutputs with its
 * projection; checkSequences with its numbering unless `sequences` is false) and merges the
 * results. `graph` orders a record's outputs by tag for checkSequences.
 */
export function compareSinkOutputs(
  graph: StreamGraph, outputs: readonly SinkOutput[], maxListed: number, sequences = true,
): SinkOutputsComparison {
  const judged = outputs.filter((o) => !o.judgement.off);
  const parts = judged.map((o) => compareOutputs({
    expected: o.expected, actual: o.actual, maxListed,
    ...(o.judgement.project === undefined ? {} : { project: o.judgement.project }),
  }));
  const reports = !sequences ? [] : judged.flatMap((o) => (o.judgement.sequenced === null ? []
    : [checkSequences(o.judgement.sequenced, graph, o.expected, o.actual, maxListed)]));
  const cat = <T>(pick: (c: OutputComparison) => readonly T[]): T[] => parts.flatMap(pick).slice(0, maxListed);
  const sum = (pick: (c: OutputComparison) => number): number => parts.reduce((n, c) => n + pick(c), 0);
  return {
    outputs: {
      missing: cat((c) => c.missing), missingCount: sum((c) => c.missingCount),
      surplus: cat((c) => c.surplus), surplusCount: sum((c) => c.surplusCount),
      valueMismatches: cat((c) => c.valueMismatches), valueMismatchCount: sum((c) => c.valueMismatchCount),
    },
    sequence: mergeSequences(reports, maxListed),
    expectedCount: judged.reduce((n, o) => n + o.expected.length, 0),
    committedCount: judged.reduce((n, o) => n + o.actual.length, 0),
  };
}

function mergeSequences(reports: readonly SequenceReport[], maxListed: number): SequenceReport | undefined {
  if (reports.length <= 1) return reports[0];
  return {
    name: reports.map((r) => r.name).join(', '),
    problems: reports.flatMap((r) => r.problems).slice(0, maxListed),
    problemCount: reports.reduce((n, r) => n + r.problemCount, 0),
    orderViolations: reports.flatMap((r) => r.orderViolations).slice(0, maxListed),
    orderViolationCount: reports.reduce((n, r) => n + r.orderViolationCount, 0),
  };
}
