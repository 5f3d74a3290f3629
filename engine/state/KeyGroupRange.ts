/**
 * An inclusive, contiguous range of key groups `[startKeyGroup, endKeyGroup]`, or the empty range.
 * A keyed backend owns one range; a keyed snapshot covers one; rescaling intersects them.
 *
 * @see org.apache.flink.runtime.state.KeyGroupRange
 *
 * Invariants: a non-empty range has `0 <= startKeyGroup <= endKeyGroup`; the empty range is the
 * single value `{ startKeyGroup: 0, endKeyGroup: -1 }` ({@link KeyGroupRange.EMPTY}); instances
 * are immutable.
 */
import { checkArgument } from './IllegalArgumentError.ts';

/** An immutable inclusive range of key-group ids. */
export class KeyGroupRange implements Iterable<number> {
  /** The range with no key groups (start 0, end -1). */
  static readonly EMPTY: KeyGroupRange = Object.freeze(Object.assign(
    Object.create(KeyGroupRange.prototype) as KeyGroupRange,
    { startKeyGroup: 0, endKeyGroup: -1 },
  ));

  readonly startKeyGroup: number;
  readonly endKeyGroup: number;

  /**
   * A non-empty range; use {@link KeyGroupRange.of} when the range may be empty.
   * @throws IllegalArgumentError when `startKeyGroup < 0` or `startKeyGroup > endKeyGroup`, as
   *   Flink's constructor does.
   */
  constructor(startKeyGroup: number, endKeyGroup: number) {
    checkArgument(Number.isInteger(startKeyGroup) && Number.isInteger(endKeyGroup),
      `Key group bounds must be integers: ${startKeyGroup}, ${endKeyGroup}`);
    checkArgument(startKeyGroup >= 0, `Start key group must be non-negative: ${startKeyGroup}`);
    checkArgument(startKeyGroup <= endKeyGroup,
      `Start key group ${startKeyGroup} is after end key group ${endKeyGroup}`);
    this.startKeyGroup = startKeyGroup;
    this.endKeyGroup = endKeyGroup;
    Object.freeze(this);
  }

  /**
   * `[startKeyGroup, endKeyGroup]`, or {@link KeyGroupRange.EMPTY} when `start > end`.
   * @throws IllegalArgumentError when `startKeyGroup < 0` and the range is not empty.
   */
  static of(startKeyGroup: number, endKeyGroup: number): KeyGroupRange {
    return startKeyGroup <= endKeyGroup
      ? new KeyGroupRange(startKeyGroup, endKeyGroup)
      : KeyGroupRange.EMPTY;
  }

  /** Number of key groups in the range (0 for the empty range). */
  getNumberOfKeyGroups(): number {
    return 1 + this.endKeyGroup - this.startKeyGroup;
  }

  /** Alias of {@link getNumberOfKeyGroups}. */
  size(): number {
    return this.getNumberOfKeyGroups();
  }

  /** True when the range holds no key group. */
  isEmpty(): boolean {
    return this.getNumberOfKeyGroups() === 0;
  }

  /** True when `keyGroup` lies in the range. */
  contains(keyGroup: number): boolean {
    return keyGroup >= this.startKeyGroup && keyGroup <= this.endKeyGroup;
  }

  /** The key groups in both ranges (possibly {@link KeyGroupRange.EMPTY}). */
  getIntersection(other: KeyGroupRange): KeyGroupRange {
    const start = Math.max(this.startKeyGroup, other.startKeyGroup);
    const end = Math.min(this.endKeyGroup, other.endKeyGroup);
    return start <= end ? new KeyGroupRange(start, end) : KeyGroupRange.EMPTY;
  }

  /** Alias of {@link getIntersection}. */
  intersection(other: KeyGroupRange): KeyGroupRange {
    return this.getIntersection(other);
  }

  /**
   * The `idx`-th key group of the range (0-based).
   * @throws IllegalArgumentError when `idx` is outside `[0, size)`.
   */
  getKeyGroupId(idx: number): number {
    checkArgument(Number.isInteger(idx) && idx >= 0 && idx < this.getNumberOfKeyGroups(),
      `Key group index out of bounds: ${idx}`);
    return this.startKeyGroup + idx;
  }

  /** Same bounds. */
  equals(other: KeyGroupRange): boolean {
    return this.startKeyGroup === other.startKeyGroup && this.endKeyGroup === other.endKeyGroup;
  }

  /** The key groups in ascending order. */
  *[Symbol.iterator](): Iterator<number> {
    for (let kg = this.startKeyGroup; kg <= this.endKeyGroup; kg++) {
      yield kg;
    }
  }

  /** `KeyGroupRange{startKeyGroup=a, endKeyGroup=b}`, as Flink prints it. */
  toString(): string {
    return `KeyGroupRange{startKeyGroup=${this.startKeyGroup}, endKeyGroup=${this.endKeyGroup}}`;
  }
}
