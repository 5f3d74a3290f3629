import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalEqual, canonicalString } from './canonicalString.ts';

describe('canonicalString', () => {
  test('ignores object key order and Map/Set insertion order', () => {
    expect(canonicalEqual({ a: 1, b: [2, { c: 3 }] }, { b: [2, { c: 3 }], a: 1 })).toBe(true);
    expect(canonicalEqual(new Map([[1, 'x'], [2, 'y']]), new Map([[2, 'y'], [1, 'x']]))).toBe(true);
    expect(canonicalEqual(new Set([1, 2]), new Set([2, 1]))).toBe(true);
  });

  test('tells apart values JSON would merge', () => {
    expect(canonicalEqual(1, 1n)).toBe(false);
    expect(canonicalEqual(0, -0)).toBe(false);
    expect(canonicalEqual(undefined, null)).toBe(false);
    expect(canonicalEqual('1', 1)).toBe(false);
    expect(canonicalEqual([1, 2], [2, 1])).toBe(false);
    expect(canonicalEqual({ a: undefined }, {})).toBe(false);
    expect(canonicalString(true)).toBe('true');
  });

  test('refuses functions and cycles', () => {
    expect(() => canonicalString(() => 1)).toThrow(/function/);
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(() => canonicalString(cyclic)).toThrow(/cyclic/);
    const shared = { x: 1 };
    expect(canonicalString([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  test('canonicalEqual is exactly equality of canonical texts', () => {
    const sameOrShuffled = fc.anything({ withMap: true, withSet: true, withBigInt: true, withNullPrototype: true })
      .chain((v) => fc.oneof(fc.constant(v), fc.constant(structuredClone(v)), fc.constant(reversed(v)), fc.anything()).map((w) => [v, w] as const));
    fc.assert(fc.property(sameOrShuffled, ([a, b]) => {
      expect(canonicalEqual(a, b)).toBe(canonicalString(a) === canonicalString(b));
    }), { numRuns: 500 });
    expect(canonicalEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    // A "__proto__" key is a key like any other (the flake this test once had came from copying
    // one by assignment, which set the copy's prototype instead).
    const proto = JSON.parse('{"__proto__": [1], "a": 2}') as unknown;
    expect(canonicalEqual(proto, reversed(proto))).toBe(true);
    expect(canonicalEqual([{ x: 1 }], { 0: { x: 1 } })).toBe(false);
    expect(canonicalEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(() => canonicalEqual({ f: () => 1 }, { f: () => 1 })).toThrow(/function/);
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(() => canonicalEqual(cyclic, cyclic)).toThrow(/cyclic/);
  });
});

/** `v` with the keys of every plain object inserted in reverse order. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v !== 'object' || v === null || v instanceof Map || v instanceof Set) return v;
  const out: Record<string, unknown> = Object.create(Object.getPrototypeOf(v) as object | null) as Record<string, unknown>;
  // defineProperty, not assignment: fast-check draws keys such as "__proto__", and assigning one
  // would set the copy's prototype (to a Set, say) instead of adding a key.
  for (const k of Object.keys(v).reverse()) {
    Object.defineProperty(out, k, { value: reversed((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
