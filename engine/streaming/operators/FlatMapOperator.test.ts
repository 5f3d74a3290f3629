import { describe, expect, test } from 'vitest';
import { recordIdentity, type StreamRecord } from '../api/StreamRecord.ts';
import { tagSegment } from '../api/StreamRecord.ts';
import { FlatMapOperator } from './FlatMapOperator.ts';
import { TestingOutput } from './testing/TestingOperatorContext.ts';

const rec = (value: unknown, tag = ''): StreamRecord => ({ value, split: 2, offset: 5, tag });

describe('FlatMapOperator', () => {
  test('flatMap tags the i-th output /<uid>.i, and nested flatMaps append', () => {
    const split = new FlatMapOperator('fm',
      (v, out) => (v as string).split(' ').forEach((w) => out.collect(w)));
    const chars = new FlatMapOperator('chars',
      (v, out) => [...(v as string)].forEach((c) => out.collect(c)));
    const out = new TestingOutput();
    chars.setup(out);
    split.setup({ collect: (r) => chars.processElement(r) });
    split.processElement(rec('ab c'));
    split.processElement(rec(''));
    expect(out.values()).toEqual(['a', 'b', 'c']);
    expect(out.records.map(recordIdentity)).toEqual(['2:5/fm.0/chars.0', '2:5/fm.0/chars.1', '2:5/fm.1/chars.0']);
  });

  test('a uid with % or / is escaped in the tag', () => {
    expect(tagSegment('a/b%c')).toBe('/a%2Fb%25c.');
    const op = new FlatMapOperator('x/y', (v, out) => out.collect(v));
    const out = new TestingOutput();
    op.setup(out);
    op.processElement(rec(1, '/fm.1'));
    expect(out.records.map(recordIdentity)).toEqual(['2:5/fm.1/x%2Fy.0']);
  });
});
