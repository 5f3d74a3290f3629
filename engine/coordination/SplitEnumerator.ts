/**
 * The split enumerator of a bounded split-based source: a pool of unassigned splits handed out
 * one per request, lowest split id first, to the reader that asked; a reader that asks when the
 * pool is empty is told that no more splits will come. Splits of a failed reader come back
 * through {@link SplitEnumerator.addSplitsBack} and are handed out again.
 *
 * @see org.apache.flink.api.connector.source.SplitEnumerator,
 *      org.apache.flink.connector.file.src.impl.StaticFileSplitEnumerator
 *
 * Invariants: the pool is sorted by split id and holds each split id at most once; every split id
 * of the source is either in the pool or in `assigned` (never both, never neither).
 */
import { assert } from '../util/assert.ts';
import type { SourceSplit } from './SourceEvent.ts';

/**
 * The enumerator's checkpoint (plain JSON). `unassigned`: the pool with each split's start
 * offset; `assigned`: ids handed to some reader and not back in the pool, ascending. An oracle
 * decodes a split's position as its reader-state offset if some reader holds it, else its pool
 * offset, else (assigned, held by nobody) its end.
 */
export interface SplitEnumeratorState {
  readonly unassigned: readonly SourceSplit[];
  readonly assigned: readonly number[];
}

/** What the enumerator decided for one split request. */
export type SplitRequestAnswer =
  | { readonly kind: 'assign'; readonly split: SourceSplit }
  | { readonly kind: 'no-more-splits' };

/** The enumerator; see the file comment. */
export class SplitEnumerator {
  private pool: SourceSplit[];
  private readonly assigned = new Set<number>();
  private readonly allSplitIds: readonly number[];

  /**
   * @param splitIds every split id of the source.
   * @param restored a checkpoint to start from; undefined: every split unassigned at offset 0.
   * @throws AssertionError when `restored` names a split the source does not have.
   */
  constructor(splitIds: readonly number[], restored?: SplitEnumeratorState) {
    this.allSplitIds = [...splitIds].sort((a, b) => a - b);
    if (restored === undefined) {
      this.pool = this.allSplitIds.map((splitId) => ({ splitId, offset: 0 }));
    } else {
      const known = new Set(this.allSplitIds);
      for (const s of restored.unassigned) {
        assert(known.has(s.splitId), () => `unknown split ${s.splitId}`);
      }
      for (const id of restored.assigned) {
        assert(known.has(id), () => `unknown split ${id}`);
        this.assigned.add(id);
      }
      this.pool = sortSplits(restored.unassigned.map((s) => ({ ...s })));
    }
    this.checkInvariants();
  }

  /**
   * Answers one split request of `subtask`: the lowest unassigned split, or no-more-splits when
   * the pool is empty.
   * @see SplitEnumerator#handleSplitRequest
   */
  handleSplitRequest(_subtask: number): SplitRequestAnswer {
    const split = this.pool.shift();
    if (split === undefined) return { kind: 'no-more-splits' };
    this.assigned.add(split.splitId);
    return { kind: 'assign', split };
  }

  /**
   * Takes back splits that were assigned to `subtask` after the checkpoint it restores from;
   * they are handed out again on later requests (by any reader).
   * @throws AssertionError when a split is already in the pool.
   */
  addSplitsBack(splits: readonly SourceSplit[], _subtask: number): void {
    for (const s of splits) {
      assert(!this.pool.some((p) => p.splitId === s.splitId),
        () => `split ${s.splitId} returned twice`);
      this.assigned.delete(s.splitId);
      this.pool.push({ splitId: s.splitId, offset: s.offset });
    }
    this.pool = sortSplits(this.pool);
  }

  /** The enumerator's checkpoint: a frozen copy of the pool and of the assigned ids. */
  snapshotState(): SplitEnumeratorState {
    return Object.freeze({
      unassigned: Object.freeze(this.pool.map((s) => Object.freeze({ ...s }))),
      assigned: Object.freeze([...this.assigned].sort((a, b) => a - b)),
    });
  }

  /** Number of splits still in the pool. */
  get unassignedCount(): number {
    return this.pool.length;
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    const inPool = new Set<number>();
    let last = -Infinity;
    for (const s of this.pool) {
      assert(s.splitId > last, 'enumerator pool not sorted by split id');
      last = s.splitId;
      inPool.add(s.splitId);
      assert(!this.assigned.has(s.splitId), () => `split ${s.splitId} both pooled and assigned`);
    }
    for (const id of this.allSplitIds) {
      assert(inPool.has(id) || this.assigned.has(id),
        () => `split ${id} neither pooled nor assigned`);
    }
  }
}

function sortSplits(splits: SourceSplit[]): SourceSplit[] {
  return splits.sort((a, b) => a.splitId - b.splitId);
}
