/**
 * TraceHash: an incremental 64-bit hash (two independent 32-bit mixes) over a stream of numbers
 * and strings, for determinism checks. It depends only on the values folded in and their order:
 * no object identity, no iteration of unordered collections, the same in every process.
 * Strings are folded as their content hash, cached per instance (interning without ids).
 */

const FNV_PRIME = 16777619;
const TWO_32 = 4294967296;
/** Slots of the string-hash cache in front of the map, minus one (a power of two minus one). */
const RECENT_MASK = 511;

export class TraceHash {
  private h1 = 0x811c9dc5;
  private h2 = 0x9747b28c;
  private readonly stringHashes = new Map<string, number>();
  /** The direct-mapped cache of {@link stringHash}: strings and their hashes by slot. */
  private readonly recentStrings: (string | undefined)[] =
    new Array<string | undefined>(RECENT_MASK + 1).fill(undefined);
  private readonly recentHashes = new Int32Array(RECENT_MASK + 1);

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
      this.word(this.stringHash(String(n)));
    }
  }

  /** Folds a string (by its cached content hash). */
  string(s: string): void {
    this.word(this.stringHash(s));
  }

  /** The content hash of `s` (FNV-1a over UTF-16 code units), cached. */
  stringHash(s: string): number {
    // A small direct-mapped cache in front of the map: the slot comes from the length and four
    // characters, and the same string objects recur, so a hit is mostly an identity compare,
    // several times cheaper than a hash-map lookup (thousands per run).
    const n = s.length;
    const mix = n < 2 ? n
      : Math.imul(Math.imul(n ^ s.charCodeAt(1), 31) ^ s.charCodeAt(n >> 1), 31)
        ^ s.charCodeAt(n - 1) ^ (s.charCodeAt(n - 2) << 5);
    const slot = mix & RECENT_MASK;
    if (this.recentStrings[slot] === s) return this.recentHashes[slot] as number;
    let h = this.stringHashes.get(s);
    if (h === undefined) {
      h = 0x811c9dc5;
      for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
      h ^= n;
      this.stringHashes.set(s, h);
    }
    this.recentStrings[slot] = s;
    this.recentHashes[slot] = h;
    return h;
  }

  /** The hash so far, 16 hex digits. */
  hex(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }
}
