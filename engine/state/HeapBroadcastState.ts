/**
 * Operator broadcast state: one map per subtask, meant to be identical on every subtask.
 *
 * @see org.apache.flink.runtime.state.HeapBroadcastState
 *
 * Invariants: values are deep-frozen and never undefined; the map never escapes to callers.
 */
import { assert } from '../util/assert.ts';
import { deepFreeze } from './deepFreeze.ts';
import type { MapState, MapStateKey } from './State.ts';

/** A subtask's broadcast state `name`. */
export class HeapBroadcastState<K extends MapStateKey, V> implements MapState<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly name: string) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  put(key: K, value: V): void {
    assert(value !== undefined, () => `BroadcastState ${this.name}: put of undefined`);
    this.map.set(key, deepFreeze(value));
  }

  putAll(entries: Iterable<readonly [K, V]>): void {
    for (const [k, v] of entries) {
      this.put(k, v);
    }
  }

  remove(key: K): void {
    this.map.delete(key);
  }

  contains(key: K): boolean {
    return this.map.has(key);
  }

  entries(): [K, V][] {
    return [...this.map];
  }

  keys(): K[] {
    return [...this.map.keys()];
  }

  values(): V[] {
    return [...this.map.values()];
  }

  isEmpty(): boolean {
    return this.map.size === 0;
  }

  clear(): void {
    this.map.clear();
  }

  /** Frozen `[key, value]` pairs in insertion order, for a snapshot. */
  snapshotEntries(): readonly (readonly [K, V])[] {
    return Object.freeze([...this.map].map((e) => Object.freeze(e)));
  }
}
