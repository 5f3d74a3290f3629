/**
 * Remembers which splits the enumerator handed to which subtask, and since which checkpoint, so
 * that a subtask that fails and restores from checkpoint `r` gets back into the enumerator
 * exactly the splits assigned to it after `r` (reference 5.3). Assignments made before a
 * coordinator checkpoint `c` reach the reader before its barrier `c` (the event valve, 1.6), so
 * they are part of the reader's own checkpoint-`c` state and must not be returned.
 *
 * @see org.apache.flink.runtime.source.coordinator.SplitAssignmentTracker
 *
 * Invariants: checkpoint ids given to `onCheckpoint` strictly increase, so those in `byCheckpoint`
 * do too in insertion order; a split id
 * appears at most once over all records of one subtask; no empty list is kept.
 */
import { assert } from '../util/assert.ts';
import type { SourceSplit } from './SourceEvent.ts';

/** Splits per subtask, subtasks ascending. */
type Assignment = Map<number, SourceSplit[]>;

/** The split assignment bookkeeping of one SourceCoordinator; see the file comment. */
export class SplitAssignmentTracker {
  /** Checkpoint id -> assignments made before that coordinator checkpoint; ids ascending. */
  private readonly byCheckpoint = new Map<number, Assignment>();
  /** Assignments made since the latest coordinator checkpoint. */
  private uncheckpointed: Assignment = new Map();
  /** The latest id given to {@link onCheckpoint} (ids never repeat, even across resets). */
  private lastCheckpointId = -Infinity;

  /**
   * Records that `splits` went to `subtask` (they are uncheckpointed until {@link onCheckpoint}).
   * @see SplitAssignmentTracker#recordSplitAssignment
   */
  recordSplitAssignment(subtask: number, splits: readonly SourceSplit[]): void {
    if (splits.length === 0) return;
    const list = this.uncheckpointed.get(subtask) ?? [];
    list.push(...splits);
    if (!this.uncheckpointed.has(subtask)) {
      this.uncheckpointed = withKey(this.uncheckpointed, subtask, list);
    }
  }

  /**
   * Files the uncheckpointed assignments under `checkpointId` and clears them; called when the
   * coordinator is snapshotted for that checkpoint.
   * @throws AssertionError when `checkpointId` is not above every id already filed.
   */
  onCheckpoint(checkpointId: number): void {
    assert(checkpointId > this.lastCheckpointId,
      () => `tracker checkpoint ${checkpointId} not above ${this.lastCheckpointId}`);
    this.lastCheckpointId = checkpointId;
    if (this.uncheckpointed.size > 0) this.byCheckpoint.set(checkpointId, this.uncheckpointed);
    this.uncheckpointed = new Map();
  }

  /** Drops every assignment filed under a checkpoint id ≤ `checkpointId`. */
  onCheckpointComplete(checkpointId: number): void {
    for (const id of [...this.byCheckpoint.keys()]) {
      if (id <= checkpointId) this.byCheckpoint.delete(id);
    }
  }

  /**
   * Removes and returns the splits assigned to `subtask` after checkpoint `restoredCheckpointId`
   * (-1: no checkpoint, so everything still recorded): those filed under any checkpoint id above
   * it, in checkpoint order, then the uncheckpointed ones, in assignment order.
   * @see SplitAssignmentTracker#getAndRemoveUncheckpointedAssignment
   */
  getAndRemoveUncheckpointedAssignment(
    subtask: number,
    restoredCheckpointId: number,
  ): SourceSplit[] {
    const out: SourceSplit[] = [];
    for (const [id, assignment] of [...this.byCheckpoint]) {
      if (id <= restoredCheckpointId) continue;
      const splits = assignment.get(subtask);
      if (splits === undefined) continue;
      out.push(...splits);
      assignment.delete(subtask);
      if (assignment.size === 0) this.byCheckpoint.delete(id);
    }
    const pending = this.uncheckpointed.get(subtask);
    if (pending !== undefined) {
      out.push(...pending);
      this.uncheckpointed.delete(subtask);
    }
    return out;
  }

  /** Forgets everything (the coordinator was reset to a checkpoint). */
  clear(): void {
    this.byCheckpoint.clear();
    this.uncheckpointed = new Map();
  }

  /**
   * A plain-JSON view for tests and traces: `{ byCheckpoint: [[c, [[subtask, splitIds]]]],
   * uncheckpointed: [[subtask, splitIds]] }`.
   */
  toJson(): {
    byCheckpoint: [number, [number, number[]][]][];
    uncheckpointed: [number, number[]][];
  } {
    const flat = (a: Assignment): [number, number[]][] =>
      [...a].map(([subtask, splits]) => [subtask, splits.map((s) => s.splitId)]);
    return {
      byCheckpoint: [...this.byCheckpoint].map(([id, a]) => [id, flat(a)]),
      uncheckpointed: flat(this.uncheckpointed),
    };
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    let last = -Infinity;
    const seen = new Map<number, Set<number>>();
    const check = (a: Assignment): void => {
      for (const [subtask, splits] of a) {
        assert(splits.length > 0, () => `empty assignment list kept for subtask ${subtask}`);
        const ids = seen.get(subtask) ?? new Set<number>();
        seen.set(subtask, ids);
        for (const s of splits) {
          assert(!ids.has(s.splitId),
            () => `split ${s.splitId} recorded twice for subtask ${subtask}`);
          ids.add(s.splitId);
        }
      }
    };
    for (const [id, a] of this.byCheckpoint) {
      assert(id > last, 'tracker checkpoint ids not increasing');
      assert(a.size > 0, () => `empty assignment kept under checkpoint ${id}`);
      last = id;
      check(a);
    }
    check(this.uncheckpointed);
  }
}

/** `map` with `key` set, keeping the subtasks in ascending order. */
function withKey(map: Assignment, key: number, value: SourceSplit[]): Assignment {
  const entries = [...map, [key, value] as [number, SourceSplit[]]];
  entries.sort((a, b) => a[0] - b[0]);
  return new Map(entries);
}
