import { describe, expect, test } from 'vitest';
import { collectSink } from '../../engine/index.ts';
import { countWords, tokenizeLine, wordcountJob, WORDCOUNT_TEXT, WORDCOUNT_UIDS, wordKey } from './wordcount.ts';

describe('wordcount', () => {
  test('tokenizes into lowercased runs of letters', () => {
    const words: string[] = [];
    tokenizeLine("The mill's wheel -- turns, TURNS; 42 times!", { collect: (w) => words.push(w) });
    expect(words).toEqual(['the', 'mill', 's', 'wheel', 'turns', 'turns', 'times']);
    expect(wordKey('x')).toBe('x');
  });

  test('the built-in text has a few dozen lines', () => {
    expect(WORDCOUNT_TEXT.length).toBeGreaterThanOrEqual(24);
  });

  test('builds lines -> tokenize -> keyBy(word) -> count -> sink', () => {
    const graph = wordcountJob({ sink: collectSink([]), parallelism: 2, maxParallelism: 32, splits: 3 });
    expect(graph.nodes.map((n) => [n.uid, n.spec.kind, n.parallelism, n.maxParallelism])).toEqual([
      [WORDCOUNT_UIDS.source, 'source', 2, 32], [WORDCOUNT_UIDS.tokenize, 'flatMap', 2, 32],
      [WORDCOUNT_UIDS.count, 'keyedProcess', 2, 32], [WORDCOUNT_UIDS.sink, 'sink', 2, 32],
    ]);
    expect(graph.edges.map((e) => e.partitioner)).toEqual(['forward', 'hash', 'forward']);
    const source = graph.nodes[0]?.spec;
    expect(source?.kind === 'source' && source.source.splits.flatMap((s) => s.records)).toEqual([...WORDCOUNT_TEXT]);
    const count = graph.nodes[2]?.spec;
    expect(count?.kind === 'keyedProcess' && count.fn).toBe(countWords);
  });

  test('custom lines and defaults', () => {
    const graph = wordcountJob({ sink: collectSink([]), lines: ['a b', 'c'] });
    const source = graph.nodes[0]?.spec;
    expect(source?.kind === 'source' && source.source.splits.map((s) => s.records)).toEqual([['a b'], ['c'], [], []]);
    expect(graph.nodes.every((n) => n.parallelism === 1)).toBe(true);
  });
});
