/**
 * The state of one operator of one subtask, as the built-in operators snapshot it (the `data` of
 * an OperatorSnapshot) and as they restore from it (the argument of `initializeState`): managed
 * keyed state as key-group snapshots and managed operator state as operator state handles. A
 * snapshot holds at most one piece of each; a restore may get several (the state assignment hands
 * a subtask the pieces of every old subtask that overlap it; at unchanged parallelism, its own).
 *
 * @see org.apache.flink.runtime.checkpoint.OperatorSubtaskState
 *
 * Invariants: frozen; the keyed pieces share one max parallelism and have disjoint key groups.
 */
import { assert } from '../../util/assert.ts';
import {
  KeyedStateSnapshot, type KeyedStateJson, type TimerJson,
} from '../../state/KeyedStateSnapshot.ts';
import type { OperatorStateHandle } from '../../state/OperatorStateHandle.ts';

/** One operator's state of one subtask; see the file comment. */
export interface OperatorSubtaskState {
  readonly managedKeyedState: readonly KeyedStateSnapshot[];
  readonly managedOperatorState: readonly OperatorStateHandle[];
}

/** The state of a fresh operator. */
export const EMPTY_OPERATOR_SUBTASK_STATE: OperatorSubtaskState = Object.freeze({
  managedKeyedState: Object.freeze([]),
  managedOperatorState: Object.freeze([]),
});

/** A frozen OperatorSubtaskState of the given pieces. */
export function operatorSubtaskState(parts: {
  readonly managedKeyedState?: readonly KeyedStateSnapshot[];
  readonly managedOperatorState?: readonly OperatorStateHandle[];
}): OperatorSubtaskState {
  return Object.freeze({
    managedKeyedState: Object.freeze([...(parts.managedKeyedState ?? [])]),
    managedOperatorState: Object.freeze([...(parts.managedOperatorState ?? [])]),
  });
}

/**
 * Reads what `initializeState` got: undefined (fresh start) is the empty state; an
 * OperatorSubtaskState is taken as is; an array is a list of pieces, each a KeyedStateSnapshot,
 * an OperatorStateHandle or an OperatorSubtaskState, merged in order (so a state assignment may
 * hand over the old subtasks' states, or their keyed snapshots, as a plain list).
 * @throws AssertionError when `restored` or one of its pieces has another shape.
 */
export function readRestoredState(restored: unknown, operatorUid: string): OperatorSubtaskState {
  if (restored === undefined) return EMPTY_OPERATOR_SUBTASK_STATE;
  if (isOperatorSubtaskState(restored)) return restored;
  assert(Array.isArray(restored),
    () => `operator ${operatorUid} cannot restore from ${describe(restored)}`);
  const keyed: KeyedStateSnapshot[] = [];
  const operator: OperatorStateHandle[] = [];
  for (const piece of restored as readonly unknown[]) {
    if (piece instanceof KeyedStateSnapshot) keyed.push(piece);
    else if (isOperatorStateHandle(piece)) operator.push(piece);
    else {
      assert(isOperatorSubtaskState(piece),
        () => `operator ${operatorUid} cannot restore from piece ${describe(piece)}`);
      keyed.push(...piece.managedKeyedState);
      operator.push(...piece.managedOperatorState);
    }
  }
  return operatorSubtaskState({ managedKeyedState: keyed, managedOperatorState: operator });
}

/** True when `value` has the shape of an OperatorSubtaskState. */
export function isOperatorSubtaskState(value: unknown): value is OperatorSubtaskState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { managedKeyedState?: unknown; managedOperatorState?: unknown };
  return Array.isArray(v.managedKeyedState) && Array.isArray(v.managedOperatorState)
    && v.managedKeyedState.every((k) => k instanceof KeyedStateSnapshot);
}

/**
 * The keyed part decoded to plain JSON (the union of every piece): `state` is
 * `{ [stateName]: { [String(key)]: value } }`, `timers` sorted as KeyedStateSnapshot sorts them.
 */
export function decodeKeyedState(
  state: OperatorSubtaskState,
): { state: KeyedStateJson; timers: TimerJson[] } {
  const pieces = state.managedKeyedState;
  if (pieces.length === 1) {
    // What a snapshot holds (one piece): its decoding is already fresh, one object per state,
    // and its timers are already in this order, so neither is copied nor sorted again.
    const piece = pieces[0] as KeyedStateSnapshot;
    return { state: piece.decode(), timers: piece.decodeTimers() };
  }
  const out: KeyedStateJson = {};
  const timers: TimerJson[] = [];
  for (const piece of pieces) {
    for (const [name, entries] of Object.entries(piece.decode())) {
      // Into one fresh object per state: spreading would re-copy it for every piece.
      Object.assign((out[name] ??= {}), entries);
    }
    timers.push(...piece.decodeTimers());
  }
  timers.sort((a, b) => a.timestampUs - b.timestampUs || a.keyGroup - b.keyGroup
    || compare(a.key, b.key) || compare(a.namespace, b.namespace));
  return { state: out, timers };
}

/** The elements of operator list state `name` over every piece, in piece order. */
export function operatorStateElements<E>(state: OperatorSubtaskState, name: string): E[] {
  const out: E[] = [];
  for (const handle of state.managedOperatorState) {
    const meta = handle.states.get(name);
    if (meta !== undefined) out.push(...(meta.elements as readonly E[]));
  }
  return out;
}

function isOperatorStateHandle(value: unknown): value is OperatorStateHandle {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { handleId?: unknown; states?: unknown };
  return typeof v.handleId === 'string' && v.states instanceof Map;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
