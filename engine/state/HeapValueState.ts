/**
 * ValueState on the heap keyed backend: one frozen value per key.
 *
 * @see org.apache.flink.runtime.state.heap.HeapValueState
 *
 * Invariants: a stored value is never undefined (clearing removes the entry) and is deep-frozen.
 */
import { assert } from '../util/assert.ts';
import { deepFreeze } from './deepFreeze.ts';
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
    this.ctx.store.putEntry(kg, this.name, this.ctx.currentKey(), deepFreeze(value));
  }

  clear(): void {
    this.ctx.store.removeEntry(this.ctx.currentKeyGroup(), this.name, this.ctx.currentKey());
  }
}
