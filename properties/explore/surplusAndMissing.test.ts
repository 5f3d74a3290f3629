import { describe, expect, test } from 'vitest';
import { surplusAndMissing } from './surplusAndMissing.ts';

const r = (split: number, offset: number, tag = '') => ({ split, offset, tag });

describe('surplusAndMissing', () => {
  test('a duplicate and a loss of the same size do not net to nothing', () => {
    expect(surplusAndMissing([r(0, 0), r(0, 1)], [r(0, 0), r(0, 0)])).toEqual({ surplus: 1, missing: 1 });
  });

  test('equal multisets, in any order, have neither', () => {
    expect(surplusAndMissing([r(0, 0), r(1, 2), r(1, 2)], [r(1, 2), r(0, 0), r(1, 2)])).toEqual({ surplus: 0, missing: 0 });
    expect(surplusAndMissing([], [])).toEqual({ surplus: 0, missing: 0 });
  });

  test('copies are counted per identity, tags included', () => {
    const expected = [r(0, 0, '/f.0'), r(0, 0, '/f.1'), r(0, 1)];
    // Two extra copies of one output of (0, 0), its other output lost, and (0, 1) lost.
    const committed = [r(0, 0, '/f.0'), r(0, 0, '/f.0'), r(0, 0, '/f.0')];
    expect(surplusAndMissing(expected, committed)).toEqual({ surplus: 2, missing: 2 });
  });

  test('every copy of an identity F does not produce is surplus', () => {
    expect(surplusAndMissing([r(0, 0)], [r(0, 0), r(7, 7), r(7, 7)])).toEqual({ surplus: 2, missing: 0 });
  });

  test('split, offset and tag are told apart even where their text could run together', () => {
    // "1:23:" and "1:2:3" (as one string "1:23" they would be one identity).
    expect(surplusAndMissing([r(1, 23)], [r(1, 2, '3')])).toEqual({ surplus: 1, missing: 1 });
    expect(surplusAndMissing([r(12, 3)], [r(1, 23)])).toEqual({ surplus: 1, missing: 1 });
  });
});
