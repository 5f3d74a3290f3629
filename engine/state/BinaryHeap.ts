/**
 * A binary min-heap over a caller-supplied total order. Used for the processing-time timer queue.
 *
 * @see org.apache.flink.runtime.state.heap.HeapPriorityQueue (the role it plays)
 *
 * Invariants: for every index i > 0, `compare(items[parent(i)], items[i]) <= 0`. The comparator
 * must be total (ties broken on a unique id) so the pop order is deterministic.
 */
import { assert } from '../util/assert.ts';

/** A min-heap ordered by `compare` (negative when `a` comes first). */
export class BinaryHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  /** Number of items. */
  get size(): number {
    return this.items.length;
  }

  /** The smallest item, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds `item`; O(log n). */
  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as T;
      if (this.compare(p, item) <= 0) {
        break;
      }
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  /** Removes and returns the smallest item, or undefined when empty; O(log n). */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) {
      return top;
    }
    let i = 0;
    const n = items.length;
    while (true) {
      const left = 2 * i + 1;
      if (left >= n) {
        break;
      }
      const right = left + 1;
      let child = left;
      if (right < n && this.compare(items[right] as T, items[left] as T) < 0) {
        child = right;
      }
      const c = items[child] as T;
      if (this.compare(last, c) <= 0) {
        break;
      }
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }

  /** Keeps only the items for which `keep` is true; O(n). */
  retain(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    this.items.length = 0;
    for (const item of kept) {
      this.push(item);
    }
  }

  /** The items in unspecified (heap) order, for inspection. */
  toArray(): readonly T[] {
    return this.items.slice();
  }

  /** Asserts the heap property. */
  checkInvariants(): void {
    for (let i = 1; i < this.items.length; i++) {
      assert(this.compare(this.items[(i - 1) >> 1] as T, this.items[i] as T) <= 0,
        () => `heap order violated at ${i}`);
    }
  }
}
