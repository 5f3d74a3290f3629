/**
 * A frozen view of a heap keyed backend at its snapshot's sync point, partitioned by key group:
 * the simulation's KeyGroupsStateHandle. It is what a task acknowledges to the checkpoint
 * coordinator, what the state assignment clips on rescale ({@link getIntersection}), what a
 * backend restores from, and what the oracles decode to plain JSON.
 *
 * @see org.apache.flink.runtime.state.KeyGroupsStateHandle
 * @see org.apache.flink.runtime.state.KeyGroupRangeOffsets
 * @see org.apache.flink.runtime.state.heap.HeapSnapshotStrategy
 *
 * Invariants: the view never changes while its lease is held (the backend copies on write);
 * every key group with data lies in `keyGroupRange`; every key stored in key group `kg` has
 * `assignToKeyGroup(key, maxParallelism) === kg`; reading after {@link release} is an assertion
 * failure, because the backend may then write the shared maps in place.
 */
import { assert } from '../util/assert.ts';
import type { KeyGroupSnapshotData } from './CopyOnWriteKeyGroupStore.ts';
import type { KeyGroupRange } from './KeyGroupRange.ts';
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';
import type { StateDescriptor } from './StateDescriptor.ts';

/** Which JS type the keys of a backend have (one per backend, like Flink's key serializer). */
export type StateKeyType = 'string' | 'number' | 'bigint';

/** Decoded keyed state: state name -> key (as `String(key)`) -> value (map state: an object). */
export type KeyedStateJson = Record<string, Record<string, unknown>>;

/** A decoded timer. */
export interface TimerJson {
  readonly timestampUs: number;
  readonly key: string;
  readonly namespace: string;
  readonly keyGroup: number;
}

/** Shared by a snapshot and its intersections: releasing one releases the data of all. */
export interface SnapshotLease {
  released: boolean;
  readonly onRelease: () => void;
}

/** Constructor options of {@link KeyedStateSnapshot}. */
export interface KeyedStateSnapshotOptions {
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly stateDescriptors: readonly StateDescriptor[];
  readonly keyType: StateKeyType | undefined;
  /** Only key groups with data, ascending, all inside `keyGroupRange`. */
  readonly groups: ReadonlyMap<number, KeyGroupSnapshotData>;
  readonly lease: SnapshotLease;
}

/** A frozen, key-group-partitioned view of keyed state; see the file comment. */
export class KeyedStateSnapshot {
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly stateDescriptors: readonly StateDescriptor[];
  readonly keyType: StateKeyType | undefined;
  private readonly groups: ReadonlyMap<number, KeyGroupSnapshotData>;
  private readonly lease: SnapshotLease;

  constructor(options: KeyedStateSnapshotOptions) {
    this.keyGroupRange = options.keyGroupRange;
    this.maxParallelism = options.maxParallelism;
    this.stateDescriptors = Object.freeze(options.stateDescriptors.slice());
    this.keyType = options.keyType;
    this.groups = options.groups;
    this.lease = options.lease;
    for (const keyGroup of this.groups.keys()) {
      assert(this.keyGroupRange.contains(keyGroup),
        () => `snapshot key group ${keyGroup} outside ${this.keyGroupRange.toString()}`);
    }
  }

  /** True once {@link release} was called on this view or one sharing its lease. */
  isReleased(): boolean {
    return this.lease.released;
  }

  /**
   * Ends the snapshot: the backend may then write the shared maps in place, so this view must no
   * longer be read. Call it only once the data is materialized elsewhere or discarded; a
   * completed checkpoint that keeps this view as its state must not release it. Idempotent.
   */
  release(): void {
    if (!this.lease.released) {
      this.lease.released = true;
      this.lease.onRelease();
    }
  }

  /** The key groups with data, ascending. */
  keyGroupIds(): number[] {
    this.checkReadable();
    return [...this.groups.keys()];
  }

  /** The frozen data of one key group, or undefined when it holds nothing. */
  getKeyGroup(keyGroup: number): KeyGroupSnapshotData | undefined {
    this.checkReadable();
    return this.groups.get(keyGroup);
  }

  /**
   * The part of this snapshot inside `range`, clipped exactly by key group, sharing the data
   * and the lease; null when the key-group ranges do not overlap (as Flink's
   * `KeyGroupsStateHandle.getIntersection`).
   */
  getIntersection(range: KeyGroupRange): KeyedStateSnapshot | null {
    const clipped = this.keyGroupRange.getIntersection(range);
    if (clipped.isEmpty()) {
      return null;
    }
    this.checkReadable();
    const groups = new Map<number, KeyGroupSnapshotData>();
    for (const [keyGroup, data] of this.groups) {
      if (clipped.contains(keyGroup)) {
        groups.set(keyGroup, data);
      }
    }
    return new KeyedStateSnapshot({
      keyGroupRange: clipped,
      maxParallelism: this.maxParallelism,
      stateDescriptors: this.stateDescriptors,
      keyType: this.keyType,
      groups,
      lease: this.lease,
    });
  }

  /** Number of (state, key) entries over all key groups. */
  numberOfEntries(): number {
    this.checkReadable();
    let n = 0;
    for (const group of this.groups.values()) {
      for (const entries of group.states.values()) {
        n += entries.size;
      }
    }
    return n;
  }

  /**
   * The state as plain JSON: `{ [stateName]: { [String(key)]: value } }`, with every registered
   * state present (possibly `{}`); a MapState value becomes `{ [String(userKey)]: value }`, a
   * ListState value an array. Values are the stored (frozen) plain data.
   */
  decode(): KeyedStateJson {
    this.checkReadable();
    const out: KeyedStateJson = {};
    const descriptors = this.stateDescriptors;
    for (let i = 0; i < descriptors.length; i++) {
      out[(descriptors[i] as StateDescriptor).name] = {};
    }
    for (const group of this.groups.values()) {
      for (const [name, entries] of group.states) {
        const target = out[name] ?? (out[name] = {});
        const kind = kindOf(descriptors, name);
        for (const [key, entry] of entries) target[String(key)] = decodeValue(kind, entry.data);
      }
    }
    return out;
  }

  /** The timers, ordered by timestamp, key group, key and namespace. */
  decodeTimers(): TimerJson[] {
    this.checkReadable();
    const out: TimerJson[] = [];
    for (const [keyGroup, group] of this.groups) {
      for (const t of group.timers.values()) {
        out.push({ timestampUs: t.timestampUs, key: String(t.key), namespace: t.namespace,
          keyGroup });
      }
    }
    return out.sort((a, b) => a.timestampUs - b.timestampUs || a.keyGroup - b.keyGroup
      || compareStrings(a.key, b.key) || compareStrings(a.namespace, b.namespace));
  }

  private checkReadable(): void {
    assert(!this.lease.released, 'keyed state snapshot read after release');
  }
}

/**
 * The kind of the last descriptor named `name` (as a Map built from the descriptors in order
 * would hold), undefined if none.
 */
function kindOf(
  descriptors: readonly StateDescriptor[],
  name: string,
): StateDescriptor['kind'] | undefined {
  // A linear search, not a Map built per decode: a keyed operator has one or a few states, and
  // oracles decode every keyed subtask of every completed checkpoint.
  let kind: StateDescriptor['kind'] | undefined;
  for (let i = 0; i < descriptors.length; i++) {
    const d = descriptors[i] as StateDescriptor;
    if (d.name === name) kind = d.kind;
  }
  return kind;
}

function decodeValue(kind: StateDescriptor['kind'] | undefined, data: unknown): unknown {
  if (kind === 'map') {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of data as Map<PartitionKey, unknown>) {
      obj[String(k)] = v;
    }
    return obj;
  }
  if (kind === 'list') {
    return (data as readonly unknown[]).slice();
  }
  return data;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An empty snapshot over `range` (a backend with no state). */
export function emptyKeyedStateSnapshot(range: KeyGroupRange, maxParallelism: number):
  KeyedStateSnapshot {
  return new KeyedStateSnapshot({
    keyGroupRange: range, maxParallelism, stateDescriptors: [], keyType: undefined,
    groups: new Map(), lease: { released: false, onRelease: () => undefined },
  });
}
