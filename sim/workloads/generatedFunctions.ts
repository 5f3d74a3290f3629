/**
 * The fixed menus of pure user functions that generated jobs pick from by index
 * (generatedJob.ts). Every function is deterministic and total on safe integers; keyed functions
 * keep order-insensitive state per key (count, sum, min/max, set) and emit records derived only
 * from the input value, so the reference fold F of ORACLES.md is well defined for any job built
 * from them. Values are integers throughout; keys are small integers or short strings, always
 * 32-bit when numeric.
 *
 * Invariant: no function returns -0 (so canonical comparison of values is exact), and each
 * map/flatMap output stays within `|v| <= 3 * |input| + 1000`.
 */
import type {
  Collector, FilterFunction, FlatMapFunction, Key, KeyedContext, KeyedProcessFunction, KeySelector,
  MapFunction,
} from '../../engine/index.ts';

/** A named menu entry. */
export interface MenuEntry<F> {
  readonly name: string;
  readonly fn: F;
}

/** `x + 0` turns -0 into 0; remainders of negative numbers can be -0. */
const noNegZero = (x: number): number => x + 0;
const mod = (v: number, m: number): number => noNegZero(((v % m) + m) % m);

/** Stateless one-to-one functions. */
export const MAP_MENU: readonly MenuEntry<MapFunction<number, number>>[] = Object.freeze([
  { name: 'add1', fn: (v: number) => v + 1 },
  { name: 'add7', fn: (v: number) => v + 7 },
  { name: 'times3', fn: (v: number) => v * 3 },
  { name: 'negate', fn: (v: number) => 0 - v },
  { name: 'rem100', fn: (v: number) => noNegZero(v % 100) },
  { name: 'halve', fn: (v: number) => Math.floor(v / 2) },
]);

/** Stateless predicates. */
export const FILTER_MENU: readonly MenuEntry<FilterFunction<number>>[] = Object.freeze([
  { name: 'even', fn: (v: number) => v % 2 === 0 },
  { name: 'odd', fn: (v: number) => v % 2 !== 0 },
  { name: 'positive', fn: (v: number) => v > 0 },
  { name: 'notMultipleOf3', fn: (v: number) => v % 3 !== 0 },
  { name: 'all', fn: () => true },
]);

/** Stateless one-to-many functions (0, 1 or more outputs per input). */
export const FLAT_MAP_MENU: readonly MenuEntry<FlatMapFunction<number, number>>[] = Object.freeze([
  {
    name: 'duplicate',
    fn: (v: number, out: Collector<number>) => { out.collect(v); out.collect(v); },
  },
  {
    name: 'pairWith1000',
    fn: (v: number, out: Collector<number>) => { out.collect(v); out.collect(v + 1000); },
  },
  {
    name: 'byRem3', // 0, 1 or 2 outputs by the value's remainder mod 3
    fn: (v: number, out: Collector<number>) => {
      for (let i = 0; i < mod(v, 3); i++) out.collect(v + i);
    },
  },
  {
    name: 'upTo3', // 0..3 copies, v, v+1, v+2
    fn: (v: number, out: Collector<number>) => {
      for (let i = 0; i < mod(v, 4); i++) out.collect(v + i);
    },
  },
]);

/** Key selectors for keyed stages. Numeric keys are small, so always 32-bit. */
export const KEY_MENU: readonly MenuEntry<KeySelector<number>>[] = Object.freeze([
  { name: 'rem4', fn: (v: number): Key => mod(v, 4) },
  { name: 'rem16', fn: (v: number): Key => mod(v, 16) },
  { name: 'str7', fn: (v: number): Key => `k${mod(v, 7)}` },
  { name: 'parity', fn: (v: number): Key => (mod(v, 2) === 0 ? 'even' : 'odd') },
  { name: 'constant', fn: (): Key => 'all' },
  { name: 'rem1009', fn: (v: number): Key => mod(v, 1009) },
]);

type KeyedFn = KeyedProcessFunction<Key, number, number>;

function valueState<V>(ctx: KeyedContext, name: string) {
  return ctx.getState<V>({ kind: 'value', name });
}

/**
 * Keyed functions with order-insensitive state per key; each emits records computed from the
 * input value alone. State names are fixed per entry.
 */
export const KEYED_MENU: readonly MenuEntry<KeyedFn>[] = Object.freeze([
  {
    name: 'count', // state count: number of records; emits v
    fn: {
      processElement(v: number, ctx: KeyedContext, out: Collector<number>): void {
        const s = valueState<number>(ctx, 'count');
        s.update((s.value() ?? 0) + 1);
        out.collect(v);
      },
    },
  },
  {
    name: 'sum', // state sum: sum of values; emits 2v
    fn: {
      processElement(v: number, ctx: KeyedContext, out: Collector<number>): void {
        const s = valueState<number>(ctx, 'sum');
        s.update((s.value() ?? 0) + v);
        out.collect(v * 2);
      },
    },
  },
  {
    name: 'minMax', // state range: {min, max}; emits v + 1
    fn: {
      processElement(v: number, ctx: KeyedContext, out: Collector<number>): void {
        const s = valueState<{ min: number; max: number }>(ctx, 'range');
        const old = s.value();
        s.update(old === undefined
          ? { min: v, max: v }
          : { min: Math.min(old.min, v), max: Math.max(old.max, v) });
        out.collect(v + 1);
      },
    },
  },
  {
    name: 'distinct', // map state seen: set of values; emits v
    fn: {
      processElement(v: number, ctx: KeyedContext, out: Collector<number>): void {
        ctx.getMapState<number, boolean>({ kind: 'map', name: 'seen' }).put(v, true);
        out.collect(v);
      },
    },
  },
  {
    name: 'countAndSplit', // states n and total; emits v, and v/2 too when v is even
    fn: {
      processElement(v: number, ctx: KeyedContext, out: Collector<number>): void {
        const n = valueState<number>(ctx, 'n');
        n.update((n.value() ?? 0) + 1);
        const total = valueState<number>(ctx, 'total');
        total.update((total.value() ?? 0) + v);
        out.collect(v);
        if (mod(v, 2) === 0) out.collect(noNegZero(v / 2));
      },
    },
  },
]);
