/**
 * Multiset comparison of a job's committed output with the output of the reference fold, by
 * record identity `(split, offset, tag)` and value. Used by the end-to-end oracle (ORACLES.md 3)
 * and, later, the at-least-once oracle.
 *
 * Per identity, equal values are matched first; leftover expected and committed copies are then
 * paired as value mismatches, and what remains is missing (expected, not committed) or surplus
 * (committed, not expected). Values are compared through an optional projection, so fields that
 * depend on the interleaving (flights' sequence numbers) can be judged separately.
 */
import { recordIdentity } from '../../engine/index.ts';
import type { StreamRecord } from '../../engine/index.ts';
import { canonicalEqual } from '../canonicalString.ts';

/** A committed sink record as the transactional store returns it. */
export interface CommittedRecord extends StreamRecord {
  /** Attempt number of the task that wrote it. */
  readonly attempt: number;
  readonly subtask: number;
}

/** An expected record that was not committed. */
export interface MissingRecord {
  readonly id: string;
  readonly value: unknown;
}

/** A committed record F does not produce (or one copy too many). */
export interface SurplusRecord {
  readonly id: string;
  readonly value: unknown;
  readonly attempt: number;
  readonly subtask: number;
}

/** A record committed with a value other than F's. */
export interface ValueMismatch {
  readonly id: string;
  readonly expected: unknown;
  readonly actual: unknown;
  readonly attempt: number;
  readonly subtask: number;
}

/** Result of {@link compareOutputs}. Lists are truncated to `maxListed`; counts are exact. */
export interface OutputComparison {
  readonly missing: readonly MissingRecord[];
  readonly missingCount: number;
  readonly surplus: readonly SurplusRecord[];
  readonly surplusCount: number;
  readonly valueMismatches: readonly ValueMismatch[];
  readonly valueMismatchCount: number;
}

/** Options of {@link compareOutputs}. */
export interface CompareOutputsOptions {
  readonly expected: readonly StreamRecord[];
  readonly actual: readonly CommittedRecord[];
  /** What of a value must match; default the whole value. */
  readonly project?: (value: unknown) => unknown;
  /** Longest list reported; default 100. */
  readonly maxListed?: number;
}

/** The expected and committed records of one identity. */
interface Bucket {
  /** The first record seen with this identity (for its identity string, made only if needed). */
  readonly first: StreamRecord;
  readonly expected: StreamRecord[];
  readonly actual: CommittedRecord[];
}

/** Compares expected and committed records as multisets of (identity, projected value). */
export function compareOutputs(options: CompareOutputsOptions): OutputComparison {
  const project = options.project ?? ((v: unknown) => v);
  if (allMatch(options.expected, options.actual, project)) {
    return {
      missing: [], missingCount: 0, surplus: [], surplusCount: 0, valueMismatches: [], valueMismatchCount: 0,
    };
  }
  return compareBuckets(options, project);
}

/**
 * True only if every committed record pairs off with an expected one of its identity and an equal
 * projected value, none left on either side: what {@link compareBuckets} reports as no
 * difference. It pairs as compareBuckets does (per identity, each committed record in order with
 * the first unpaired expected one of equal value), so it fails exactly when compareBuckets finds
 * a difference; false also when it cannot run (see below), and the caller then compares buckets.
 *
 * Why: nearly every judged run has no difference, and the reference fold emits its outputs in
 * order of (split, offset) (referenceFold.ts, "Order": splits in id order, offsets ascending, for
 * a single source or split ids ascending over sources). So the expected records of an identity
 * are a run found by binary search, and no bucket, Map or array is built per record. Expected
 * records not in that order (or with a NaN split or offset, which no order holds) are not
 * judged here.
 */
function allMatch(
  expected: readonly StreamRecord[],
  actual: readonly CommittedRecord[],
  project: (value: unknown) => unknown,
): boolean {
  const n = expected.length;
  if (n !== actual.length) return false;
  for (let i = 1; i < n; i++) {
    const p = expected[i - 1] as StreamRecord;
    const r = expected[i] as StreamRecord;
    if (!(p.split < r.split || (p.split === r.split && p.offset <= r.offset))) return false;
  }
  const paired = new Uint8Array(n);
  for (let j = 0; j < actual.length; j++) {
    const a = actual[j] as CommittedRecord;
    // The first expected record at or after (a.split, a.offset).
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = expected[mid] as StreamRecord;
      if (e.split < a.split || (e.split === a.split && e.offset < a.offset)) lo = mid + 1;
      else hi = mid;
    }
    let value: unknown;
    let projected = false;
    let found = false;
    for (let i = lo; i < n; i++) {
      const e = expected[i] as StreamRecord;
      if (e.split !== a.split || e.offset !== a.offset) break;
      if (paired[i] === 1 || e.tag !== a.tag) continue;
      if (!projected) {
        value = project(a.value);
        projected = true;
      }
      if (canonicalEqual(project(e.value), value)) {
        paired[i] = 1;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  // As many expected records as committed ones, each committed one paired with its own.
  return true;
}

/** The comparison by buckets of identity, with every difference listed. */
function compareBuckets(
  options: CompareOutputsOptions,
  project: (value: unknown) => unknown,
): OutputComparison {
  const maxListed = options.maxListed ?? 100;
  // Buckets by split, then offset, then tag (the parts of recordIdentity): no identity string per
  // record, since tags name operators and are long. Iterated in order of first appearance.
  const index = new Map<number, Map<number, Bucket[]>>();
  const buckets: Bucket[] = [];
  const bucket = (r: StreamRecord): Bucket => {
    let byOffset = index.get(r.split);
    if (byOffset === undefined) { byOffset = new Map(); index.set(r.split, byOffset); }
    let list = byOffset.get(r.offset);
    if (list === undefined) { list = []; byOffset.set(r.offset, list); }
    for (let i = 0; i < list.length; i++) {
      const b = list[i] as Bucket;
      if (b.first.tag === r.tag) return b;
    }
    const b: Bucket = { first: r, expected: [], actual: [] };
    list.push(b);
    buckets.push(b);
    return b;
  };
  for (const r of options.expected) bucket(r).expected.push(r);
  for (const r of options.actual) bucket(r).actual.push(r);

  const missing: MissingRecord[] = [];
  const surplus: SurplusRecord[] = [];
  const mismatches: ValueMismatch[] = [];
  for (const b of buckets) {
    if (b.expected.length === 1 && b.actual.length === 1) {
      // The common case, without the copies below: one record expected, one committed.
      const e = b.expected[0] as StreamRecord;
      const a = b.actual[0] as CommittedRecord;
      if (!canonicalEqual(project(e.value), project(a.value))) {
        const id = recordIdentity(b.first);
        mismatches.push({ id, expected: e.value, actual: a.value, attempt: a.attempt, subtask: a.subtask });
      }
      continue;
    }
    const id = recordIdentity(b.first);
    const leftExpected = [...b.expected];
    const leftActual: CommittedRecord[] = [];
    for (const a of b.actual) {
      const value = project(a.value);
      const i = leftExpected.findIndex((e) => canonicalEqual(project(e.value), value));
      if (i >= 0) leftExpected.splice(i, 1); else leftActual.push(a);
    }
    const paired = Math.min(leftExpected.length, leftActual.length);
    for (let i = 0; i < paired; i++) {
      const e = leftExpected[i] as StreamRecord;
      const a = leftActual[i] as CommittedRecord;
      const { attempt, subtask } = a;
      mismatches.push({ id, expected: e.value, actual: a.value, attempt, subtask });
    }
    for (const e of leftExpected.slice(paired)) missing.push({ id, value: e.value });
    for (const { value, attempt, subtask } of leftActual.slice(paired)) {
      surplus.push({ id, value, attempt, subtask });
    }
  }
  return {
    missing: missing.slice(0, maxListed),
    missingCount: missing.length,
    surplus: surplus.slice(0, maxListed),
    surplusCount: surplus.length,
    valueMismatches: mismatches.slice(0, maxListed),
    valueMismatchCount: mismatches.length,
  };
}
