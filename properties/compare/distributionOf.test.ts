/** distributionOf and nearestRank on hand-made lists. */
import { describe, expect, test } from 'vitest';
import { distributionOf, medianOf, nearestRank } from './distributionOf.ts';

describe('distributionOf', () => {
  test('a hand-made list with nulls: nearest-rank quartiles, mean, values in the order given', () => {
    expect(distributionOf([5, null, 1, 3, 2, null, 4])).toEqual({
      count: 5, missing: 2, min: 1, p25: 2, median: 3, p75: 4, max: 5, mean: 3, values: [5, 1, 3, 2, 4],
    });
  });

  test('an even list takes the lower middle as its median (a value some run had)', () => {
    const d = distributionOf([40, 10, 30, 20]);
    expect(d).toMatchObject({ min: 10, p25: 10, median: 20, p75: 30, max: 40, mean: 25 });
  });

  test('one value is every figure', () => {
    expect(distributionOf([7.5])).toEqual({ count: 1, missing: 0, min: 7.5, p25: 7.5, median: 7.5, p75: 7.5, max: 7.5, mean: 7.5, values: [7.5] });
  });

  test('no value: nulls, every run counted as missing', () => {
    expect(distributionOf([null, null])).toEqual({
      count: 0, missing: 2, min: null, p25: null, median: null, p75: null, max: null, mean: null, values: [],
    });
    expect(distributionOf([])).toMatchObject({ count: 0, missing: 0, median: null });
  });
});

describe('nearestRank', () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  test('the smallest value with at least p percent at or below it', () => {
    expect([0, 10, 11, 50, 99, 100].map((p) => nearestRank(sorted, p))).toEqual([1, 1, 2, 5, 10, 10]);
  });
  test('refuses an empty list and a percentile outside 0..100', () => {
    expect(() => nearestRank([], 50)).toThrow(RangeError);
    expect(() => nearestRank(sorted, 101)).toThrow(/within 0..100/);
    expect(() => nearestRank(sorted, Number.NaN)).toThrow(RangeError);
  });
  test('medianOf sorts first and gives null for no values', () => {
    expect(medianOf([3, 1, 2])).toBe(2);
    expect(medianOf([])).toBeNull();
  });
});
