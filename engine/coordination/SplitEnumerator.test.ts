import { describe, expect, test } from 'vitest';
import { SplitEnumerator } from './SplitEnumerator.ts';

describe('SplitEnumerator', () => {
  test('assigns one split per request in id order, then no more splits', () => {
    const e = new SplitEnumerator([2, 0, 1]);
    expect(e.handleSplitRequest(1)).toEqual({ kind: 'assign', split: { splitId: 0, offset: 0 } });
    expect(e.handleSplitRequest(0)).toEqual({ kind: 'assign', split: { splitId: 1, offset: 0 } });
    expect(e.snapshotState()).toEqual(
      { unassigned: [{ splitId: 2, offset: 0 }], assigned: [0, 1] });
    expect(e.handleSplitRequest(1)).toEqual({ kind: 'assign', split: { splitId: 2, offset: 0 } });
    expect(e.handleSplitRequest(0)).toEqual({ kind: 'no-more-splits' });
    expect(e.unassignedCount).toBe(0);
    e.checkInvariants();
  });

  test('splits added back are handed out again, lowest id first', () => {
    const e = new SplitEnumerator([0, 1, 2]);
    e.handleSplitRequest(0);
    e.handleSplitRequest(1);
    e.addSplitsBack([{ splitId: 1, offset: 0 }, { splitId: 0, offset: 0 }], 1);
    expect(e.snapshotState()).toEqual({
      unassigned: [{ splitId: 0, offset: 0 }, { splitId: 1, offset: 0 },
        { splitId: 2, offset: 0 }], assigned: [],
    });
    expect(() => e.addSplitsBack([{ splitId: 2, offset: 0 }], 0)).toThrow(/returned twice/);
  });

  test('restores from its state; the snapshot is frozen', () => {
    const e = new SplitEnumerator([0, 1, 2],
      { unassigned: [{ splitId: 2, offset: 0 }], assigned: [0, 1] });
    const state = e.snapshotState();
    expect(Object.isFrozen(state.unassigned)).toBe(true);
    expect(e.handleSplitRequest(0)).toEqual({ kind: 'assign', split: { splitId: 2, offset: 0 } });
    expect(state.unassigned).toHaveLength(1);
    expect(() => new SplitEnumerator([0], { unassigned: [{ splitId: 5, offset: 0 }], assigned: [] }))
      .toThrow(/unknown split/);
    expect(() => new SplitEnumerator([0], { unassigned: [], assigned: [5] })).toThrow(
      /unknown split/);
    expect(() => new SplitEnumerator([0, 1], { unassigned: [], assigned: [0] })).toThrow(/neither/);
  });
});
