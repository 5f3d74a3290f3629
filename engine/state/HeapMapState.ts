/**
 * MapState on the heap keyed backend: one `Map<userKey, value>` per key, copied on write when a
 * running snapshot shares it.
 *
 * @see org.apache.flink.runtime.state.heap.HeapMapState
 *
 * Invariants: no empty map is stored (removing the last entry clears the key, as Flink does);
 * user values are deep-frozen; the stored Map never escapes to callers.
 */
import { assert } from '../util/assert.ts';
import { deepFreeze } from './deepFreeze.ts';
import type { KeyedStateContext } from './KeyedStateContext.ts';
import type { MapState, MapStateKey } from './State.ts';

const copyMap = <K, V>(m: Map<K, V>): Map<K, V> => new Map(m);

/** MapState of state `name` for the context's current key. */
export class HeapMapState<UK extends MapStateKey, UV> implements MapState<UK, UV> {
  constructor(private readonly ctx: KeyedStateContext, readonly name: string) {}

  get(userKey: UK): UV | undefined {
    return this.current()?.get(userKey);
  }

  put(userKey: UK, value: UV): void {
    this.putAll([[userKey, value]]);
  }

  putAll(entries: Iterable<readonly [UK, UV]>): void {
    const list = [...entries];
    if (list.length === 0) {
      return;
    }
    for (const [, value] of list) {
      assert(value !== undefined, () => `MapState ${this.name}: put of undefined`);
      deepFreeze(value);
    }
    const { store } = this.ctx;
    const kg = this.ctx.currentKeyGroup();
    const key = this.ctx.currentKey();
    const map = store.mutableData<Map<UK, UV>>(kg, this.name, key, copyMap);
    if (map === undefined) {
      store.putEntry(kg, this.name, key, new Map(list));
      return;
    }
    for (const [userKey, value] of list) {
      map.set(userKey, value);
    }
  }

  remove(userKey: UK): void {
    if (this.current()?.has(userKey) !== true) {
      return;
    }
    const { store } = this.ctx;
    const kg = this.ctx.currentKeyGroup();
    const key = this.ctx.currentKey();
    const map = store.mutableData<Map<UK, UV>>(kg, this.name, key, copyMap) as Map<UK, UV>;
    map.delete(userKey);
    if (map.size === 0) {
      store.removeEntry(kg, this.name, key);
    }
  }

  contains(userKey: UK): boolean {
    return this.current()?.has(userKey) ?? false;
  }

  entries(): [UK, UV][] {
    return [...(this.current() ?? [])];
  }

  keys(): UK[] {
    return [...(this.current()?.keys() ?? [])];
  }

  values(): UV[] {
    return [...(this.current()?.values() ?? [])];
  }

  isEmpty(): boolean {
    return this.current() === undefined;
  }

  clear(): void {
    this.ctx.store.removeEntry(this.ctx.currentKeyGroup(), this.name, this.ctx.currentKey());
  }

  private current(): ReadonlyMap<UK, UV> | undefined {
    const entry = this.ctx.store.getEntry(this.ctx.currentKeyGroup(), this.name,
      this.ctx.currentKey());
    return entry?.data as ReadonlyMap<UK, UV> | undefined;
  }
}
