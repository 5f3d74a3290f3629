/**
 * What a heap keyed state handle needs from its backend: the copy-on-write store and the current
 * key with its key group. Keeping it an interface lets the handles live in their own files.
 *
 * @see org.apache.flink.runtime.state.heap.AbstractHeapState (its access to the StateTable)
 */
import type { CopyOnWriteKeyGroupStore } from './CopyOnWriteKeyGroupStore.ts';
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';

/** The backend side of a keyed state handle. */
export interface KeyedStateContext {
  readonly store: CopyOnWriteKeyGroupStore;
  /** The current key. @throws AssertionError when none is set. */
  currentKey(): PartitionKey;
  /** The key group of the current key. @throws AssertionError when no key is set. */
  currentKeyGroup(): number;
}
