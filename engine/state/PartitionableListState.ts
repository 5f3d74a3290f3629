/**
 * Operator list state (split-distribute or union): one list per subtask.
 *
 * @see org.apache.flink.runtime.state.PartitionableListState
 *
 * Invariants: elements are deep-frozen and never undefined; the array never escapes to callers.
 */
import { assert } from '../util/assert.ts';
import { deepFreeze } from './deepFreeze.ts';
import type { ListState } from './State.ts';

/** A subtask's list state `name` with redistribution `mode`. */
export class PartitionableListState<E> implements ListState<E> {
  private elements: E[] = [];

  constructor(readonly name: string, readonly mode: 'SPLIT_DISTRIBUTE' | 'UNION') {}

  get(): E[] {
    return this.elements.slice();
  }

  add(value: E): void {
    this.addAll([value]);
  }

  addAll(values: readonly E[]): void {
    for (const v of values) {
      assert(v !== undefined, () => `ListState ${this.name}: undefined element`);
      this.elements.push(deepFreeze(v));
    }
  }

  update(values: readonly E[]): void {
    this.elements = [];
    this.addAll(values);
  }

  clear(): void {
    this.elements = [];
  }

  /** A frozen copy of the elements, for a snapshot. */
  snapshotElements(): readonly E[] {
    return Object.freeze(this.elements.slice());
  }
}
