/**
 * The operator (non-keyed) state backend of one subtask: split-distribute list state, union list
 * state and broadcast map state; a snapshot is a frozen copy in an {@link OperatorStateHandle};
 * restore takes the handles the repartitioner assigned to this subtask.
 *
 * @see org.apache.flink.runtime.state.DefaultOperatorStateBackend
 * @see org.apache.flink.runtime.state.OperatorStateRestoreOperation
 * @see org.apache.flink.runtime.state.DefaultOperatorStateBackendSnapshotStrategy
 *
 * Invariants: a state name is registered once with one mode (list and broadcast names share one
 * namespace, as they share one handle map); a snapshot copies everything synchronously (as Flink
 * deep-copies operator state in the sync phase), so later writes never reach it; broadcast
 * state is snapshotted as its `[key, value]` pairs, one element per entry.
 */
import { assert } from '../util/assert.ts';
import { HeapBroadcastState } from './HeapBroadcastState.ts';
import { operatorStateHandle } from './OperatorStateHandle.ts';
import type {
  OperatorStateHandle, OperatorStateMode, StateMetaInfo,
} from './OperatorStateHandle.ts';
import { PartitionableListState } from './PartitionableListState.ts';
import type { ListState, MapState, MapStateKey } from './State.ts';

/** Decoded operator state: list states as arrays, broadcast states as objects. */
export type OperatorStateJson = Record<string, unknown[] | Record<string, unknown>>;

type AnyState = PartitionableListState<unknown> | HeapBroadcastState<MapStateKey, unknown>;

/** Operator state backend of one subtask; see the file comment. */
export class DefaultOperatorStateBackend {
  /** Registered states by name, in registration (or restore) order. */
  private readonly states = new Map<string, AnyState>();
  private restored = false;

  /** Split-distribute list state `name` (Flink `getListState`): redistributed in chunks. */
  getListState<E>(name: string): ListState<E> {
    return this.listState(name, 'SPLIT_DISTRIBUTE') as PartitionableListState<E>;
  }

  /** Union list state `name`: on restore every subtask gets every subtask's elements. */
  getUnionListState<E>(name: string): ListState<E> {
    return this.listState(name, 'UNION') as PartitionableListState<E>;
  }

  /** Broadcast map state `name`: on restore subtask i gets old subtask `i mod count`'s copy. */
  getBroadcastState<K extends MapStateKey, V>(name: string): MapState<K, V> {
    const state = this.states.get(name);
    if (state === undefined) {
      const created = new HeapBroadcastState<K, V>(name);
      this.states.set(name, created as unknown as AnyState);
      return created;
    }
    assert(state instanceof HeapBroadcastState,
      () => `operator state ${name} is ${modeOf(state)}, requested as BROADCAST`);
    return state as unknown as HeapBroadcastState<K, V>;
  }

  /** The registered state names with their modes, in registration order. */
  getRegisteredStates(): { name: string; mode: OperatorStateMode }[] {
    return [...this.states].map(([name, s]) => ({ name, mode: modeOf(s) }));
  }

  /**
   * A frozen copy of all registered states as one handle named `handleId` (unique per
   * checkpoint and subtask), or null when no state is registered (Flink's empty result).
   */
  snapshot(handleId: string): OperatorStateHandle | null {
    if (this.states.size === 0) {
      return null;
    }
    const entries: [string, StateMetaInfo<unknown>][] = [];
    for (const [name, s] of this.states) {
      entries.push([name, {
        mode: modeOf(s),
        elements: s instanceof PartitionableListState ? s.snapshotElements() : s.snapshotEntries(),
      }]);
    }
    return operatorStateHandle(handleId, entries);
  }

  /**
   * Restores from the handles assigned to this subtask: list elements are appended in handle
   * order, broadcast entries put in handle order (a later copy of a key wins).
   * @throws AssertionError when called twice or after a state was registered, or when a name
   *   appears with two modes.
   */
  restore(handles: readonly OperatorStateHandle[]): void {
    assert(!this.restored && this.states.size === 0, 'restore must come first and only once');
    this.restored = true;
    for (const handle of handles) {
      for (const [name, meta] of handle.states) {
        if (meta.mode === 'BROADCAST') {
          const state = this.getBroadcastState<MapStateKey, unknown>(name);
          for (const pair of meta.elements as readonly (readonly [MapStateKey, unknown])[]) {
            state.put(pair[0], pair[1]);
          }
        } else {
          this.listState(name, meta.mode).addAll(meta.elements);
        }
      }
    }
  }

  /** The state as plain JSON: `{ [name]: elements[] | { [String(key)]: value } }`. */
  decode(): OperatorStateJson {
    const out: OperatorStateJson = {};
    for (const [name, s] of this.states) {
      if (s instanceof PartitionableListState) {
        out[name] = s.get();
      } else {
        out[name] = Object.fromEntries(s.entries().map(([k, v]) => [String(k), v]));
      }
    }
    return out;
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    for (const [name, s] of this.states) {
      assert(s.name === name, () => `state registered as ${name} is named ${s.name}`);
    }
  }

  private listState(name: string, mode: 'SPLIT_DISTRIBUTE' | 'UNION'):
    PartitionableListState<unknown> {
    const state = this.states.get(name);
    if (state === undefined) {
      const created = new PartitionableListState<unknown>(name, mode);
      this.states.set(name, created);
      return created;
    }
    assert(state instanceof PartitionableListState && state.mode === mode,
      () => `operator state ${name} is ${modeOf(state)}, requested as ${mode}`);
    return state;
  }
}

function modeOf(state: AnyState): OperatorStateMode {
  return state instanceof PartitionableListState ? state.mode : 'BROADCAST';
}
