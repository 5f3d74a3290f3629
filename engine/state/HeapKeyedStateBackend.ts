/**
 * The heap keyed state backend of one keyed operator subtask: state partitioned by key group
 * over the subtask's KeyGroupRange, value/map/list state handles on a current key, processing-
 * time timers in the keyed state, copy-on-write snapshots and restore (also rescaled: only the
 * key groups inside this backend's range are taken).
 *
 * @see org.apache.flink.runtime.state.heap.HeapKeyedStateBackend
 * @see org.apache.flink.runtime.state.heap.HeapRestoreOperation
 * @see org.apache.flink.runtime.state.AbstractKeyedStateBackend#setCurrentKey
 *
 * Invariants: every stored key lies in the key group computed from it with `maxParallelism`,
 * and every such key group lies in `keyGroupRange`; all keys of a backend have one JS type (a
 * backend has one key serializer in Flink); a state name is registered with one kind; restore
 * happens at most once, before any write.
 */
import { assert } from '../util/assert.ts';
import { CopyOnWriteKeyGroupStore } from './CopyOnWriteKeyGroupStore.ts';
import { HeapInternalTimerService } from './HeapInternalTimerService.ts';
import { HeapListState } from './HeapListState.ts';
import { HeapMapState } from './HeapMapState.ts';
import { HeapValueState } from './HeapValueState.ts';
import type { KeyGroupRange } from './KeyGroupRange.ts';
import { UPPER_BOUND_MAX_PARALLELISM, assignToKeyGroup } from './KeyGroupRangeAssignment.ts';
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';
import type { KeyedStateContext } from './KeyedStateContext.ts';
import { KeyedStateSnapshot } from './KeyedStateSnapshot.ts';
import type { StateKeyType } from './KeyedStateSnapshot.ts';
import type { ListState, MapState, MapStateKey, ValueState } from './State.ts';
import type { StateDescriptor, StateKind } from './StateDescriptor.ts';

/** Constructor options of {@link HeapKeyedStateBackend}. */
export interface HeapKeyedStateBackendOptions {
  /** The key groups this subtask owns (from computeKeyGroupRangeForOperatorIndex). */
  readonly keyGroupRange: KeyGroupRange;
  /** The operator's max parallelism, i.e. the number of key groups. */
  readonly maxParallelism: number;
  /** Planted bug {@link RESTORE_HANDLE_REPLACES} is on. */
  readonly restoreHandleReplaces?: boolean;
}

/**
 * Planted bug 24 (FLINK-4731): on a restore from several snapshots (a scale-in hands a subtask
 * the key groups of several old subtasks), each snapshot replaces what the previous ones restored
 * instead of adding to it, so only the last one's key groups survive.
 */
export const RESTORE_HANDLE_REPLACES = 'restore-handle-replaces';

type AnyHandle = HeapValueState<unknown> | HeapMapState<MapStateKey, unknown>
  | HeapListState<unknown>;

/** Heap keyed state backend; see the file comment. */
export class HeapKeyedStateBackend implements KeyedStateContext {
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly store: CopyOnWriteKeyGroupStore;
  /** Processing-time timers of this backend's keys. */
  readonly timerService: HeapInternalTimerService;

  private key: PartitionKey | undefined = undefined;
  private keyGroup = -1;
  private keyType: StateKeyType | undefined = undefined;
  private readonly descriptors = new Map<string, StateDescriptor>();
  private readonly handles = new Map<string, AnyHandle>();
  private restored = false;
  private readonly restoreHandleReplaces: boolean;
  private lastHandle: { name: string; kind: StateKind; handle: AnyHandle } | undefined;

  constructor(options: HeapKeyedStateBackendOptions) {
    const { keyGroupRange, maxParallelism } = options;
    assert(Number.isInteger(maxParallelism) && maxParallelism > 0
      && maxParallelism <= UPPER_BOUND_MAX_PARALLELISM,
    () => `maxParallelism out of bounds: ${maxParallelism}`);
    assert(!keyGroupRange.isEmpty() && keyGroupRange.endKeyGroup < maxParallelism,
      () => `${keyGroupRange.toString()} not inside [0, ${maxParallelism})`);
    this.keyGroupRange = keyGroupRange;
    this.maxParallelism = maxParallelism;
    this.restoreHandleReplaces = options.restoreHandleReplaces ?? false;
    this.store = new CopyOnWriteKeyGroupStore(keyGroupRange);
    this.timerService = new HeapInternalTimerService(this);
  }

  /**
   * Makes `key` current for the state handles and timers.
   * @throws AssertionError when the key's group is outside this backend's range (the record was
   *   routed to the wrong subtask) or its type differs from the backend's keys.
   */
  setCurrentKey(key: PartitionKey): void {
    const keyGroup = assignToKeyGroup(key, this.maxParallelism);
    if (!this.keyGroupRange.contains(keyGroup)) {
      assert(false, `key ${String(key)} is in key group ${keyGroup}, outside ${
        this.keyGroupRange.toString()}`);
    }
    const type = typeof key as StateKeyType;
    if (this.keyType !== type) this.checkKeyType(type);
    this.key = key;
    this.keyGroup = keyGroup;
  }

  /** The current key. @throws AssertionError when none is set. */
  currentKey(): PartitionKey {
    assert(this.key !== undefined, 'no current key set');
    return this.key;
  }

  /** The current key's key group. @throws AssertionError when no key is set. */
  currentKeyGroup(): number {
    assert(this.key !== undefined, 'no current key set');
    return this.keyGroup;
  }

  /** ValueState `name` (registered on first use); the same handle for the same name. */
  getValueState<V>(name: string): ValueState<V> {
    return this.handle(name, 'value') as HeapValueState<V>;
  }

  /** MapState `name` (registered on first use). */
  getMapState<UK extends MapStateKey, UV>(name: string): MapState<UK, UV> {
    return this.handle(name, 'map') as unknown as HeapMapState<UK, UV>;
  }

  /** ListState `name` (registered on first use). */
  getListState<V>(name: string): ListState<V> {
    return this.handle(name, 'list') as HeapListState<V>;
  }

  /** The registered states, in registration order. */
  getRegisteredStateDescriptors(): StateDescriptor[] {
    return [...this.descriptors.values()];
  }

  /** Keys holding state `name`, by ascending key group then insertion order. */
  getKeys(name: string): PartitionKey[] {
    const out: PartitionKey[] = [];
    for (const keyGroup of this.store.keyGroupsWithData()) {
      out.push(...(this.store.entriesOf(keyGroup, name)?.keys() ?? []));
    }
    return out;
  }

  /**
   * The synchronous part of a snapshot: a frozen view of all state and timers, in
   * O(key groups with data x states). Later writes never change it; release it once it is no
   * longer read (see {@link KeyedStateSnapshot.release}).
   */
  snapshot(): KeyedStateSnapshot {
    const { version, groups } = this.store.snapshot();
    return new KeyedStateSnapshot({
      keyGroupRange: this.keyGroupRange,
      maxParallelism: this.maxParallelism,
      stateDescriptors: this.getRegisteredStateDescriptors(),
      keyType: this.keyType,
      groups,
      lease: { released: false, onRelease: () => this.store.releaseSnapshot(version) },
    });
  }

  /**
   * Restores from the keyed snapshots assigned to this subtask (possibly taken at another
   * parallelism): registers their states and copies exactly the key groups inside this
   * backend's range, with their timers. The snapshots are only read, never shared.
   * @throws AssertionError when called twice or after a write, on a max parallelism mismatch,
   *   on a key group present in two snapshots, or on conflicting state kinds or key types.
   */
  restore(snapshots: readonly KeyedStateSnapshot[]): void {
    assert(!this.restored && this.store.isEmpty(), 'restore must come first and only once');
    this.restored = true;
    // Planted bug 24 (FLINK-4731): the last snapshot replaces the others' key groups.
    const restoring = this.restoreHandleReplaces ? snapshots.slice(-1) : snapshots;
    for (const snapshot of restoring) {
      assert(snapshot.maxParallelism === this.maxParallelism,
        () => `max parallelism changed: ${snapshot.maxParallelism} -> ${this.maxParallelism}`);
      for (const d of snapshot.stateDescriptors) {
        this.register(d.name, d.kind);
      }
      if (snapshot.keyType !== undefined) {
        this.checkKeyType(snapshot.keyType);
      }
      for (const keyGroup of snapshot.keyGroupIds()) {
        if (this.keyGroupRange.contains(keyGroup)) {
          this.restoreKeyGroup(snapshot, keyGroup);
        }
      }
    }
  }

  /** Asserts the invariants of the file comment and of the store and timers. */
  checkInvariants(): void {
    this.store.checkInvariants();
    this.timerService.checkInvariants();
    for (const keyGroup of this.store.keyGroupsWithData()) {
      for (const d of this.descriptors.values()) {
        for (const [key, entry] of this.store.entriesOf(keyGroup, d.name) ?? []) {
          this.checkStoredKey(key, keyGroup);
          assert(entry.data !== undefined, 'undefined value stored');
          if (d.kind !== 'value') {
            assert((entry.data as { size?: number; length?: number })[
              d.kind === 'map' ? 'size' : 'length'] !== 0, () => `empty ${d.kind} stored`);
          }
        }
      }
      for (const timer of this.store.timersOf(keyGroup).values()) {
        this.checkStoredKey(timer.key, keyGroup);
      }
    }
  }

  private checkStoredKey(key: PartitionKey, keyGroup: number): void {
    assert(assignToKeyGroup(key, this.maxParallelism) === keyGroup,
      () => `key ${String(key)} stored in wrong key group ${keyGroup}`);
    assert(typeof key === this.keyType, () => `key ${String(key)} of type ${typeof key}`);
  }

  private restoreKeyGroup(snapshot: KeyedStateSnapshot, keyGroup: number): void {
    const data = snapshot.getKeyGroup(keyGroup);
    assert(data !== undefined, 'listed key group without data');
    assert(this.store.timersOf(keyGroup).size === 0
      && [...this.descriptors.keys()].every((n) => this.store.entriesOf(keyGroup, n) === undefined),
    () => `key group ${keyGroup} restored from two snapshots`);
    for (const [name, entries] of data.states) {
      const kind = this.descriptors.get(name)?.kind;
      assert(kind !== undefined, () => `snapshot state ${name} has no descriptor`);
      for (const [key, entry] of entries) {
        this.store.putEntry(keyGroup, name, key, copyContainer(kind, entry.data));
      }
    }
    for (const timer of data.timers.values()) {
      this.timerService.restoreTimer(keyGroup, timer);
    }
  }

  private handle(name: string, kind: StateKind): AnyHandle {
    // Functions ask for their state on every record: the last handle is answered at once.
    const last = this.lastHandle;
    if (last !== undefined && last.name === name && last.kind === kind) return last.handle;
    this.register(name, kind);
    let handle = this.handles.get(name);
    if (handle === undefined) {
      handle = kind === 'value' ? new HeapValueState<unknown>(this, name)
        : kind === 'map' ? new HeapMapState<MapStateKey, unknown>(this, name)
          : new HeapListState<unknown>(this, name);
      this.handles.set(name, handle);
    }
    this.lastHandle = { name, kind, handle };
    return handle;
  }

  private register(name: string, kind: StateKind): void {
    const existing = this.descriptors.get(name);
    assert(existing === undefined || existing.kind === kind,
      () => `state ${name} registered as ${existing?.kind ?? '?'}, requested as ${kind}`);
    if (existing === undefined) {
      this.descriptors.set(name, Object.freeze({ name, kind }));
    }
  }

  private checkKeyType(type: StateKeyType): void {
    assert(this.keyType === undefined || this.keyType === type,
      () => `backend keys are ${this.keyType ?? '?'}, got a ${type} key`);
    this.keyType = type;
  }
}

/** A private copy of a restored value: containers are copied, frozen plain data is shared. */
function copyContainer(kind: StateKind, data: unknown): unknown {
  switch (kind) {
    case 'value': return data;
    case 'map': return new Map(data as Map<unknown, unknown>);
    case 'list': return (data as unknown[]).slice();
  }
}
