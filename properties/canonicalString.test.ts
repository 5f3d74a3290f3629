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
});
