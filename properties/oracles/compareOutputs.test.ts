import { describe, expect, test } from 'vitest';
import type { StreamRecord } from '../../engine/index.ts';
import { compareOutputs } from './compareOutputs.ts';
import type { CommittedRecord } from './compareOutputs.ts';

const rec = (split: number, offset: number, tag: string, value: unknown): StreamRecord => ({ split, offset, tag, value });
const committed = (r: StreamRecord, attempt = 0, subtask = 0): CommittedRecord => ({ ...r, attempt, subtask });

/** F-ordered output: by split, then offset; several tags and equal identities with other values. */
const EXPECTED: readonly StreamRecord[] = [
  rec(0, 0, '', 1), rec(0, 0, '/m.1', { v: 2 }), rec(0, 1, '', 3), rec(0, 1, '', 4),
  rec(1, 0, '', 5), rec(1, 2, '/m.1', 6), rec(1, 2, '', 7),
];

describe('compareOutputs', () => {
  test('no difference whatever the commit order, with F-ordered expected records or not', () => {
    const actual = [...EXPECTED].reverse().map((r, i) => committed(r, i % 2, i % 3));
    for (const expected of [EXPECTED, [...EXPECTED].reverse(), [EXPECTED[3], ...EXPECTED.slice(0, 3), ...EXPECTED.slice(4)]]) {
      expect(compareOutputs({ expected: expected as StreamRecord[], actual })).toEqual({
        missing: [], missingCount: 0, surplus: [], surplusCount: 0, valueMismatches: [], valueMismatchCount: 0,
      });
    }
  });

  test('equal identities pair by value, and what is left is listed', () => {
    // (0,1,'') expected with 3 and 4; committed 4 and 9: 4 pairs, 3 vs 9 is a mismatch.
    const actual = EXPECTED.map((r) => committed(r.offset === 1 && r.value === 3 ? { ...r, value: 9 } : r));
    actual.reverse();
    const out = compareOutputs({ expected: EXPECTED, actual });
    expect(out.valueMismatches).toEqual([{ id: '0:1', expected: 3, actual: 9, attempt: 0, subtask: 0 }]);
    expect(out.missingCount + out.surplusCount).toBe(0);
  });

  test('missing, surplus and a copy too many are found with F-ordered expected records', () => {
    const actual = EXPECTED.slice(1).map((r) => committed(r));
    actual.push(committed(rec(2, 0, '', 8), 1, 1), committed(EXPECTED[2] as StreamRecord, 2, 0));
    const out = compareOutputs({ expected: EXPECTED, actual, maxListed: 1 });
    expect(out.missing).toEqual([{ id: '0:0', value: 1 }]);
    expect(out.surplusCount).toBe(2);
    // Listed in order of the identities' first appearance, expected records first.
    expect(out.surplus).toEqual([{ id: '0:1', value: 3, attempt: 2, subtask: 0 }]);
    expect(out.valueMismatchCount).toBe(0);
  });

  test('values are compared through the projection; identities as the bucket Map keys them (NaN, -0)', () => {
    const project = (v: unknown): unknown => (v as { w: string }).w;
    const expected = [rec(0, 0, '', { w: 'a', seq: 1 }), rec(0, 1, '', { w: 'b', seq: 2 })];
    const actual = [committed(rec(0, 1, '', { w: 'b', seq: 1 })), committed(rec(0, -0, '', { w: 'a', seq: 2 }))];
    expect(compareOutputs({ expected, actual, project }).valueMismatchCount).toBe(0);
    expect(compareOutputs({ expected, actual }).valueMismatchCount).toBe(2);
    const timer = [rec(-1, Number.NaN, 'timer', 1)];
    expect(compareOutputs({ expected: timer, actual: timer.map((r) => committed(r)) }).surplusCount).toBe(0);
  });
});
