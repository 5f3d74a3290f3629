import { expect, test } from 'vitest';
import { collectSink, recordIdentity, splitSource, StreamExecutionEnvironment } from '../engine/index.ts';
import type { Collector, KeyedProcessFunction } from '../engine/index.ts';
import { compareTags, flatMapOutputTag, keyedOutputTag, operatorRanks, tagSegment } from './outputTag.ts';
import { referenceFold } from './referenceFold.ts';

test('keyed output 0 keeps the tag, output i >= 1 appends /<uid>.i; a flatMap appends to every output', () => {
  const k = tagSegment('k');
  expect(keyedOutputTag('', k, 0)).toBe('');
  expect(keyedOutputTag('', k, 2)).toBe('/k.2');
  expect(keyedOutputTag('/j.1', k, 0)).toBe('/j.1');
  expect(keyedOutputTag('/j.1', k, 3)).toBe('/j.1/k.3');
  expect(flatMapOutputTag('', tagSegment('fm'), 0)).toBe('/fm.0');
  expect(flatMapOutputTag('/fm.1', tagSegment('chars'), 2)).toBe('/fm.1/chars.2');
  expect(() => keyedOutputTag('', k, -1)).toThrow(/non-negative integer/);
  expect(() => flatMapOutputTag('', k, 1.5)).toThrow(/non-negative integer/);
});

test('a uid with % or / is escaped, so a segment never spans two', () => {
  expect(tagSegment('a/b.c%')).toBe('/a%2Fb.c%25.');
  expect(tagSegment('%2F')).toBe('/%252F.');
});

test('two multi-output keyed stages in a row give every record its own tag', () => {
  const env = new StreamExecutionEnvironment();
  const twice: KeyedProcessFunction<number, number, number> = {
    processElement(v: number, _ctx, out: Collector<number>) { out.collect(v); out.collect(v); },
  };
  env.fromSource(splitSource([{ id: 0, records: [7] }]))
    .keyBy((v: number) => v).process(twice, { uid: 'j' })
    .keyBy((v: number) => v).process(twice, { uid: 'k' })
    .sinkTo(collectSink([]), { uid: 'out' });
  const ids = referenceFold(env.getStreamGraph()).outputs.map(recordIdentity);
  // Under the old rule (`/i`), output 1 of output 0 and output 0 of output 1 were both `0:0/1`.
  expect(ids).toEqual(['0:0', '0:0/k.1', '0:0/j.1', '0:0/j.1/k.1']);
});

test('compareTags orders tags of one input record by emission order', () => {
  // Source, keyed j, flatMap fm, keyed k, sink: node order is upstream first.
  const ranks = new Map([['src', 0], ['j', 1], ['fm', 2], ['k', 3], ['sink', 4]]);
  const emitted = ['/fm.0', '/fm.0/k.1', '/fm.0/k.2', '/fm.1', '/fm.1/k.1', '/j.1/fm.0', '/j.1/fm.0/k.1', '/j.2/fm.0'];
  const shuffled = [...emitted].reverse();
  expect(shuffled.sort((a, b) => compareTags(a, b, ranks))).toEqual(emitted);
  // Keyed stages only: an operator a tag does not name counts as output 0.
  const keyed = ['', '/k.1', '/j.1', '/j.1/k.1', '/j.2'];
  expect([...keyed].reverse().sort((a, b) => compareTags(a, b, ranks))).toEqual(keyed);
  expect(compareTags('/j.1', '/j.1', ranks)).toBe(0);
  // Operators not ranked count after every ranked one.
  expect(compareTags('/k.1/zz.1', '/k.1/zz.2', ranks)).toBeLessThan(0);
  expect(compareTags('/zz.1', '/k.1', ranks)).toBeLessThan(0);
});

test('operatorRanks ranks uids in node order', () => {
  const env = new StreamExecutionEnvironment();
  env.fromSource(splitSource([{ id: 0, records: [1] }]), { uid: 's' }).map((v: number) => v, { uid: 'm' })
    .sinkTo(collectSink([]), { uid: 'out' });
  expect([...operatorRanks(env.getStreamGraph())]).toEqual([['s', 0], ['m', 1], ['out', 2]]);
});
