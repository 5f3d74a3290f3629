/**
 * Key-group arithmetic, bit-exact with Flink: Java hash codes of keys, Flink's murmur hash, the
 * key group of a key, the operator index of a key group and the key-group range of an operator
 * index. The partitioner (keyBy routing), the keyed backends and the state assignment on restore
 * all use these functions so they can never disagree.
 *
 * @see org.apache.flink.runtime.state.KeyGroupRangeAssignment
 * @see org.apache.flink.util.MathUtils (murmurHash, bitMix, roundUpToPowerOfTwo)
 *
 * Invariants: every function is pure; 32-bit results are JS numbers in the Java `int` range;
 * for valid inputs `rangeFor(maxP, p, operatorIndex(maxP, p, kg))` contains `kg`.
 */
import { assert } from '../util/assert.ts';
import { checkArgument } from './IllegalArgumentError.ts';
import { KeyGroupRange } from './KeyGroupRange.ts';

/** A key the engine can partition: a Java String, Integer (32-bit) or Long (64-bit bigint). */
export type PartitionKey = string | number | bigint;

/** The largest max parallelism Flink allows (`Transformation.UPPER_BOUND_MAX_PARALLELISM`). */
export const UPPER_BOUND_MAX_PARALLELISM = 1 << 15;
/** The lower bound of the default max parallelism. */
export const DEFAULT_LOWER_BOUND_MAX_PARALLELISM = 1 << 7;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;

/**
 * The key's Java `hashCode()`: a string is a `java.lang.String` (hash over its UTF-16 code units,
 * which `charCodeAt` yields), a number a `java.lang.Integer` (the value itself), a bigint a
 * `java.lang.Long` (`(int)(v ^ (v >>> 32))`).
 * @returns a 32-bit signed integer.
 * @throws AssertionError when a number is not a 32-bit integer or a bigint is outside 64 bits.
 */
export function javaHashCode(key: PartitionKey): number {
  if (typeof key === 'string') {
    let h = 0;
    for (let i = 0; i < key.length; i++) {
      h = (Math.imul(31, h) + key.charCodeAt(i)) | 0;
    }
    return h;
  }
  if (typeof key === 'number') {
    assert(Number.isInteger(key) && key >= INT_MIN && key <= INT_MAX,
      () => `number key must be a 32-bit integer (java.lang.Integer): ${key}`);
    return key | 0;
  }
  assert(key >= LONG_MIN && key <= LONG_MAX,
    () => `bigint key must fit in 64 bits (java.lang.Long): ${key}`);
  const unsigned = BigInt.asUintN(64, key);
  return Number(BigInt.asIntN(32, unsigned ^ (unsigned >> 32n)));
}

/** Rotates a 32-bit int left by `bits`. */
function rotl32(x: number, bits: number): number {
  return (x << bits) | (x >>> (32 - bits));
}

/**
 * Murmur3's 32-bit finalizer on an int (Flink `MathUtils.bitMix`).
 * @returns a 32-bit signed integer.
 */
export function bitMix(input: number): number {
  let h = input | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * Flink's `MathUtils.murmurHash(int)`: one Murmur3 round over the 4-byte code, the finalizer, then
 * a non-negative result (`Integer.MIN_VALUE` maps to 0).
 * @param code a 32-bit int (other numbers are truncated to 32 bits as Java would cast).
 * @returns an integer in `[0, 2^31 - 1]`.
 */
export function murmurHash(code: number): number {
  let h = Math.imul(code | 0, 0xcc9e2d51);
  h = rotl32(h, 15);
  h = Math.imul(h, 0x1b873593);
  h = rotl32(h, 13);
  h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  h ^= 4;
  h = bitMix(h);
  if (h >= 0) {
    return h;
  }
  return h !== INT_MIN ? -h : 0;
}

/**
 * Flink's `MathUtils.roundUpToPowerOfTwo`: the smallest power of two `>= x` for `1 <= x <= 2^30`.
 */
export function roundUpToPowerOfTwo(x: number): number {
  let v = (x | 0) - 1;
  v |= v >>> 1;
  v |= v >>> 2;
  v |= v >>> 4;
  v |= v >>> 8;
  v |= v >>> 16;
  return v + 1;
}

/**
 * Throws unless `0 < parallelism <= 32768`, with Flink's message.
 * @throws IllegalArgumentError `Operator parallelism not within bounds: <p>`.
 */
export function checkParallelismPreconditions(parallelism: number): void {
  checkArgument(
    Number.isInteger(parallelism) && parallelism > 0 && parallelism <= UPPER_BOUND_MAX_PARALLELISM,
    `Operator parallelism not within bounds: ${parallelism}`,
  );
}

/**
 * The key group of a key hash: `murmurHash(hash) % maxParallelism`.
 * @param hash a 32-bit int (a key's {@link javaHashCode}).
 * @returns a key group in `[0, maxParallelism)`.
 * @throws AssertionError when `maxParallelism` is outside `[1, 32768]` (Flink does not check;
 *   it would divide by zero or hand out key groups no range covers).
 */
export function computeKeyGroupForKeyHash(hash: number, maxParallelism: number): number {
  // Per record (setCurrentKey): a lazy-message arrow would allocate a closure per call.
  if (!(Number.isInteger(maxParallelism) && maxParallelism > 0
    && maxParallelism <= UPPER_BOUND_MAX_PARALLELISM)) {
    assert(false, `maxParallelism out of bounds: ${maxParallelism}`);
  }
  return murmurHash(hash) % maxParallelism;
}

/**
 * The key group of a key: `murmurHash(javaHashCode(key)) % maxParallelism`.
 * @returns a key group in `[0, maxParallelism)`.
 * @throws AssertionError on a key outside its Java type or a bad `maxParallelism`.
 */
export function assignToKeyGroup(key: PartitionKey, maxParallelism: number): number {
  return computeKeyGroupForKeyHash(javaHashCode(key), maxParallelism);
}

/**
 * The operator index owning `keyGroup`: `floor(keyGroup * parallelism / maxParallelism)`.
 * Flink checks nothing here; out-of-range input is a programmer error in the simulation.
 * @returns an index in `[0, parallelism)`.
 * @throws AssertionError when `keyGroup` is outside `[0, maxParallelism)` or
 *   `0 < parallelism <= maxParallelism` does not hold.
 */
export function computeOperatorIndexForKeyGroup(
  maxParallelism: number,
  parallelism: number,
  keyGroup: number,
): number {
  assert(Number.isInteger(parallelism) && parallelism > 0 && parallelism <= maxParallelism
    && maxParallelism <= UPPER_BOUND_MAX_PARALLELISM,
  () => `bad parallelism ${parallelism} / maxParallelism ${maxParallelism}`);
  assert(Number.isInteger(keyGroup) && keyGroup >= 0 && keyGroup < maxParallelism,
    () => `key group ${keyGroup} outside [0, ${maxParallelism})`);
  // keyGroup * parallelism <= 2^30, so the product is exact as in Java int arithmetic.
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}

/**
 * The inclusive key-group range of `operatorIndex`:
 * `[ceil(i * maxP / p), floor(((i + 1) * maxP - 1) / p)]`.
 * @returns a non-empty {@link KeyGroupRange} with `startKeyGroup` / `endKeyGroup`.
 * @throws IllegalArgumentError when `parallelism` or `maxParallelism` is outside `(0, 32768]`
 *   or `maxParallelism < parallelism` (Flink's checks, in Flink's order).
 * @throws AssertionError when `operatorIndex` is outside `[0, parallelism)` (Flink does not
 *   check; the result would be a range no key group maps to).
 */
export function computeKeyGroupRangeForOperatorIndex(
  maxParallelism: number,
  parallelism: number,
  operatorIndex: number,
): KeyGroupRange {
  checkParallelismPreconditions(parallelism);
  checkParallelismPreconditions(maxParallelism);
  checkArgument(maxParallelism >= parallelism,
    'Maximum parallelism must not be smaller than parallelism.');
  assert(Number.isInteger(operatorIndex) && operatorIndex >= 0 && operatorIndex < parallelism,
    () => `operator index ${operatorIndex} outside [0, ${parallelism})`);
  const start = Math.floor((operatorIndex * maxParallelism + parallelism - 1) / parallelism);
  const end = Math.floor(((operatorIndex + 1) * maxParallelism - 1) / parallelism);
  return new KeyGroupRange(start, end);
}

/**
 * The operator index a key is routed to at `parallelism`.
 * @returns an index in `[0, parallelism)`.
 * @throws AssertionError as {@link assignToKeyGroup} and {@link computeOperatorIndexForKeyGroup}.
 */
export function assignKeyToParallelOperator(
  key: PartitionKey,
  maxParallelism: number,
  parallelism: number,
): number {
  return computeOperatorIndexForKeyGroup(maxParallelism, parallelism,
    assignToKeyGroup(key, maxParallelism));
}

/**
 * The max parallelism Flink derives when none is set:
 * `min(max(roundUpToPowerOfTwo(p + p / 2), 128), 32768)`.
 * @throws IllegalArgumentError when `parallelism` is outside `(0, 32768]`.
 */
export function computeDefaultMaxParallelism(parallelism: number): number {
  checkParallelismPreconditions(parallelism);
  return Math.min(
    Math.max(roundUpToPowerOfTwo(parallelism + Math.floor(parallelism / 2)),
      DEFAULT_LOWER_BOUND_MAX_PARALLELISM),
    UPPER_BOUND_MAX_PARALLELISM,
  );
}
