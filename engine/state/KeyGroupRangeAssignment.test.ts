import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { AssertionError } from '../util/assert.ts';
import { IllegalArgumentError } from './IllegalArgumentError.ts';
import { KeyGroupRange } from './KeyGroupRange.ts';
import {
  assignKeyToParallelOperator,
  assignToKeyGroup,
  bitMix,
  checkParallelismPreconditions,
  computeDefaultMaxParallelism,
  computeKeyGroupForKeyHash,
  computeKeyGroupRangeForOperatorIndex,
  computeOperatorIndexForKeyGroup,
  javaHashCode,
  murmurHash,
  roundUpToPowerOfTwo,
} from './KeyGroupRangeAssignment.ts';
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';

interface KeyVector {
  type: 'java.lang.String' | 'java.lang.Integer' | 'java.lang.Long';
  value: string | number;
  utf16CodeUnits?: number[];
  javaHashCode: number;
  murmurHash: number;
  byMaxParallelism: Record<string, {
    keyGroup: number;
    operatorIndexByParallelism: Record<string, number>;
  }>;
}
interface Vectors {
  keys: KeyVector[];
  murmurHashRaw: { input: number; murmurHash: number; bitMix: number }[];
  keyGroupRanges: { maxParallelism: number; parallelism: number; ranges: [number, number][] }[];
  operatorIndexForEveryKeyGroup: {
    maxParallelism: number; parallelism: number; operatorIndexByKeyGroup: number[];
  }[];
  defaultMaxParallelism: { parallelism: number; defaultMaxParallelism: number }[];
  defaultMaxParallelismRejected: { parallelism: number; result: string }[];
}

const vectors = JSON.parse(readFileSync(
  new URL('../testing/data/flink-vectors.json', import.meta.url), 'utf8',
)) as Vectors;

function toKey(v: KeyVector): PartitionKey {
  switch (v.type) {
    case 'java.lang.String': return String(v.value);
    case 'java.lang.Integer': return Number(v.value);
    case 'java.lang.Long': return BigInt(v.value);
  }
}

describe('flink-vectors keys', () => {
  test('has the documented 46 keys of three types', () => {
    expect(vectors.keys).toHaveLength(46);
    expect(new Set(vectors.keys.map((k) => k.type)).size).toBe(3);
  });

  for (const [index, v] of vectors.keys.entries()) {
    test(`key #${index} ${v.type} ${JSON.stringify(v.value)}`, () => {
      const key = toKey(v);
      if (v.utf16CodeUnits !== undefined && typeof key === 'string') {
        expect(Array.from({ length: key.length }, (_, i) => key.charCodeAt(i)))
          .toEqual(v.utf16CodeUnits);
      }
      expect(javaHashCode(key)).toBe(v.javaHashCode);
      expect(murmurHash(v.javaHashCode)).toBe(v.murmurHash);
      const maxPs = Object.keys(v.byMaxParallelism);
      expect(maxPs.sort()).toEqual(['128', '4096']);
      for (const [maxPText, byMaxP] of Object.entries(v.byMaxParallelism)) {
        const maxP = Number(maxPText);
        expect(assignToKeyGroup(key, maxP)).toBe(byMaxP.keyGroup);
        expect(computeKeyGroupForKeyHash(v.javaHashCode, maxP)).toBe(byMaxP.keyGroup);
        expect(Object.keys(byMaxP.operatorIndexByParallelism).sort())
          .toEqual(['1', '2', '3', '4', '7']);
        for (const [pText, index] of Object.entries(byMaxP.operatorIndexByParallelism)) {
          const p = Number(pText);
          expect(computeOperatorIndexForKeyGroup(maxP, p, byMaxP.keyGroup)).toBe(index);
          expect(assignKeyToParallelOperator(key, maxP, p)).toBe(index);
          expect(computeKeyGroupRangeForOperatorIndex(maxP, p, index).contains(byMaxP.keyGroup))
            .toBe(true);
        }
      }
    });
  }
});

describe('flink-vectors murmurHashRaw', () => {
  for (const v of vectors.murmurHashRaw) {
    test(`murmurHash and bitMix of ${v.input}`, () => {
      expect(murmurHash(v.input)).toBe(v.murmurHash);
      expect(bitMix(v.input)).toBe(v.bitMix);
    });
  }
});

describe('flink-vectors keyGroupRanges', () => {
  for (const v of vectors.keyGroupRanges) {
    test(`ranges for maxP ${v.maxParallelism}, p ${v.parallelism}`, () => {
      expect(v.ranges).toHaveLength(v.parallelism);
      for (const [i, [start, end]] of v.ranges.entries()) {
        const range = computeKeyGroupRangeForOperatorIndex(v.maxParallelism, v.parallelism, i);
        expect({ start: range.startKeyGroup, end: range.endKeyGroup }).toEqual({ start, end });
        for (const kg of range) {
          expect(computeOperatorIndexForKeyGroup(v.maxParallelism, v.parallelism, kg)).toBe(i);
        }
      }
    });
  }
});

describe('flink-vectors operatorIndexForEveryKeyGroup', () => {
  for (const v of vectors.operatorIndexForEveryKeyGroup) {
    test(`table for maxP ${v.maxParallelism}, p ${v.parallelism}`, () => {
      expect(v.operatorIndexByKeyGroup).toHaveLength(v.maxParallelism);
      const table = Array.from({ length: v.maxParallelism },
        (_, kg) => computeOperatorIndexForKeyGroup(v.maxParallelism, v.parallelism, kg));
      expect(table).toEqual(v.operatorIndexByKeyGroup);
    });
  }
});

describe('flink-vectors defaultMaxParallelism', () => {
  for (const v of vectors.defaultMaxParallelism) {
    test(`default max parallelism of ${v.parallelism}`, () => {
      expect(computeDefaultMaxParallelism(v.parallelism)).toBe(v.defaultMaxParallelism);
    });
  }
  for (const v of vectors.defaultMaxParallelismRejected) {
    test(`rejects parallelism ${v.parallelism}`, () => {
      const expected = v.result.replace(/^IllegalArgumentException: /, '');
      expect(() => computeDefaultMaxParallelism(v.parallelism)).toThrow(IllegalArgumentError);
      expect(() => computeDefaultMaxParallelism(v.parallelism)).toThrow(expected);
    });
  }
});

describe('preconditions', () => {
  test('range computation checks p, maxP and p <= maxP like Flink', () => {
    expect(() => computeKeyGroupRangeForOperatorIndex(128, 0, 0)).toThrow(IllegalArgumentError);
    expect(() => computeKeyGroupRangeForOperatorIndex(32769, 2, 0))
      .toThrow('Operator parallelism not within bounds: 32769');
    expect(() => computeKeyGroupRangeForOperatorIndex(4, 8, 0))
      .toThrow('Maximum parallelism must not be smaller than parallelism.');
    expect(() => computeKeyGroupRangeForOperatorIndex(128, 4, 4)).toThrow(AssertionError);
    expect(() => computeKeyGroupRangeForOperatorIndex(128, 4, -1)).toThrow(AssertionError);
    expect(() => checkParallelismPreconditions(1.5)).toThrow(IllegalArgumentError);
    expect(() => checkParallelismPreconditions(32768)).not.toThrow();
  });

  test('key groups and keys outside their domains are programmer errors', () => {
    expect(() => computeOperatorIndexForKeyGroup(128, 4, 128)).toThrow(AssertionError);
    expect(() => computeOperatorIndexForKeyGroup(128, 4, -1)).toThrow(AssertionError);
    expect(() => computeOperatorIndexForKeyGroup(4, 8, 0)).toThrow(AssertionError);
    expect(() => assignToKeyGroup('a', 0)).toThrow(AssertionError);
    expect(() => assignToKeyGroup('a', 32769)).toThrow(AssertionError);
    expect(() => javaHashCode(1.5)).toThrow(AssertionError);
    expect(() => javaHashCode(2 ** 31)).toThrow(AssertionError);
    expect(() => javaHashCode(1n << 63n)).toThrow(AssertionError);
    expect(javaHashCode(-(1n << 63n))).toBe(-2147483648);
    expect(javaHashCode(-1n)).toBe(0);
  });

  test('roundUpToPowerOfTwo', () => {
    expect([1, 2, 3, 5, 128, 129].map(roundUpToPowerOfTwo)).toEqual([1, 2, 4, 8, 128, 256]);
  });
});

describe('properties', () => {
  test('every key group lies in the range of its operator index (testCreateKeyGroupPartitions)',
    () => {
      for (const [maxP, p] of [[1, 1], [13, 1], [13, 2], [32767, 13]] as const) {
        checkPartitions(maxP, p);
      }
      fc.assert(fc.property(
        fc.integer({ min: 1, max: 32768 }).chain((maxP) =>
          fc.tuple(fc.constant(maxP), fc.integer({ min: 1, max: Math.min(maxP, 300) }))),
        ([maxP, p]) => {
          checkPartitions(maxP, p);
        },
      ), { numRuns: 200 });
    });

  test('key groups of random keys are in range and routing agrees with ranges', () => {
    fc.assert(fc.property(
      fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.bigInt({
        min: -(1n << 63n), max: (1n << 63n) - 1n,
      })),
      fc.integer({ min: 1, max: 32768 }),
      (key, maxP) => {
        const kg = assignToKeyGroup(key, maxP);
        expect(kg).toBeGreaterThanOrEqual(0);
        expect(kg).toBeLessThan(maxP);
        const p = Math.max(1, Math.floor(maxP / 3));
        const index = assignKeyToParallelOperator(key, maxP, p);
        expect(computeKeyGroupRangeForOperatorIndex(maxP, p, index).contains(kg)).toBe(true);
      },
    ), { numRuns: 300 });
  });
});

function checkPartitions(maxP: number, p: number): void {
  const ranges = Array.from({ length: p },
    (_, i) => computeKeyGroupRangeForOperatorIndex(maxP, p, i));
  let expectedStart = 0;
  for (const range of ranges) {
    expect(range.startKeyGroup).toBe(expectedStart);
    expectedStart = range.endKeyGroup + 1;
  }
  expect(expectedStart).toBe(maxP);
  for (let kg = 0; kg < maxP; kg += Math.max(1, Math.floor(maxP / 97))) {
    const range = ranges[computeOperatorIndexForKeyGroup(maxP, p, kg)];
    expect(range?.contains(kg)).toBe(true);
  }
}

describe('KeyGroupRange', () => {
  test('of, size, contains, intersection, iteration', () => {
    const r = KeyGroupRange.of(3, 7);
    expect(r.getNumberOfKeyGroups()).toBe(5);
    expect(r.size()).toBe(5);
    expect([...r]).toEqual([3, 4, 5, 6, 7]);
    expect(r.contains(3) && r.contains(7) && !r.contains(2) && !r.contains(8)).toBe(true);
    expect(r.getIntersection(KeyGroupRange.of(5, 10)).equals(KeyGroupRange.of(5, 7))).toBe(true);
    expect(r.intersection(KeyGroupRange.of(8, 10))).toBe(KeyGroupRange.EMPTY);
    expect(KeyGroupRange.of(4, 3)).toBe(KeyGroupRange.EMPTY);
    expect(KeyGroupRange.EMPTY.isEmpty()).toBe(true);
    expect(KeyGroupRange.EMPTY.size()).toBe(0);
    expect([...KeyGroupRange.EMPTY]).toEqual([]);
    expect(KeyGroupRange.EMPTY).toBeInstanceOf(KeyGroupRange);
    expect(r.getKeyGroupId(0)).toBe(3);
    expect(() => r.getKeyGroupId(5)).toThrow(IllegalArgumentError);
    expect(r.toString()).toBe('KeyGroupRange{startKeyGroup=3, endKeyGroup=7}');
    expect(() => new KeyGroupRange(-1, 2)).toThrow(IllegalArgumentError);
    expect(() => new KeyGroupRange(3, 2)).toThrow(IllegalArgumentError);
    expect(() => KeyGroupRange.of(-2, 2)).toThrow(IllegalArgumentError);
    expect(Object.isFrozen(r)).toBe(true);
  });
});
