/**
 * ListState on the heap keyed backend: one array per key, copied on write when a running
 * snapshot shares it.
 *
 * @see org.apache.flink.runtime.state.heap.HeapListState
 *
 * Invariants: no empty list is stored (updating to `[]` clears the key, as Flink does); elements
 * are deep-frozen and never undefined; the stored array never escapes to callers.
 */
import { assert } from '../util/assert.ts';
import { deepFreeze } from './deepFreeze.ts';
import type { KeyedStateContext } from './KeyedStateContext.ts';
import type { ListState } from './State.ts';

const copyArray = <V>(a: V[]): V[] => a.slice();

/** ListState of state `name` for the context's current key. */
export class HeapListState<V> implements ListState<V> {
  constructor(private readonly ctx: KeyedStateContext, readonly name: string) {}

  get(): V[] {
    const entry = this.ctx.store.getEntry(this.ctx.currentKeyGroup(), this.name,
      this.ctx.currentKey());
    return entry === undefined ? [] : (entry.data as readonly V[]).slice();
  }

  add(value: V): void {
    this.addAll([value]);
  }

  addAll(values: readonly V[]): void {
    if (values.length === 0) {
      return;
    }
    this.checkElements(values);
    const { store } = this.ctx;
    const kg = this.ctx.currentKeyGroup();
    const key = this.ctx.currentKey();
    const list = store.mutableData<V[]>(kg, this.name, key, copyArray);
    if (list === undefined) {
      store.putEntry(kg, this.name, key, values.slice());
      return;
    }
    list.push(...values);
  }

  update(values: readonly V[]): void {
    if (values.length === 0) {
      this.clear();
      return;
    }
    this.checkElements(values);
    this.ctx.store.putEntry(this.ctx.currentKeyGroup(), this.name, this.ctx.currentKey(),
      values.slice());
  }

  clear(): void {
    this.ctx.store.removeEntry(this.ctx.currentKeyGroup(), this.name, this.ctx.currentKey());
  }

  private checkElements(values: readonly V[]): void {
    for (const v of values) {
      assert(v !== undefined, () => `ListState ${this.name}: undefined element`);
      deepFreeze(v);
    }
  }
}
