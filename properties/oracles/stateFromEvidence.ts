/**
 * Judges the final keyed state of an at-least-once run from the trace's evidence of what each
 * keyed stage read (keyedInputEvidence.ts), for runs where the output's duplicates need not be
 * the state's (a non-forward edge after a keyed operator; ORACLES.md 4 as refined in
 * atLeastOnce.ts). Per keyed operator K:
 *
 * - the input records of K in F(all input) (a plain fold of the input, never the engine), each
 *   `A(x)` times, must all be in the evidence's final content `S`: a record missing there is a
 *   violation (`stateMissing`);
 * - every extra copy `S(x) - A(x)` must be explained: each restore on the subtask's chain whose
 *   restored content held x, from a checkpoint whose position of x's split is at or before x's
 *   offset, explains `A(x)` copies (one more read of the record); the rest, and any record F
 *   never delivers to K, is a violation (`stateUnexplained`);
 * - K's final state must equal K's state in `F(all input + D_K)`, with `D_K` the extra copies
 *   at K's input (a copy whose record reaches K on several branches may cover some of them:
 *   foldWithDuplicates with `at`): a differing key is a violation (`stateDiff`).
 *
 * So a state that double-counts a record the evidence says was not read again, a restore that
 * read records before its checkpoint's position, and a record the final state never saw are all
 * found; the output is judged on its own duplicates as before.
 */
import type { StreamGraph, StreamNode, StreamRecord } from '../../engine/index.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { referenceFold } from '../referenceFold.ts';
import type { KeyedStateView } from '../referenceFold.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { compareKeyedState } from './compareKeyedState.ts';
import type { StateDiff } from './compareKeyedState.ts';
import { foldWithDuplicates } from './foldWithDuplicates.ts';
import type { DuplicatedInput } from './foldWithDuplicates.ts';
import { inputKey, readKeyedInputs } from './keyedInputEvidence.ts';
import type { KeyedInput, KeyedReads } from './keyedInputEvidence.ts';
import { STATE_JUDGED, stateUnjudged } from './stateJudgement.ts';
import type { StateJudgement } from './stateJudgement.ts';

/** A record of K's input whose copies in the final state the evidence does not account for. */
export interface KeyedInputProblem {
  readonly operator: string;
  readonly split: number;
  readonly offset: number;
  readonly tag: string;
  /** Copies F delivers to K. */
  readonly expected: number;
  /** Copies the final state holds, by the evidence. */
  readonly held: number;
  /** Extra copies restores explain. */
  readonly explained: number;
}

/** What {@link judgeStateFromEvidence} found. */
export interface EvidenceStateVerdict {
  readonly judgement: StateJudgement;
  readonly diffs: readonly StateDiff[];
  readonly diffCount: number;
  /** Records held fewer times than F delivers them to K. */
  readonly missing: readonly KeyedInputProblem[];
  readonly missingCount: number;
  /** Records held more often than F plus the explaining restores allow (F's 0 included). */
  readonly unexplained: readonly KeyedInputProblem[];
  readonly unexplainedCount: number;
  /** Extra copies the evidence attributes to restores, over all keyed operators. */
  readonly duplicatedInputs: number;
}

/**
 * Judges `result`'s keyed state from its evidence; undefined when the trace holds none (the
 * caller then judges the state as it can without). `positions(c)` gives checkpoint c's split
 * positions (undefined for a checkpoint the run did not complete); keyed operators in `stateOff`
 * (the job's judging says state off) are left out.
 */
export function judgeStateFromEvidence(
  result: Pick<RunResult, 'trace' | 'finalState'>,
  graph: StreamGraph,
  positions: (checkpointId: number) => ReadonlyMap<number, number> | undefined,
  maxListed: number,
  stateOff: ReadonlySet<string> = new Set(),
): EvidenceStateVerdict | undefined {
  const reading = readKeyedInputs(result, positions);
  if (reading === undefined) return undefined;
  if (!reading.ok) return unjudged(reading.detail);
  // Operators whose state the job's judging leaves out are neither required nor compared.
  const keyed = graph.nodes.filter((n) => n.spec.kind === 'keyedProcess' && !stateOff.has(n.uid));
  for (const node of keyed) {
    const reads = reading.operators.get(node.uid);
    if (reads === undefined || reads.subtasks !== node.parallelism) {
      return unjudged(`${node.uid}: ${reads?.subtasks ?? 0} of ${node.parallelism} subtask(s) traced a final state`);
    }
  }
  const expected = keyedInputsOfF(graph);
  const missing: KeyedInputProblem[] = [];
  const unexplained: KeyedInputProblem[] = [];
  const diffs: StateDiff[] = [];
  let duplicated = 0;
  for (const node of keyed) {
    const reads = reading.operators.get(node.uid) as KeyedReads;
    const inF = expected.get(node.id) ?? new Map<string, { input: KeyedInput; n: number }>();
    const d = extraCopies(node.uid, inF, reads, missing, unexplained);
    duplicated += d.reduce((n, x) => n + x.copies, 0);
    const state = d.length === 0 ? sharedReferenceFold(graph).state[node.uid]
      : foldWithDuplicates(graph, d, { at: node.id }).state[node.uid];
    const only = (view: KeyedStateView): KeyedStateView => ({ [node.uid]: view[node.uid] ?? {} });
    diffs.push(...compareKeyedState({ [node.uid]: state ?? {} }, only(result.finalState as KeyedStateView), Number.POSITIVE_INFINITY).diffs);
  }
  return {
    judgement: STATE_JUDGED,
    diffs: diffs.slice(0, maxListed), diffCount: diffs.length,
    missing: missing.slice(0, maxListed), missingCount: missing.length,
    unexplained: unexplained.slice(0, maxListed), unexplainedCount: unexplained.length,
    duplicatedInputs: duplicated,
  };
}

function unjudged(detail: string): EvidenceStateVerdict {
  return {
    judgement: stateUnjudged('evidence-incomplete', detail),
    diffs: [], diffCount: 0, missing: [], missingCount: 0, unexplained: [], unexplainedCount: 0,
    duplicatedInputs: 0,
  };
}

/**
 * D_K: per input record (split, offset), the extra copies the evidence holds of each of its
 * identities at K, as a whole copy when every identity F delivers to K has the same surplus
 * (the record read again), else per tag. Records held too few times, or more often than the
 * restores explain, are listed in `missing` and `unexplained`.
 */
function extraCopies(
  uid: string,
  inF: ReadonlyMap<string, { readonly input: KeyedInput; readonly n: number }>,
  reads: KeyedReads,
  missing: KeyedInputProblem[],
  unexplained: KeyedInputProblem[],
): DuplicatedInput[] {
  const perRecord = new Map<string, { split: number; offset: number; tags: Map<string, number> }>();
  const problem = (r: KeyedInput, expected: number, held: number, explained: number): KeyedInputProblem =>
    ({ operator: uid, split: r.split, offset: r.offset, tag: r.tag, expected, held, explained });
  for (const [k, { input, n }] of inF) {
    const held = reads.held.get(k) ?? 0;
    const explained = (reads.rereads.get(k) ?? 0) * n;
    if (held < n) missing.push(problem(input, n, held, 0));
    if (held - n > explained) unexplained.push(problem(input, n, held, explained));
    // Whole reads of the record again: ceil, as duplicatedInputs counts a surplus of one
    // identity F gives several times (a stream feeding two branches).
    const copies = held > n ? Math.ceil((held - n) / n) : 0;
    const key = `${input.split}:${input.offset}`;
    const entry = perRecord.get(key) ?? { split: input.split, offset: input.offset, tags: new Map<string, number>() };
    entry.tags.set(input.tag, copies);
    perRecord.set(key, entry);
  }
  for (const [k, held] of reads.held) {
    if (!inF.has(k)) unexplained.push(problem(reads.inputs.get(k) as KeyedInput, 0, held, 0));
  }
  const out: DuplicatedInput[] = [];
  for (const e of perRecord.values()) {
    const counts = [...e.tags.values()];
    const copies = Math.max(...counts);
    if (copies === 0) continue;
    out.push(counts.every((c) => c === copies) ? { split: e.split, offset: e.offset, copies }
      : { split: e.split, offset: e.offset, copies, tags: new Map([...e.tags].filter(([, c]) => c > 0)) });
  }
  return out.sort((a, b) => a.split - b.split || a.offset - b.offset);
}

const inputsOf = new WeakMap<StreamGraph, Map<number, Map<string, { input: KeyedInput; n: number }>>>();

/**
 * Per keyed node id, the identities of the records F(all input) delivers to it, with their
 * counts: a plain fold of the input that watches each delivery (memoized per graph).
 */
function keyedInputsOfF(graph: StreamGraph): Map<number, Map<string, { input: KeyedInput; n: number }>> {
  const memo = inputsOf.get(graph);
  if (memo !== undefined) return memo;
  const out = new Map<number, Map<string, { input: KeyedInput; n: number }>>();
  const watch = (r: StreamRecord, node: StreamNode): boolean => {
    if (node.spec.kind !== 'keyedProcess') return true;
    const at = out.get(node.id) ?? new Map<string, { input: KeyedInput; n: number }>();
    out.set(node.id, at);
    const k = inputKey(r);
    const entry = at.get(k) ?? { input: { split: r.split, offset: r.offset, tag: r.tag }, n: 0 };
    entry.n++;
    at.set(k, entry);
    return true;
  };
  referenceFold(graph, { keep: watch });
  inputsOf.set(graph, out);
  return out;
}
