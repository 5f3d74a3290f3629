/**
 * ValueState on the heap keyed backend: one value per key.
 *
 * Values are plain data shared between the live backend and its snapshots, so the store
 * deep-freezes every value a snapshot takes (CopyOnWriteKeyGroupStore.putValue): a snapshot can
 * never change through a later write or a mutation of the value. A value overwritten before any
 * snapshot took it is never frozen, which saves the freeze on the per-record path. Mutating a
 * value returned by `value()` without `update` is, as in Flink's heap backend, a user error; it
 * throws once a snapshot took the value.
 *
 * @see org.apache.flink.runtime.state.heap.HeapValueState
 *
 * Invariants: a stored value is never undefined (clearing removes the entry); a value a snapshot
 * references is deep-frozen.
 */
import { assert } from '../util/assert.ts';
import type { KeyedStateContext } from './KeyedStateContext.ts';
import type { ValueState } from './State.ts';

/** ValueState of state `name` for the context's current key. */
export class HeapValueState<V> implements ValueState<V> {
  constructor(private readonly ctx: KeyedStateContext, readonly name: string) {}

  value(): V | undefined {
    const kg = this.ctx.currentKeyGroup();
    return this.ctx.store.getEntry(kg, this.name, this.ctx.currentKey())?.data as V | undefined;
  }

  update(value: V): void {
    // Per record: a lazy-message arrow here would allocate a closure (and context) per call.
    if (value === undefined) assert(false, `ValueState ${this.name}: update(undefined); use clear()`);
    const kg = this.ctx.currentKeyGroup();
    this.ctx.store.putValue(kg, this.name, this.ctx.currentKey(), value);
  }

  clear(): void {
    this.ctx.store.removeEntry(this.ctx.currentKeyGroup(), this.name, this.ctx.currentKey());
  }
}
