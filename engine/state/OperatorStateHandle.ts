/**
 * The snapshot of one subtask's operator (non-keyed) state: a named "file" (`handleId`, standing
 * for the StreamStateHandle it delegates to) and, per state name, the distribution mode and the
 * list of elements (Flink stores byte offsets of the elements; the simulation stores the
 * elements themselves). The repartitioner works on these handles whatever the element type.
 *
 * @see org.apache.flink.runtime.state.OperatorStateHandle (Mode, StateMetaInfo)
 * @see org.apache.flink.runtime.state.OperatorStreamStateHandle
 *
 * Invariants: handles made by {@link operatorStateHandle} are frozen, as are their maps' values
 * and element arrays; two handles with the same `handleId` denote the same underlying file.
 */

/** How a state is redistributed on restore. */
export type OperatorStateMode = 'SPLIT_DISTRIBUTE' | 'UNION' | 'BROADCAST';

/** One state's part of a handle: its mode and its elements (or offsets) in order. */
export interface StateMetaInfo<E> {
  readonly mode: OperatorStateMode;
  readonly elements: readonly E[];
}

/** A subtask's operator state snapshot (or a repartitioned piece of one). */
export interface OperatorStateHandle<E = unknown> {
  /** Identity of the underlying file; pieces of one file keep its id. */
  readonly handleId: string;
  /** State name -> mode and elements, in insertion order. */
  readonly states: ReadonlyMap<string, StateMetaInfo<E>>;
}

/**
 * A frozen handle named `handleId` over `states` (a record or entries, kept in that order).
 * Element arrays are copied and frozen unless frozen already; the elements themselves are shared.
 */
export function operatorStateHandle<E>(
  handleId: string,
  states:
    | Readonly<Record<string, StateMetaInfo<E>>>
    | Iterable<readonly [string, StateMetaInfo<E>]>,
): OperatorStateHandle<E> {
  const entries: Iterable<readonly [string, StateMetaInfo<E>]> =
    Symbol.iterator in states
      ? (states as Iterable<readonly [string, StateMetaInfo<E>]>)
      : Object.entries(states as Readonly<Record<string, StateMetaInfo<E>>>);
  const map = new Map<string, StateMetaInfo<E>>();
  for (const [name, meta] of entries) {
    // A frozen array cannot change, so it is shared rather than copied (a backend's snapshot
    // hands over frozen copies already).
    const elements = Object.isFrozen(meta.elements) ? meta.elements : Object.freeze(meta.elements.slice());
    map.set(name, Object.freeze({ mode: meta.mode, elements }));
  }
  return Object.freeze({ handleId, states: map });
}
