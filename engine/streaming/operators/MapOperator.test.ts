import { describe, expect, test } from 'vitest';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { MapOperator } from './MapOperator.ts';
import { TestingOutput } from './testing/TestingOperatorContext.ts';

const rec = (value: unknown, tag = ''): StreamRecord => ({ value, split: 2, offset: 5, tag });

describe('MapOperator', () => {
  test('map keeps the identity', () => {
    const op = new MapOperator('m', (v) => (v as number) * 2);
    const out = new TestingOutput();
    op.setup(out);
    op.processElement(rec(21, '/0'));
    expect(out.records).toEqual([{ value: 42, split: 2, offset: 5, tag: '/0' }]);
    expect(op.snapshotState(1)).toBeUndefined();
  });

  test('default hooks do nothing', () => {
    const op = new MapOperator('m', (v) => v);
    op.initializeState(undefined);
    op.open();
    op.prepareSnapshotPreBarrier(1);
    op.notifyCheckpointComplete(1);
    op.notifyCheckpointAborted(1);
    op.endInput();
    op.finish();
    op.close();
    expect(op.uid).toBe('m');
  });
});
