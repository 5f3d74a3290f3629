/**
 * The storage under the heap keyed backend: per key group, per state name, a map from key to an
 * entry, plus the key group's timers; with Flink-style versioned copy-on-write so a snapshot is
 * a cheap frozen view.
 *
 * @see org.apache.flink.runtime.state.heap.CopyOnWriteStateMap (versions, copy on write)
 * @see org.apache.flink.runtime.state.heap.StateTable (one map per key group)
 *
 * How it works. `stateVersion` grows by one per snapshot; a snapshot registers its version as
 * running and captures references to the current maps (O(key groups with data x states)). Every
 * map ("cell") and every entry records the version it was created at. A write to a cell whose
 * version is below the highest running snapshot version first copies the cell's map; a mutation
 * of a container entry (a MapState's map, a ListState's array) below that version first copies
 * the container into a new entry. So the maps and containers a snapshot references are never
 * written again, and a snapshot sees exactly the state at its sync point. Releasing a snapshot
 * lowers the required version to the highest other running one (0 when none). Plain values
 * written with `putValue` (ValueState) are deep-frozen by the next snapshot, before it captures
 * them, so a snapshot is immutable all the way down without a freeze per write.
 *
 * Invariants: every cell and entry version is <= `stateVersion`; every entry pending a freeze
 * is listed for the next snapshot to freeze; the live index holds exactly the
 * entries of the cells, by state name and key; `highestRequiredSnapshotVersion`
 * is the maximum running version or 0; no empty cell map and no empty key group is kept; every
 * key group held lies in the store's range.
 */
import { assert } from '../util/assert.ts';
import { deepFreeze } from './deepFreeze.ts';
import type { KeyGroupRange } from './KeyGroupRange.ts';
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';
import type { ScheduledTimer } from './InternalTimer.ts';

/**
 * A stored state value with the version it was written at. Read-only to everyone but the store,
 * which rewrites an entry in place only while no running snapshot can reference it (its version
 * is at least the highest running snapshot version), so a snapshot never sees a later write.
 */
export interface StateEntry {
  readonly data: unknown;
  readonly version: number;
}

/** The store's own, writable view of a {@link StateEntry}. */
interface MutableStateEntry {
  data: unknown;
  version: number;
  /** Written by {@link CopyOnWriteKeyGroupStore.putValue}, listed to be deep-frozen. */
  freezePending: boolean;
}

/** What a snapshot captures of one key group: frozen maps that later writes never touch. */
export interface KeyGroupSnapshotData {
  readonly keyGroup: number;
  /** State name -> key -> entry; only non-empty states. */
  readonly states: ReadonlyMap<string, ReadonlyMap<PartitionKey, StateEntry>>;
  /** Timer id -> timer; empty when the key group has no timers. */
  readonly timers: ReadonlyMap<string, ScheduledTimer>;
}

interface Cell<K, V> {
  map: Map<K, V>;
  version: number;
}

interface KeyGroupCells {
  readonly states: Map<string, Cell<PartitionKey, StateEntry>>;
  timers: Cell<string, ScheduledTimer> | undefined;
}

const EMPTY_TIMERS: ReadonlyMap<string, ScheduledTimer> = new Map();

/** Copy-on-write key-group-partitioned storage; see the file comment. */
export class CopyOnWriteKeyGroupStore {
  private stateVersion = 0;
  private highestRequiredSnapshotVersion = 0;
  private readonly runningSnapshotVersions = new Set<number>();
  /** Indexed by `keyGroup - range.startKeyGroup`. */
  private readonly groups: (KeyGroupCells | undefined)[];
  /**
   * Per state name, the live entry of every key, whatever its key group (a key lies in exactly
   * one): a read is one small lookup and one keyed lookup, rather than key group -> state ->
   * key through per-key-group maps scattered over the heap.
   */
  private readonly liveEntries = new Map<string, Map<PartitionKey, MutableStateEntry>>();
  /**
   * Entries written by putValue since the last snapshot: it deep-freezes the data of those
   * still pending (a removed entry, or one rewritten by putEntry, no longer is).
   */
  private toFreeze: MutableStateEntry[] = [];
  /**
   * The entry the last getEntry found or put wrote, for (keyGroup, name, key): a function reads
   * its value and then updates it, and the update then needs no lookups. Cleared by every
   * removal; an entry is never moved out of its live map otherwise (a copied map shares it).
   */
  private lastEntry: MutableStateEntry | undefined;
  private lastKeyGroup = -1;
  private lastName = '';
  private lastKey: PartitionKey | undefined;

  constructor(readonly keyGroupRange: KeyGroupRange) {
    this.groups = new Array<KeyGroupCells | undefined>(keyGroupRange.size()).fill(undefined);
  }

  /**
   * The entry of `key` in state `name` of `keyGroup`, or undefined. `keyGroup` must be the key's
   * key group (a key's entries lie in its own key group only), as for every method here.
   */
  getEntry(keyGroup: number, name: string, key: PartitionKey): StateEntry | undefined {
    this.checkRange(keyGroup);
    const entry = this.liveEntries.get(name)?.get(key);
    if (entry !== undefined) this.remember(keyGroup, name, key, entry);
    return entry;
  }

  /** Sets the data of `key` in state `name` (a new entry at the current version). */
  putEntry(keyGroup: number, name: string, key: PartitionKey, data: unknown): void {
    this.put(keyGroup, name, key, data, false);
  }

  /**
   * Sets the plain-data value of `key` in state `name` like {@link putEntry}, and deep-freezes
   * it no later than the next {@link snapshot}: every value a snapshot references is frozen, so
   * later writes never change the snapshot, while values overwritten before any snapshot saw
   * them are never frozen at all (freezing is the costly part of a ValueState update).
   */
  putValue(keyGroup: number, name: string, key: PartitionKey, data: unknown): void {
    this.put(keyGroup, name, key, data, true);
  }

  private put(keyGroup: number, name: string, key: PartitionKey, data: unknown,
    freezeLater: boolean): void {
    // The per-record path: an update right after the read of the same key reuses the entry the
    // read found, when no running snapshot can share it (see below).
    const last = this.lastEntry;
    if (last !== undefined && key === this.lastKey && keyGroup === this.lastKeyGroup
      && name === this.lastName && last.version >= this.highestRequiredSnapshotVersion) {
      this.rewrite(last, data, freezeLater);
      return;
    }
    const group = this.groupForWrite(keyGroup);
    let cell = group.states.get(name);
    if (cell === undefined) {
      cell = { map: new Map(), version: this.stateVersion };
      group.states.set(name, cell);
    }
    const map = this.ownedMap(cell);
    // The per-record path: an entry no running snapshot can share is rewritten in place, which
    // saves an allocation per state update; otherwise a new entry leaves the shared one alone.
    let entry = map.get(key) as MutableStateEntry | undefined;
    if (entry !== undefined && entry.version >= this.highestRequiredSnapshotVersion) {
      this.rewrite(entry, data, freezeLater);
    } else {
      entry = { data, version: this.stateVersion, freezePending: freezeLater };
      if (freezeLater) this.toFreeze.push(entry);
      map.set(key, entry);
      this.setLive(name, key, entry);
    }
    this.remember(keyGroup, name, key, entry);
  }

  /** Rewrites an entry no running snapshot shares, in place. */
  private rewrite(entry: MutableStateEntry, data: unknown, freezeLater: boolean): void {
    entry.data = data;
    entry.version = this.stateVersion;
    if (!freezeLater) {
      // Data that is not frozen lazily is the caller's (a container, or frozen restored data).
      entry.freezePending = false;
    } else if (!entry.freezePending) {
      entry.freezePending = true;
      this.toFreeze.push(entry);
    }
  }

  private setLive(name: string, key: PartitionKey, entry: MutableStateEntry): void {
    let live = this.liveEntries.get(name);
    if (live === undefined) {
      live = new Map();
      this.liveEntries.set(name, live);
    }
    live.set(key, entry);
  }

  private remember(keyGroup: number, name: string, key: PartitionKey,
    entry: MutableStateEntry): void {
    this.lastEntry = entry;
    this.lastKeyGroup = keyGroup;
    this.lastName = name;
    this.lastKey = key;
  }

  /** Removes `key` from state `name`; drops the cell and key group when they become empty. */
  removeEntry(keyGroup: number, name: string, key: PartitionKey): void {
    this.lastEntry = undefined;
    const group = this.group(keyGroup);
    const cell = group?.states.get(name);
    if (group === undefined || cell === undefined || !cell.map.has(key)) {
      return;
    }
    const map = this.ownedMap(cell);
    // A pending entry is never shared with a snapshot: it may be written.
    const removed = map.get(key) as MutableStateEntry;
    if (removed.freezePending) removed.freezePending = false;
    map.delete(key);
    this.liveEntries.get(name)?.delete(key);
    if (map.size === 0) {
      group.states.delete(name);
      this.dropIfEmpty(keyGroup, group);
    }
  }

  /**
   * The container data of an existing entry, safe to mutate in place: if a running snapshot may
   * share the entry, `copy` makes a private copy first (stored as a new entry).
   * @returns undefined when there is no entry.
   */
  mutableData<T>(keyGroup: number, name: string, key: PartitionKey, copy: (data: T) => T):
    T | undefined {
    const cell = this.group(keyGroup)?.states.get(name);
    const entry = cell?.map.get(key);
    if (cell === undefined || entry === undefined) {
      return undefined;
    }
    if (entry.version >= this.highestRequiredSnapshotVersion) {
      return entry.data as T;
    }
    const data = copy(entry.data as T);
    const fresh: MutableStateEntry = { data, version: this.stateVersion, freezePending: false };
    this.ownedMap(cell).set(key, fresh);
    this.setLive(name, key, fresh);
    this.lastEntry = undefined;
    return data;
  }

  /** The entries of state `name` in `keyGroup` (read only), or undefined when none. */
  entriesOf(keyGroup: number, name: string): ReadonlyMap<PartitionKey, StateEntry> | undefined {
    return this.group(keyGroup)?.states.get(name)?.map;
  }

  /** The timers of `keyGroup` (read only). */
  timersOf(keyGroup: number): ReadonlyMap<string, ScheduledTimer> {
    return this.group(keyGroup)?.timers?.map ?? EMPTY_TIMERS;
  }

  /** Adds or replaces the timer with id `id` in `keyGroup`. */
  putTimer(keyGroup: number, id: string, timer: ScheduledTimer): void {
    const group = this.groupForWrite(keyGroup);
    group.timers ??= { map: new Map(), version: this.stateVersion };
    this.ownedMap(group.timers).set(id, timer);
  }

  /** Removes the timer with id `id` from `keyGroup`, if present. */
  removeTimer(keyGroup: number, id: string): void {
    const group = this.group(keyGroup);
    const cell = group?.timers;
    if (group === undefined || cell === undefined || !cell.map.has(id)) {
      return;
    }
    const map = this.ownedMap(cell);
    map.delete(id);
    if (map.size === 0) {
      group.timers = undefined;
      this.dropIfEmpty(keyGroup, group);
    }
  }

  /** True when no key group holds state or timers. */
  isEmpty(): boolean {
    return this.groups.every((g) => g === undefined);
  }

  /** The key groups holding state or timers, ascending. */
  keyGroupsWithData(): number[] {
    const out: number[] = [];
    this.groups.forEach((g, i) => {
      if (g !== undefined) {
        out.push(this.keyGroupRange.startKeyGroup + i);
      }
    });
    return out;
  }

  /**
   * Starts a snapshot: bumps the version, registers it as running and captures the current maps.
   * @returns the snapshot version (pass it to {@link releaseSnapshot}) and per-key-group views,
   *   ascending by key group.
   */
  snapshot(): { version: number; groups: Map<number, KeyGroupSnapshotData> } {
    for (const entry of this.toFreeze) {
      // Removed entries and containers written over a pending value are no longer pending.
      if (!entry.freezePending) continue;
      deepFreeze(entry.data);
      entry.freezePending = false;
    }
    this.toFreeze = [];
    this.stateVersion++;
    const version = this.stateVersion;
    this.runningSnapshotVersions.add(version);
    this.highestRequiredSnapshotVersion = version;
    const groups = new Map<number, KeyGroupSnapshotData>();
    const start = this.keyGroupRange.startKeyGroup;
    for (let i = 0; i < this.groups.length; i++) {
      const cells = this.groups[i];
      if (cells === undefined) continue;
      const keyGroup = start + i;
      const states = new Map<string, ReadonlyMap<PartitionKey, StateEntry>>();
      for (const [name, cell] of cells.states) {
        states.set(name, cell.map);
      }
      groups.set(keyGroup, { keyGroup, states, timers: cells.timers?.map ?? EMPTY_TIMERS });
    }
    return { version, groups };
  }

  /** Ends the snapshot `version`; its maps may be written in place afterwards. Idempotent. */
  releaseSnapshot(version: number): void {
    if (!this.runningSnapshotVersions.delete(version)) {
      return;
    }
    let highest = 0;
    for (const v of this.runningSnapshotVersions) {
      highest = Math.max(highest, v);
    }
    this.highestRequiredSnapshotVersion = highest;
  }

  /** Number of snapshots not yet released. */
  get runningSnapshots(): number {
    return this.runningSnapshotVersions.size;
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    const listed = new Set(this.toFreeze);
    const liveCount = new Map<string, number>();
    let highest = 0;
    for (const v of this.runningSnapshotVersions) {
      assert(v <= this.stateVersion, 'running snapshot version from the future');
      highest = Math.max(highest, v);
    }
    assert(highest === this.highestRequiredSnapshotVersion,
      () => `highestRequiredSnapshotVersion ${this.highestRequiredSnapshotVersion} != ${highest}`);
    this.groups.forEach((group, i) => {
      if (group === undefined) {
        return;
      }
      const keyGroup = this.keyGroupRange.startKeyGroup + i;
      assert(group.states.size > 0 || group.timers !== undefined,
        () => `empty key group ${keyGroup} kept`);
      for (const [name, cell] of group.states) {
        assert(cell.map.size > 0, () => `empty state ${name} kept in key group ${keyGroup}`);
        assert(cell.version <= this.stateVersion, 'cell version from the future');
        const live = this.liveEntries.get(name);
        for (const [key, entry] of cell.map) {
          assert(live?.get(key) === entry, () => `live index misses key ${String(key)} of ${name}`);
          liveCount.set(name, (liveCount.get(name) ?? 0) + 1);
          assert(entry.version <= this.stateVersion, 'entry version from the future');
          assert(!(entry as MutableStateEntry).freezePending || listed.has(entry as MutableStateEntry),
            'entry pending a freeze is not listed');
        }
      }
      if (group.timers !== undefined) {
        assert(group.timers.map.size > 0, () => `empty timer map kept in key group ${keyGroup}`);
        assert(group.timers.version <= this.stateVersion, 'timer cell version from the future');
      }
    });
    for (const [name, live] of this.liveEntries) {
      assert(live.size === (liveCount.get(name) ?? 0),
        () => `live index of ${name} holds ${live.size} keys, the cells ${liveCount.get(name) ?? 0}`);
    }
  }

  private group(keyGroup: number): KeyGroupCells | undefined {
    this.checkRange(keyGroup);
    return this.groups[keyGroup - this.keyGroupRange.startKeyGroup];
  }

  private checkRange(keyGroup: number): void {
    const range = this.keyGroupRange;
    if (!range.contains(keyGroup)) {
      assert(false, `key group ${keyGroup} outside ${range.toString()}`);
    }
  }

  private groupForWrite(keyGroup: number): KeyGroupCells {
    let group = this.group(keyGroup);
    if (group === undefined) {
      group = { states: new Map(), timers: undefined };
      this.groups[keyGroup - this.keyGroupRange.startKeyGroup] = group;
    }
    return group;
  }

  private dropIfEmpty(keyGroup: number, group: KeyGroupCells): void {
    if (group.states.size === 0 && group.timers === undefined) {
      this.groups[keyGroup - this.keyGroupRange.startKeyGroup] = undefined;
    }
  }

  /** The cell's map, copied first when a running snapshot may reference it. */
  private ownedMap<K, V>(cell: Cell<K, V>): Map<K, V> {
    if (cell.version < this.highestRequiredSnapshotVersion) {
      cell.map = new Map(cell.map);
      cell.version = this.stateVersion;
    }
    return cell.map;
  }
}
