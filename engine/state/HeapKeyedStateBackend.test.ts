import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { AssertionError } from '../util/assert.ts';
import { HeapKeyedStateBackend } from './HeapKeyedStateBackend.ts';
import { KeyGroupRange } from './KeyGroupRange.ts';
import {
  assignToKeyGroup,
  computeKeyGroupRangeForOperatorIndex,
} from './KeyGroupRangeAssignment.ts';
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';
import { emptyKeyedStateSnapshot } from './KeyedStateSnapshot.ts';
import type { KeyedStateSnapshot } from './KeyedStateSnapshot.ts';

const MAX_P = 128;

function backend(parallelism = 1, index = 0, maxP = MAX_P): HeapKeyedStateBackend {
  return new HeapKeyedStateBackend({
    keyGroupRange: computeKeyGroupRangeForOperatorIndex(maxP, parallelism, index),
    maxParallelism: maxP,
  });
}

describe('HeapKeyedStateBackend state handles', () => {
  test('value state per key', () => {
    const b = backend();
    const count = b.getValueState<number>('count');
    expect(b.getValueState<number>('count')).toBe(count);
    b.setCurrentKey('a');
    expect(count.value()).toBeUndefined();
    count.update(1);
    b.setCurrentKey('b');
    count.update(2);
    b.setCurrentKey('a');
    expect(count.value()).toBe(1);
    count.clear();
    expect(count.value()).toBeUndefined();
    expect(() => count.update(undefined as unknown as number)).toThrow(AssertionError);
    expect(b.getKeys('count')).toEqual(['b']);
    b.checkInvariants();
  });

  test('values are deep-frozen when a snapshot takes them, not before', () => {
    const b = backend();
    const v = b.getValueState<{ n: number; xs: number[] }>('v');
    b.setCurrentKey('a');
    const overwritten = { n: 0, xs: [0] };
    v.update(overwritten);
    const value = { n: 1, xs: [1] };
    v.update(value);
    b.setCurrentKey('b');
    const other = { n: 2, xs: [2] };
    v.update(other);
    b.setCurrentKey('c');
    const cleared = { n: 3, xs: [3] };
    v.update(cleared);
    v.clear();
    expect(Object.isFrozen(value)).toBe(false);
    b.checkInvariants();
    b.snapshot();
    expect(Object.isFrozen(value) && Object.isFrozen(value.xs)).toBe(true);
    expect(Object.isFrozen(other) && Object.isFrozen(other.xs)).toBe(true);
    // Never seen by a snapshot: left alone.
    expect(Object.isFrozen(overwritten)).toBe(false);
    expect(Object.isFrozen(cleared)).toBe(false);
    b.checkInvariants();
    // A value a snapshot took cannot be mutated behind the snapshot's back.
    b.setCurrentKey('a');
    expect(() => { (v.value() as { n: number }).n = 9; }).toThrow(TypeError);
  });

  test('map state per key; an emptied map is removed', () => {
    const b = backend();
    const m = b.getMapState<string, number>('m');
    b.setCurrentKey(7);
    expect(m.isEmpty()).toBe(true);
    m.put('x', 1);
    m.putAll([['y', 2], ['z', 3]]);
    m.putAll([]);
    expect(m.get('y')).toBe(2);
    expect(m.contains('z')).toBe(true);
    expect(m.contains('w')).toBe(false);
    expect(m.entries()).toEqual([['x', 1], ['y', 2], ['z', 3]]);
    expect(m.keys()).toEqual(['x', 'y', 'z']);
    expect(m.values()).toEqual([1, 2, 3]);
    m.remove('w');
    m.remove('x');
    m.remove('y');
    expect(m.isEmpty()).toBe(false);
    m.remove('z');
    expect(m.isEmpty()).toBe(true);
    expect(b.getKeys('m')).toEqual([]);
    m.put('q', 1);
    m.clear();
    expect(m.entries()).toEqual([]);
    expect(() => m.put('u', undefined as unknown as number)).toThrow(AssertionError);
    b.checkInvariants();
  });

  test('list state per key; update([]) clears', () => {
    const b = backend();
    const l = b.getListState<string>('l');
    b.setCurrentKey(5n);
    expect(l.get()).toEqual([]);
    l.add('a');
    l.addAll(['b', 'c']);
    l.addAll([]);
    expect(l.get()).toEqual(['a', 'b', 'c']);
    l.update(['z']);
    expect(l.get()).toEqual(['z']);
    l.update([]);
    expect(l.get()).toEqual([]);
    expect(b.getKeys('l')).toEqual([]);
    l.add('y');
    l.clear();
    expect(l.get()).toEqual([]);
    expect(() => l.add(undefined as unknown as string)).toThrow(AssertionError);
    b.checkInvariants();
  });

  test('programmer errors: no key, wrong key group, mixed key types, kind conflicts', () => {
    const b = backend(4, 1);
    const v = b.getValueState<number>('v');
    expect(() => v.value()).toThrow(AssertionError);
    expect(() => b.currentKeyGroup()).toThrow(AssertionError);
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const inside = keys.find((k) => b.keyGroupRange.contains(assignToKeyGroup(k, MAX_P)));
    const outside = keys.find((k) => !b.keyGroupRange.contains(assignToKeyGroup(k, MAX_P)));
    expect(() => b.setCurrentKey(outside as string)).toThrow(AssertionError);
    b.setCurrentKey(inside as string);
    expect(b.currentKey()).toBe(inside);
    expect(b.currentKeyGroup()).toBe(assignToKeyGroup(inside as string, MAX_P));
    const numberInside = Array.from({ length: 200 }, (_, i) => i)
      .find((k) => b.keyGroupRange.contains(assignToKeyGroup(k, MAX_P)));
    expect(() => b.setCurrentKey(numberInside as number)).toThrow(AssertionError);
    expect(() => b.getMapState('v')).toThrow(AssertionError);
    expect(b.getRegisteredStateDescriptors()).toEqual([{ name: 'v', kind: 'value' }]);
    expect(() => new HeapKeyedStateBackend({
      keyGroupRange: KeyGroupRange.of(0, 200), maxParallelism: 128,
    })).toThrow(AssertionError);
    expect(() => new HeapKeyedStateBackend({
      keyGroupRange: KeyGroupRange.EMPTY, maxParallelism: 128,
    })).toThrow(AssertionError);
  });
});

describe('copy-on-write snapshots', () => {
  test('a snapshot is frozen against later writes of every kind', () => {
    const b = backend();
    const v = b.getValueState<number>('v');
    const m = b.getMapState<string, number>('m');
    const l = b.getListState<number>('l');
    b.setCurrentKey('a');
    v.update(1);
    m.put('x', 1);
    l.add(1);
    b.timerService.registerProcessingTimeTimer(100);
    const snap = b.snapshot();
    const before = snap.decode();
    expect(before).toEqual({ v: { a: 1 }, m: { a: { x: 1 } }, l: { a: [1] } });
    v.update(2);
    m.put('y', 2);
    m.remove('x');
    l.add(2);
    b.timerService.registerProcessingTimeTimer(200);
    b.timerService.deleteProcessingTimeTimer(100);
    b.setCurrentKey('b');
    v.update(3);
    expect(snap.decode()).toEqual(before);
    expect(snap.decodeTimers().map((t) => t.timestampUs)).toEqual([100]);
    const second = b.snapshot();
    l.update([9]);
    m.clear();
    expect(second.decode()).toEqual({ v: { a: 2, b: 3 }, m: { a: { y: 2 } }, l: { a: [1, 2] } });
    expect(snap.decode()).toEqual(before);
    b.checkInvariants();
  });

  test('an update right after a read of the same key never writes into a snapshot', () => {
    const b = backend();
    const v = b.getValueState<{ n: number }>('v');
    b.setCurrentKey('a');
    v.update({ n: 1 });
    expect(v.value()).toEqual({ n: 1 });
    const snap = b.snapshot();
    // The read before the snapshot found the entry the snapshot now shares.
    v.update({ n: 2 });
    expect(v.value()).toEqual({ n: 2 });
    v.update({ n: 3 });
    expect(snap.decode()).toEqual({ v: { a: { n: 1 } } });
    snap.release();
    // Released: the update rewrites the entry in place; a later snapshot freezes the new value.
    expect(v.value()).toEqual({ n: 3 });
    const latest = { n: 4 };
    v.update(latest);
    v.clear();
    expect(v.value()).toBeUndefined();
    v.update({ n: 5 });
    const second = b.snapshot();
    expect(second.decode()).toEqual({ v: { a: { n: 5 } } });
    b.checkInvariants();
  });

  test('release: reading asserts, and later writes no longer copy', () => {
    const b = backend();
    const l = b.getListState<number>('l');
    b.setCurrentKey('a');
    l.add(1);
    const snap = b.snapshot();
    const inter = snap.getIntersection(KeyGroupRange.of(0, 127));
    expect(b.store.runningSnapshots).toBe(1);
    snap.release();
    snap.release();
    expect(snap.isReleased()).toBe(true);
    expect(inter?.isReleased()).toBe(true);
    expect(b.store.runningSnapshots).toBe(0);
    expect(() => snap.decode()).toThrow(AssertionError);
    expect(() => inter?.keyGroupIds()).toThrow(AssertionError);
    l.add(2);
    expect(l.get()).toEqual([1, 2]);
    b.checkInvariants();
  });

  test('releasing the newest of two snapshots keeps the older one frozen', () => {
    const b = backend();
    const m = b.getMapState<string, number>('m');
    b.setCurrentKey('a');
    m.put('x', 1);
    const older = b.snapshot();
    const newer = b.snapshot();
    newer.release();
    m.put('x', 2);
    expect(older.decode()).toEqual({ m: { a: { x: 1 } } });
    b.checkInvariants();
  });

  test('intersection clips exactly and is null when disjoint', () => {
    const b = backend();
    const v = b.getValueState<number>('v');
    for (let i = 0; i < 300; i++) {
      b.setCurrentKey(i);
      v.update(i);
    }
    const snap = b.snapshot();
    expect(snap.numberOfEntries()).toBe(300);
    const half = snap.getIntersection(KeyGroupRange.of(0, 63)) as KeyedStateSnapshot;
    expect(half.keyGroupRange.equals(KeyGroupRange.of(0, 63))).toBe(true);
    expect(half.keyGroupIds().every((kg) => kg <= 63)).toBe(true);
    const decoded = half.decode().v ?? {};
    for (let i = 0; i < 300; i++) {
      expect(String(i) in decoded).toBe(assignToKeyGroup(i, MAX_P) <= 63);
    }
    const other = backend(2, 1);
    const otherSnap = other.snapshot();
    expect(otherSnap.getIntersection(KeyGroupRange.of(0, 63))).toBeNull();
    expect(snap.getKeyGroup(half.keyGroupIds()[0] as number)).toBeDefined();
  });
});

describe('restore', () => {
  test('restore reproduces state and timers, and does not share mutable data', () => {
    const b = backend();
    const m = b.getMapState<string, number>('m');
    const l = b.getListState<number>('l');
    b.setCurrentKey('a');
    m.put('x', 1);
    l.add(1);
    b.timerService.registerProcessingTimeTimer(50, 'ns');
    const snap = b.snapshot();
    snap.release(); // Released handles may not be restored from.
    const snap2 = b.snapshot();
    const r = backend();
    r.restore([snap2]);
    expect(r.snapshot().decode()).toEqual(snap2.decode());
    expect(r.timerService.size()).toBe(1);
    r.setCurrentKey('a');
    r.getMapState<string, number>('m').put('y', 2);
    r.getListState<number>('l').add(2);
    expect(snap2.decode()).toEqual({ m: { a: { x: 1 } }, l: { a: [1] } });
    expect(() => r.restore([snap2])).toThrow(AssertionError);
    expect(() => backend().restore([snap])).toThrow(AssertionError);
    expect(() => backend(1, 0, 256).restore([snap2])).toThrow(AssertionError);
    r.checkInvariants();
  });

  test('restoring the same key group twice is an error; empty snapshots restore to nothing', () => {
    const b = backend();
    b.setCurrentKey('a');
    b.getValueState<number>('v').update(1);
    const s = b.snapshot();
    expect(() => backend().restore([s, s])).toThrow(AssertionError);
    const r = backend();
    r.restore([emptyKeyedStateSnapshot(KeyGroupRange.of(0, 127), MAX_P)]);
    expect(r.snapshot().decode()).toEqual({});
  });

  test('rescaling keeps exactly the keys of the new range (2 -> 3 and 3 -> 1)', () => {
    const keys: PartitionKey[] = Array.from({ length: 500 }, (_, i) => `key-${i}`);
    const old = [0, 1].map((i) => backend(2, i));
    for (const key of keys) {
      const owner = old.find((b) => b.keyGroupRange.contains(assignToKeyGroup(key, MAX_P)));
      owner?.setCurrentKey(key);
      owner?.getValueState<string>('v').update(`v-${String(key)}`);
      owner?.timerService.registerProcessingTimeTimer(keys.indexOf(key));
    }
    const snaps = old.map((b) => b.snapshot());
    const scaled = [0, 1, 2].map((i) => {
      const b = backend(3, i);
      const assigned = snaps.map((s) => s.getIntersection(b.keyGroupRange))
        .filter((s): s is KeyedStateSnapshot => s !== null);
      b.restore(assigned);
      b.checkInvariants();
      return b;
    });
    const union: Record<string, unknown> = {};
    for (const b of scaled) {
      const decoded = b.snapshot().decode().v ?? {};
      for (const k of Object.keys(decoded)) {
        expect(b.keyGroupRange.contains(assignToKeyGroup(k, MAX_P))).toBe(true);
      }
      Object.assign(union, decoded);
      const timerKeys = b.snapshot().decodeTimers().map((t) => t.key);
      expect(timerKeys.sort()).toEqual(Object.keys(decoded).sort());
    }
    expect(Object.keys(union).sort()).toEqual(keys.map(String).sort());
    const single = backend(1, 0);
    single.restore(scaled.map((b) => b.snapshot()));
    expect(single.snapshot().decode()).toEqual({ v: union });
    expect(single.timerService.size()).toBe(keys.length);
  });
});

describe('processing-time timers', () => {
  test('dedup, delete, ordering and polling', () => {
    const b = backend();
    const t = b.timerService;
    b.setCurrentKey('a');
    t.registerProcessingTimeTimer(30);
    t.registerProcessingTimeTimer(30);
    t.registerProcessingTimeTimer(10, 'w');
    b.setCurrentKey('b');
    t.registerProcessingTimeTimer(10);
    t.registerProcessingTimeTimer(20);
    t.deleteProcessingTimeTimer(20);
    t.deleteProcessingTimeTimer(99);
    expect(t.size()).toBe(3);
    expect(t.nextTimestampUs()).toBe(10);
    expect(t.poll(5)).toBeUndefined();
    const fired = [t.poll(30), t.poll(30), t.poll(30), t.poll(30)];
    expect(fired.map((f) => f && [f.timestampUs, f.key, f.namespace])).toEqual([
      [10, 'a', 'w'], [10, 'b', ''], [30, 'a', ''], undefined,
    ]);
    expect(t.nextTimestampUs()).toBeUndefined();
    expect(() => t.registerProcessingTimeTimer(1.5)).toThrow(AssertionError);
    b.checkInvariants();
  });

  test('many deletions compact the heap', () => {
    const b = backend();
    const t = b.timerService;
    b.setCurrentKey('a');
    for (let i = 0; i < 300; i++) {
      t.registerProcessingTimeTimer(i);
    }
    for (let i = 0; i < 290; i++) {
      t.deleteProcessingTimeTimer(i);
    }
    b.checkInvariants();
    expect(t.size()).toBe(10);
    expect(t.nextTimestampUs()).toBe(290);
    t.registerProcessingTimeTimer(5);
    expect(t.poll(1000)?.timestampUs).toBe(5);
    b.checkInvariants();
  });
});

type Op =
  | { t: 'value'; key: number; v: number }
  | { t: 'clearValue'; key: number }
  | { t: 'mapPut'; key: number; uk: string; v: number }
  | { t: 'mapRemove'; key: number; uk: string }
  | { t: 'listAdd'; key: number; v: number }
  | { t: 'listUpdate'; key: number; vs: number[] }
  | { t: 'timer'; key: number; ts: number }
  | { t: 'deleteTimer'; key: number; ts: number }
  | { t: 'snapshot' }
  | { t: 'release'; which: number };

const key = fc.integer({ min: -20, max: 20 });
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('value' as const), key, v: fc.integer() }),
  fc.record({ t: fc.constant('clearValue' as const), key }),
  fc.record({ t: fc.constant('mapPut' as const), key, uk: fc.constantFrom('x', 'y', 'z'),
    v: fc.integer() }),
  fc.record({ t: fc.constant('mapRemove' as const), key, uk: fc.constantFrom('x', 'y', 'z') }),
  fc.record({ t: fc.constant('listAdd' as const), key, v: fc.integer() }),
  fc.record({ t: fc.constant('listUpdate' as const), key,
    vs: fc.array(fc.integer(), { maxLength: 3 }) }),
  fc.record({ t: fc.constant('timer' as const), key, ts: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ t: fc.constant('deleteTimer' as const), key, ts: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ t: fc.constant('snapshot' as const) }),
  fc.record({ t: fc.constant('release' as const), which: fc.nat() }),
);

function apply(b: HeapKeyedStateBackend, op: Op): void {
  if (op.t === 'snapshot' || op.t === 'release') {
    return;
  }
  b.setCurrentKey(op.key);
  switch (op.t) {
    case 'value': b.getValueState<number>('v').update(op.v); break;
    case 'clearValue': b.getValueState<number>('v').clear(); break;
    case 'mapPut': b.getMapState<string, number>('m').put(op.uk, op.v); break;
    case 'mapRemove': b.getMapState<string, number>('m').remove(op.uk); break;
    case 'listAdd': b.getListState<number>('l').add(op.v); break;
    case 'listUpdate': b.getListState<number>('l').update(op.vs); break;
    case 'timer': b.timerService.registerProcessingTimeTimer(op.ts); break;
    case 'deleteTimer': b.timerService.deleteProcessingTimeTimer(op.ts); break;
  }
}

describe('properties', () => {
  test('a snapshot never changes after later writes, and restore reproduces it', () => {
    fc.assert(fc.property(fc.array(arbOp, { maxLength: 80 }), (ops) => {
      const b = backend();
      const taken: { snap: KeyedStateSnapshot; state: unknown; timers: unknown }[] = [];
      for (const op of ops) {
        apply(b, op);
        if (op.t === 'snapshot') {
          const snap = b.snapshot();
          taken.push({ snap, state: structuredClone(snap.decode()),
            timers: structuredClone(snap.decodeTimers()) });
        } else if (op.t === 'release' && taken.length > 0) {
          taken[op.which % taken.length]?.snap.release();
        }
        b.checkInvariants();
      }
      for (const { snap, state, timers } of taken) {
        if (snap.isReleased()) {
          continue;
        }
        expect(snap.decode()).toEqual(state);
        expect(snap.decodeTimers()).toEqual(timers);
        const restored = backend();
        restored.restore([snap]);
        restored.checkInvariants();
        const again = restored.snapshot();
        expect(again.decode()).toEqual(state);
        expect(again.decodeTimers()).toEqual(timers);
      }
    }), { numRuns: 300 });
  });

  test('rescaled restore keeps exactly the keys of each new range', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 60 }),
      fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }),
      (keys, oldP, newP) => {
        const maxP = 16;
        const old = Array.from({ length: oldP }, (_, i) => backend(oldP, i, maxP));
        for (const k of keys) {
          const owner = old.find((b) => b.keyGroupRange.contains(assignToKeyGroup(k, maxP)));
          owner?.setCurrentKey(k);
          owner?.getValueState<number>('v').update(k * 2);
        }
        const snaps = old.map((b) => b.snapshot());
        const seen = new Set<string>();
        for (let i = 0; i < newP; i++) {
          const b = backend(newP, i, maxP);
          b.restore(snaps.flatMap((s) => s.getIntersection(b.keyGroupRange) ?? []));
          b.checkInvariants();
          const decoded = b.snapshot().decode().v ?? {};
          const expected = [...new Set(keys)]
            .filter((k) => b.keyGroupRange.contains(assignToKeyGroup(k, maxP)))
            .map(String).sort();
          expect(Object.keys(decoded).sort()).toEqual(expected);
          for (const k of Object.keys(decoded)) {
            expect(decoded[k]).toBe(Number(k) * 2);
            seen.add(k);
          }
        }
        expect(seen.size).toBe(new Set(keys).size);
      },
    ), { numRuns: 200 });
  });
});
