import { describe, expect, test } from 'vitest';
import { InvalidJobError } from './InvalidJobError.ts';
import { consecutiveSplits, splitSource, twoPhaseCommitSink, type SplitData } from './sources.ts';
import { TwoPhaseCommitSinkFunction } from './TwoPhaseCommitSinkFunction.ts';
import { InvalidJobError as ReExported } from './StreamExecutionEnvironment.ts';

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidJobError);
    expect((e as Error).message).not.toMatch(/\n|Infinity|NaN/);
    return e as Error;
  }
  throw new Error('expected an InvalidJobError');
}

describe('sources', () => {
  test('InvalidJobError is still exported from StreamExecutionEnvironment', () => {
    expect(ReExported).toBe(InvalidJobError);
  });

  test('consecutiveSplits cuts records into nearly equal consecutive splits', () => {
    expect(consecutiveSplits([1, 2, 3, 4, 5], 2)).toEqual([
      { id: 0, records: [1, 2, 3] }, { id: 1, records: [4, 5] },
    ]);
    expect(consecutiveSplits([], 2)).toEqual([{ id: 0, records: [] }, { id: 1, records: [] }]);
  });

  test.each([
    [0, 'consecutiveSplits: split count must be a positive integer, got 0'],
    [1.5, 'consecutiveSplits: split count must be a positive integer, got 1.5'],
    [Number.NaN, 'consecutiveSplits: split count must be a positive integer, got a non-finite number'],
    [Number.POSITIVE_INFINITY, 'consecutiveSplits: split count must be a positive integer, got a non-finite number'],
    ['2', 'consecutiveSplits: split count must be a positive integer, got a string'],
  ])('consecutiveSplits rejects count %s with InvalidJobError', (count, message) => {
    expect(thrown(() => consecutiveSplits([1, 2], count as number)).message).toBe(message);
  });

  test('consecutiveSplits rejects records that are not an array', () => {
    expect(thrown(() => consecutiveSplits('ab' as unknown as string[], 1)).message)
      .toBe('consecutiveSplits: records must be an array');
  });

  test('splitSource accepts distinct ids and rejects duplicates and malformed splits', () => {
    const splits: SplitData<number>[] = [{ id: 0, records: [1] }, { id: 3, records: [] }];
    expect(splitSource(splits)).toEqual({ kind: 'splits', splits });
    expect(thrown(() => splitSource([{ id: 1, records: [] }, { id: 1, records: [2] }])).message)
      .toBe('splitSource: duplicate split id 1');
    expect(thrown(() => splitSource([{ id: -1, records: [] }])).message)
      .toBe('splitSource: split 0 has an id that is not a non-negative integer');
    expect(thrown(() => splitSource([{ id: 0 } as unknown as SplitData<number>])).message)
      .toBe('splitSource: split 0 has no records array');
    expect(thrown(() => splitSource([null as unknown as SplitData<number>])).message)
      .toBe('splitSource: split 0 is not an object');
    expect(thrown(() => splitSource({} as unknown as SplitData<number>[])).message)
      .toBe('splitSource: splits must be an array');
  });
});

describe('twoPhaseCommitSink', () => {
  test('without a function it is the built-in sink, with no create key at all', () => {
    expect(twoPhaseCommitSink('out')).toStrictEqual({ kind: 'two-phase-commit', name: 'out' });
    expect(Object.keys(twoPhaseCommitSink('out', undefined))).toEqual(['kind', 'name']);
  });

  test('with a function it keeps the factory; a factory that is not a function is refused', () => {
    const create = (): TwoPhaseCommitSinkFunction => new TwoPhaseCommitSinkFunction();
    expect(twoPhaseCommitSink('out', create)).toEqual({ kind: 'two-phase-commit', name: 'out', create });
    expect(thrown(() => twoPhaseCommitSink('out', 'nope' as never)).message).toBe(
      'twoPhaseCommitSink: create must be a function making the sink function');
  });
});
