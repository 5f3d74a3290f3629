/**
 * Judges outputs that carry a per-key sequence number (flights' `seq`, wordcount's `count`),
 * whose assignment to records depends on the interleaving (ORACLES.md 3): per key the committed
 * numbers are exactly `{1..n}`, n being the number of records F emits for the key, and within
 * one split they increase with the offset (then the tag, in emission order).
 */
import { recordIdentity } from '../../engine/index.ts';
import type { StreamGraph, StreamRecord } from '../../engine/index.ts';
import { compareTags, operatorRanks } from '../outputTag.ts';
import type { CommittedRecord } from './compareOutputs.ts';

/** How to read a sequenced output. */
export interface SequencedOutput {
  /** Name for reports, e.g. `flights seq`. */
  readonly name: string;
  /** The key the numbers count per (e.g. the origin airport). */
  readonly key: (value: unknown) => string;
  /** The sequence number (from 1). */
  readonly seq: (value: unknown) => number;
  /** The part of a value that does not depend on the interleaving (compared per identity). */
  readonly project: (value: unknown) => unknown;
}

/** A key whose committed numbers are not exactly 1..n. */
export interface SequenceProblem {
  readonly key: string;
  /** Number of records F emits for the key. */
  readonly n: number;
  /** Numbers of 1..n never committed. */
  readonly missing: readonly number[];
  /** Numbers of 1..n committed more than once (each listed once). */
  readonly duplicated: readonly number[];
  /** Committed numbers outside 1..n. */
  readonly unexpected: readonly number[];
}

/** Two committed records of one split and key whose numbers do not increase with the offset. */
export interface SequenceOrderViolation {
  readonly split: number;
  readonly key: string;
  readonly ids: readonly [string, string];
  readonly seqs: readonly [number, number];
}

/** Result of {@link checkSequences}: lists truncated to `maxListed`. */
export interface SequenceReport {
  readonly name: string;
  readonly problems: readonly SequenceProblem[];
  readonly problemCount: number;
  readonly orderViolations: readonly SequenceOrderViolation[];
  readonly orderViolationCount: number;
}

/**
 * Checks per-key numbering of `actual` against the per-key counts of `expected`; `graph` (the
 * job) orders the outputs of one input record by their tags.
 */
export function checkSequences(
  spec: SequencedOutput,
  graph: StreamGraph,
  expected: readonly StreamRecord[],
  actual: readonly CommittedRecord[],
  maxListed = 100,
): SequenceReport {
  const n = new Map<string, number>();
  for (const r of expected) { const k = spec.key(r.value); n.set(k, (n.get(k) ?? 0) + 1); }
  const seen = new Map<string, Map<number, number>>();
  for (const r of actual) {
    const k = spec.key(r.value);
    if (!n.has(k)) n.set(k, 0);
    const counts = seen.get(k) ?? new Map<number, number>();
    const s = spec.seq(r.value);
    counts.set(s, (counts.get(s) ?? 0) + 1);
    seen.set(k, counts);
  }
  const problems: SequenceProblem[] = [];
  for (const [key, size] of n) {
    const counts = seen.get(key) ?? new Map<number, number>();
    const missing: number[] = [];
    const duplicated: number[] = [];
    for (let s = 1; s <= size; s++) {
      const c = counts.get(s) ?? 0;
      if (c === 0) missing.push(s); else if (c > 1) duplicated.push(s);
    }
    const unexpected = [...counts.keys()]
      .filter((s) => !(Number.isInteger(s) && s >= 1 && s <= size)).sort((a, b) => a - b);
    if (missing.length + duplicated.length + unexpected.length > 0) {
      problems.push({ key, n: size, missing, duplicated, unexpected });
    }
  }
  const order = orderViolations(spec, actual, operatorRanks(graph));
  return {
    name: spec.name,
    problems: problems.slice(0, maxListed),
    problemCount: problems.length,
    orderViolations: order.slice(0, maxListed),
    orderViolationCount: order.length,
  };
}

function orderViolations(
  spec: SequencedOutput,
  actual: readonly CommittedRecord[],
  ranks: ReadonlyMap<string, number>,
): SequenceOrderViolation[] {
  const groups = new Map<string, CommittedRecord[]>();
  for (const r of actual) {
    const g = `${r.split}\u0000${spec.key(r.value)}`;
    const list = groups.get(g) ?? [];
    list.push(r);
    groups.set(g, list);
  }
  const out: SequenceOrderViolation[] = [];
  for (const list of groups.values()) {
    list.sort((a, b) => a.offset - b.offset || compareTags(a.tag, b.tag, ranks));
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as CommittedRecord;
      const cur = list[i] as CommittedRecord;
      const ps = spec.seq(prev.value);
      const cs = spec.seq(cur.value);
      if (!(cs > ps)) {
        out.push({
          split: cur.split,
          key: spec.key(cur.value),
          ids: [recordIdentity(prev), recordIdentity(cur)],
          seqs: [ps, cs],
        });
      }
    }
  }
  return out;
}
