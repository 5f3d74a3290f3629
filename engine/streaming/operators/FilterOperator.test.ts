import { describe, expect, test } from 'vitest';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { FilterOperator } from './FilterOperator.ts';
import { TestingOutput } from './testing/TestingOperatorContext.ts';

const rec = (value: unknown, tag = ''): StreamRecord => ({ value, split: 2, offset: 5, tag });

describe('FilterOperator', () => {
  test('filter passes the record itself or nothing', () => {
    const op = new FilterOperator('f', (v) => (v as number) > 0);
    const out = new TestingOutput();
    op.setup(out);
    const kept = rec(1);
    op.processElement(kept);
    op.processElement(rec(-1));
    expect(out.records).toEqual([kept]);
  });
});
