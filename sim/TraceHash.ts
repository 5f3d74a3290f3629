/**
 * TraceHash: an incremental 64-bit hash (two independent 32-bit mixes) over a stream of numbers
 * and strings, for determinism checks. It depends only on the values folded in and their order:
 * no object identity, no iteration of unordered collections, the same in every process.
 * Strings are folded as their content hash ({@link stringHash}).
 */

const FNV_PRIME = 16777619;
const TWO_32 = 4294967296;
/** The string-hash cache has 2^(32 - SLOT_SHIFT) slots. */
const SLOT_SHIFT = 20;
const CACHE_SLOTS = 2 ** (32 - SLOT_SHIFT);

// The string-hash cache is shared by every TraceHash of the process, on purpose: a string's
// hash is a pure function of its content, so the cache cannot change any hash, and a world per
// run (explore, the benches) would otherwise start from an empty cache and pay for hashing and
// storing each of its few hundred strings again. It is direct-mapped and bounded: a slot holds
// the last string that hashed to it (compared by content, so an equal string built anew hits).
const cachedStrings: (string | undefined)[] = new Array<string | undefined>(CACHE_SLOTS).fill(undefined);
const cachedHashes = new Int32Array(CACHE_SLOTS);

/** The content hash of `s`: FNV-1a over its UTF-16 code units, then xor its length. */
export function stringHash(s: string): number {
  const n = s.length;
  if (n <= 4) return fnv1a(s);
  // The slot comes from the length and six characters (a full hash would cost what the hash
  // itself costs): two near the start, two in the middle and the last two, since strings of one
  // family ("chk-1/v0#0@0/gen-source", "chk-2/...", "e0:v0#1@0/0") differ in a few places.
  const m = n >> 1;
  const mix = n ^ (s.charCodeAt(1) << 3) ^ (s.charCodeAt(3) << 7) ^ (s.charCodeAt(m) << 11)
    ^ (s.charCodeAt(m + 1) << 15) ^ (s.charCodeAt(n - 2) << 19) ^ (s.charCodeAt(n - 1) << 23);
  const slot = Math.imul(mix, 0x9e3779b1) >>> SLOT_SHIFT;
  if (cachedStrings[slot] === s) return cachedHashes[slot] as number;
  const h = fnv1a(s);
  cachedStrings[slot] = s;
  cachedHashes[slot] = h;
  return h;
}

function fnv1a(s: string): number {
  const n = s.length;
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h ^ n;
}

export class TraceHash {
  private h1 = 0x811c9dc5;
  private h2 = 0x9747b28c;
  /** Folds one 32-bit word. */
  word(w: number): void {
    this.h1 = Math.imul(this.h1 ^ w, FNV_PRIME);
    let h2 = Math.imul(this.h2 ^ w, 0x5bd1e995);
    h2 ^= h2 >>> 15;
    this.h2 = Math.imul(h2, 0x27d4eb2d);
  }

  /**
   * Folds a number: small non-negative integers as one word, other safe integers as a tag and
   * two words, other numbers as a tag and their text's hash.
   */
  number(n: number): void {
    if ((n | 0) === n && n >= 0) {
      this.word(n);
    } else if (Number.isSafeInteger(n)) {
      this.word(0x7e7e7e7e);
      this.word(n | 0);
      this.word((n / TWO_32) | 0);
    } else {
      this.word(0x7f7f7f7f);
      this.word(stringHash(String(n)));
    }
  }

  /** Folds a string (by its cached content hash). */
  string(s: string): void {
    this.word(stringHash(s));
  }

  /** The content hash of `s` ({@link stringHash}). */
  stringHash(s: string): number {
    return stringHash(s);
  }

  /** The hash so far, 16 hex digits. */
  hex(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }
}
