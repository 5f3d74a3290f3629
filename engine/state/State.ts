/**
 * The user-facing state primitives. Keyed state handles act on the backend's current key;
 * operator state handles act on the subtask's state. Values are immutable plain data (the
 * backends deep-freeze them on write) so a snapshot can share them without copying.
 *
 * @see org.apache.flink.api.common.state.ValueState
 * @see org.apache.flink.api.common.state.MapState
 * @see org.apache.flink.api.common.state.ListState
 * @see org.apache.flink.api.common.state.BroadcastState
 */

/** Keys of a MapState or BroadcastState: primitives, compared by value. */
export type MapStateKey = string | number | bigint;

/** A single value per key. */
export interface ValueState<V> {
  /** The current key's value, or undefined when unset. */
  value(): V | undefined;
  /** Sets the current key's value (must not be undefined; use {@link clear}). */
  update(value: V): void;
  /** Removes the current key's value. */
  clear(): void;
}

/** A map per key; a map that becomes empty is removed, as Flink's heap MapState does. */
export interface MapState<UK extends MapStateKey, UV> {
  get(userKey: UK): UV | undefined;
  put(userKey: UK, value: UV): void;
  putAll(entries: Iterable<readonly [UK, UV]>): void;
  remove(userKey: UK): void;
  contains(userKey: UK): boolean;
  /** A fresh array of the entries in insertion order. */
  entries(): [UK, UV][];
  /** A fresh array of the keys in insertion order. */
  keys(): UK[];
  /** A fresh array of the values in insertion order. */
  values(): UV[];
  isEmpty(): boolean;
  clear(): void;
}

/** A list per key (keyed) or per subtask (operator state). */
export interface ListState<V> {
  /** A fresh array of the elements (empty when unset). */
  get(): V[];
  add(value: V): void;
  /** Appends all `values`; an empty array changes nothing. */
  addAll(values: readonly V[]): void;
  /** Replaces the list; an empty array clears it. */
  update(values: readonly V[]): void;
  clear(): void;
}
