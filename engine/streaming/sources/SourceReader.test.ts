import { describe, expect, test } from 'vitest';
import { recordIdentity } from '../api/StreamRecord.ts';
import { TestingOutput } from '../operators/testing/TestingOperatorContext.ts';
import { SourceReader } from './SourceReader.ts';

function reader(): {
  r: SourceReader; requests: () => number; out: TestingOutput; emitted: string[];
} {
  let n = 0;
  const emitted: string[] = [];
  const r = new SourceReader(
    [{ id: 0, records: ['x', 'y'] }, { id: 1, records: [] }, { id: 2, records: ['z'] }],
    { sendSplitRequest: () => n++, recordEmitted: (split, offset) => emitted.push(`${split}:${offset}`) });
  return { r, requests: () => n, out: new TestingOutput(), emitted };
}

describe('SourceReader', () => {
  test('reads held splits in assignment order from their offsets; one request per finished split',
    () => {
    const { r, requests, out, emitted } = reader();
    expect(r.isAvailable()).toBe(false);
    expect(r.pollNext(out)).toBe('NOTHING_AVAILABLE');
    r.addSplits([{ splitId: 2, offset: 0 }, { splitId: 1, offset: 0 }, { splitId: 0, offset: 1 }]);
    expect(r.snapshotState()).toEqual(
      [{ splitId: 2, offset: 0 }, { splitId: 1, offset: 0 }, { splitId: 0, offset: 1 }]);
    r.checkInvariants();
    expect(r.pollNext(out)).toBe('MORE_AVAILABLE');
    expect(requests()).toBe(1);
    expect(r.pollNext(out)).toBe('MORE_AVAILABLE'); // skips the empty split 1
    expect(requests()).toBe(3);
    expect(r.pollNext(out)).toBe('NOTHING_AVAILABLE');
    expect(out.records.map(recordIdentity)).toEqual(['2:0', '0:1']);
    expect(emitted).toEqual(['2:0', '0:1']);
    expect(r.isIdle).toBe(true);
    r.notifyNoMoreSplits();
    expect(r.isAvailable()).toBe(true);
    expect(r.pollNext(out)).toBe('END_OF_INPUT');
  });

  test('a split restored at its end is finished without a record', () => {
    const { r, requests, out } = reader();
    r.addSplits([{ splitId: 0, offset: 2 }]);
    r.notifyNoMoreSplits();
    expect(r.pollNext(out)).toBe('END_OF_INPUT');
    expect(out.records).toEqual([]);
    expect(requests()).toBe(0);
  });
});
