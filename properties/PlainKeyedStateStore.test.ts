import { describe, expect, test } from 'vitest';
import { compareKeyedState } from './oracles/compareKeyedState.ts';
import { FoldUnsupportedError } from './FoldUnsupportedError.ts';
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
    expect(() => timers.registerProcessingTimeTimer(5)).toThrow(new FoldUnsupportedError('op', 'op',
      'uses timers (timerService().registerProcessingTimeTimer)'));
    expect(() => timers.currentProcessingTimeMs()).toThrow(/timerService\(\)\.currentProcessingTimeMs/);
    expect(() => timers.deleteProcessingTimeTimer(5)).toThrow(/timerService\(\)\.deleteProcessingTimeTimer/);
    // Named by name and uid, as a refusal names it.
    expect(() => new PlainKeyedStateStore('alerts', 'Alerts').contextFor(1).timerService().registerProcessingTimeTimer(1))
      .toThrow("reference fold: operator 'Alerts' (uid alerts) uses timers (timerService().registerProcessingTimeTimer), "
        + 'which the reference fold cannot judge (ORACLES.md: F has no broadcast edges and no timers)');
  });

  describe('matchesView', () => {
    /** A store with value, map and list state over number keys. */
    const filled = (): PlainKeyedStateStore => {
      const store = new PlainKeyedStateStore('op');
      for (const key of [3, 1, 20000]) {
        const ctx = store.contextFor(key);
        ctx.getState<{ min: number }>({ kind: 'value', name: 'v' }).update({ min: key });
        const m = ctx.getMapState<number, boolean>({ kind: 'map', name: 'm' });
        m.put(-key, true);
        m.put(key * 1000, true);
        ctx.getListState<number>({ kind: 'list', name: 'l' }).add(key);
      }
      return store;
    };
    /** What compareKeyedState says of the built view: the answer matchesView must not contradict. */
    const noDiff = (store: PlainKeyedStateStore, actual: Record<string, Record<string, unknown>>): boolean =>
      compareKeyedState({ op: store.view() }, { op: actual }).diffCount === 0;

    test('true for an equal state in another key order, false for any differing key', () => {
      const store = filled();
      const equal = JSON.parse(JSON.stringify(store.view())) as Record<string, Record<string, unknown>>;
      equal['m'] = { 20000: { 20000000: true, [-20000]: true }, 1: { 1000: true, [-1]: true }, 3: { [-3]: true, 3000: true } };
      expect(store.matchesView(equal)).toBe(true);
      expect(noDiff(store, equal)).toBe(true);
      const changes: ((s: Record<string, Record<string, unknown>>) => void)[] = [
        (s) => { (s['v'] as Record<string, unknown>)['3'] = { min: 4 }; },
        (s) => { (s['v'] as Record<string, unknown>)['4'] = { min: 4 }; },
        (s) => { delete (s['v'] as Record<string, unknown>)['3']; },
        (s) => { ((s['m'] as Record<string, Record<string, unknown>>)['1'] as Record<string, unknown>)['7'] = true; },
        (s) => { delete ((s['m'] as Record<string, Record<string, unknown>>)['1'] as Record<string, unknown>)['-1']; },
        (s) => { (s['m'] as Record<string, unknown>)['1'] = new Map([['1000', true], ['-1', true]]); },
        (s) => { (s['l'] as Record<string, unknown>)['1'] = [1, 1]; },
        (s) => { s['other'] = { 1: 1 }; },
      ];
      for (const change of changes) {
        const actual = JSON.parse(JSON.stringify(equal)) as Record<string, Record<string, unknown>>;
        change(actual);
        expect(store.matchesView(actual)).toBe(false);
        expect(noDiff(store, actual)).toBe(false);
      }
    });

    test('undecided (false) where the view could hide a difference, never true against a diff', () => {
      // Keys 1 and '1' are one key of the view: not decided without building it.
      const mixed = new PlainKeyedStateStore('op');
      mixed.contextFor(1).getState<number>({ kind: 'value', name: 'v' }).update(1);
      mixed.contextFor('1').getState<number>({ kind: 'value', name: 'v' }).update(1);
      expect(mixed.matchesView({ v: { 1: 1 } })).toBe(false);
      expect(noDiff(mixed, { v: { 1: 1 } })).toBe(true);
      // A key present with value undefined equals an absent one for compareKeyedState.
      const store = filled();
      const withUndefined = { ...store.view(), extra: { 5: undefined } };
      expect(store.matchesView(withUndefined)).toBe(false);
      expect(noDiff(store, withUndefined)).toBe(true);
      // No state at all: equal to a store with no keys.
      expect(new PlainKeyedStateStore('op').matchesView(undefined)).toBe(true);
    });
  });
});
