/**
 * surplusAndMissing: how many committed records are copies beyond what the reference fold
 * produces, and how many of the fold's records were never committed, counted per record
 * identity `(split, offset, tag)` (the identity compareOutputs and the at-least-once oracle's
 * duplicatedInputs compare). Values are not compared: a copy with another value is still a copy
 * of that identity, and the oracles judge values.
 *
 * Why two counts and not one difference: committed minus expected nets surplus against loss, so
 * a run that duplicates one record and loses another counts no duplicate at all (and a run that
 * only loses records, none). Surplus and missing are summed over identities separately.
 */

/** The parts of a record's identity (a StreamRecord, a CommittedRecord). */
export interface RecordIdentity {
  readonly split: number;
  readonly offset: number;
  readonly tag: string;
}

/** Result of {@link surplusAndMissing}. */
export interface SurplusAndMissing {
  /** Committed copies above the expected count, summed over identities. */
  readonly surplus: number;
  /** Expected copies above the committed count, summed over identities. */
  readonly missing: number;
}

/**
 * Counts, per identity, committed copies above `expected`'s count (surplus) and below it
 * (missing). `expected` is F(all input)'s outputs (properties/referenceFold.ts), never anything
 * the engine computed.
 */
export function surplusAndMissing(
  expected: readonly RecordIdentity[], committed: readonly RecordIdentity[],
): SurplusAndMissing {
  // Expected count minus committed count per identity. Split and offset are numbers, so the
  // first two `:` of the key end them and any tag after is unambiguous.
  const balance = new Map<string, number>();
  const key = (r: RecordIdentity): string => `${r.split}:${r.offset}:${r.tag}`;
  for (const r of expected) {
    const k = key(r);
    balance.set(k, (balance.get(k) ?? 0) + 1);
  }
  for (const r of committed) {
    const k = key(r);
    balance.set(k, (balance.get(k) ?? 0) - 1);
  }
  let surplus = 0;
  let missing = 0;
  for (const n of balance.values()) {
    if (n > 0) missing += n;
    else surplus -= n;
  }
  return { surplus, missing };
}
