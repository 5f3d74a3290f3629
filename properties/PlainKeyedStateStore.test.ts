import { describe, expect, test } from 'vitest';
import { PlainKeyedStateStore } from './PlainKeyedStateStore.ts';

describe('PlainKeyedStateStore', () => {
  test('value, map and list state per key, and the view', () => {
    const store = new PlainKeyedStateStore('op');
    let ctx = store.contextFor('a');
    expect(ctx.getCurrentKey()).toBe('a');
    const v = ctx.getState<number>({ kind: 'value', name: 'v' });
    expect(v.value()).toBeUndefined();
    v.update(3);
    const m = ctx.getMapState<number, string>({ kind: 'map', name: 'm' });
    m.put(1, 'x');
    m.put(2, 'y');
    m.remove(2);
    expect(m.contains(1)).toBe(true);
    expect(m.get(1)).toBe('x');
    expect(m.entries()).toEqual([[1, 'x']]);
    expect(m.isEmpty()).toBe(false);
    const l = ctx.getListState<number>({ kind: 'list', name: 'l' });
    l.add(1);
    l.add(2);
    expect(l.get()).toEqual([1, 2]);

    ctx = store.contextFor(7);
    ctx.getState<number>({ kind: 'value', name: 'v' }).update(9);
    const m7 = ctx.getMapState<string, number>({ kind: 'map', name: 'm' });
    m7.put('k', 1);
    m7.clear();
    expect(m7.isEmpty()).toBe(true);
    const l7 = ctx.getListState<number>({ kind: 'list', name: 'l' });
    l7.update([5]);
    l7.update([]);
    expect(store.view()).toEqual({ v: { a: 3, 7: 9 }, m: { a: { 1: 'x' } }, l: { a: [1, 2] } });

    ctx = store.contextFor('a');
    ctx.getState({ kind: 'value', name: 'v' }).clear();
    ctx.getState<number | undefined>({ kind: 'value', name: 'v' }).update(undefined);
    ctx.getListState({ kind: 'list', name: 'l' }).clear();
    expect(store.view()).toEqual({ v: { 7: 9 }, m: { a: { 1: 'x' } }, l: {} });
  });

  test('refuses a state name of two kinds, stale handles and timers', () => {
    const store = new PlainKeyedStateStore('op');
    const ctx = store.contextFor('a');
    const stale = ctx.getState<number>({ kind: 'value', name: 'v' });
    expect(() => ctx.getMapState({ kind: 'map', name: 'v' })).toThrow(/'v' is value state, asked for as map/);
    store.contextFor('b');
    expect(() => stale.update(1)).toThrow(/state handle of key a used for key b/);
    const timers = ctx.timerService();
    expect(() => timers.registerProcessingTimeTimer(5)).toThrow(/timers are not supported by the reference fold/);
    expect(() => timers.currentProcessingTimeMs()).toThrow(/timers/);
    expect(() => timers.deleteProcessingTimeTimer(5)).toThrow(/timers/);
  });
});
