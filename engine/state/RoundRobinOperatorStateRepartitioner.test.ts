import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { AssertionError } from '../util/assert.ts';
import { javaHashMapKeyOrder } from './javaHashMapKeyOrder.ts';
import { operatorStateHandle } from './OperatorStateHandle.ts';
import type { OperatorStateHandle, OperatorStateMode } from './OperatorStateHandle.ts';
import { RoundRobinOperatorStateRepartitioner } from './RoundRobinOperatorStateRepartitioner.ts';

type VectorHandle = {
  handle: string;
  states: Record<string, { mode: OperatorStateMode; offsets: number[] }>;
};
interface VectorCase {
  id: string;
  oldParallelism: number;
  newParallelism: number;
  javaHashMapStateNameOrder: string[];
  old: VectorHandle[][];
  new: VectorHandle[][];
}

const vectors = JSON.parse(readFileSync(
  new URL('../testing/data/flink-vectors.json', import.meta.url), 'utf8',
)) as { roundRobinRepartition: { cases: VectorCase[] } };

const repartitioner = RoundRobinOperatorStateRepartitioner.INSTANCE;

function fromVector(h: VectorHandle): OperatorStateHandle<number> {
  return operatorStateHandle(h.handle, Object.entries(h.states).map(
    ([name, s]) => [name, { mode: s.mode, elements: s.offsets }] as const));
}

/**
 * The vectors' normal form: handles sorted by name, state names sorted alphabetically (Flink's
 * order inside a subtask is HashMap order and has no meaning).
 */
function toVector(handles: readonly OperatorStateHandle<number>[]): VectorHandle[] {
  return handles.map((h) => ({
    handle: h.handleId,
    states: Object.fromEntries([...h.states].sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, m]) => [name, { mode: m.mode, offsets: [...m.elements] }])),
  })).sort((a, b) => (a.handle < b.handle ? -1 : 1));
}

describe('flink-vectors roundRobinRepartition', () => {
  test('has the 8 documented cases', () => {
    expect(vectors.roundRobinRepartition.cases.map((c) => c.id)).toEqual([
      'split-2-to-3', 'split-2-to-4', 'split-2-to-7', 'split-same-parallelism',
      'two-split-states-2-to-3', 'union-same-parallelism', 'broadcast-3-to-2', 'mixed-2-to-3',
    ]);
  });

  for (const c of vectors.roundRobinRepartition.cases) {
    test(c.id, () => {
      const old = c.old.map((subtask) => subtask.map(fromVector));
      const result = repartitioner.repartitionState(old, c.oldParallelism, c.newParallelism);
      expect(result).toHaveLength(c.newParallelism);
      const expected = c.new.map((subtask) => toVector(subtask.map(fromVector)));
      expect(result.map(toVector)).toEqual(expected);
      // The names of all states in the case, in first-seen order, iterate like Java's HashMap.
      const names = [...new Set(c.old.flat().flatMap((h) => Object.keys(h.states)))];
      expect(javaHashMapKeyOrder(names)).toEqual(c.javaHashMapStateNameOrder);
    });
  }

  test('unchanged parallelism without union or partial broadcast returns the same handles', () => {
    const c = vectors.roundRobinRepartition.cases.find((x) => x.id === 'split-same-parallelism');
    const old = (c as VectorCase).old.map((subtask) => subtask.map(fromVector));
    const result = repartitioner.repartitionState(old, 2, 2);
    expect(result[0]?.[0]).toBe(old[0]?.[0]);
    expect(result[1]?.[0]).toBe(old[1]?.[0]);
  });
});

describe('round-robin details', () => {
  const split = (id: string, name: string, elements: number[]): OperatorStateHandle<number> =>
    operatorStateHandle(id, { [name]: { mode: 'SPLIT_DISTRIBUTE', elements } });

  test('the start subtask rotates between split names when there is a remainder', () => {
    // Two names of 4 elements each over 3 subtasks: name one gives the extra element to
    // subtask 0, so name two starts at subtask 1 (the first without an extra element).
    const old = [[operatorStateHandle('h0', {
      a: { mode: 'SPLIT_DISTRIBUTE', elements: [1, 2, 3, 4] },
      b: { mode: 'SPLIT_DISTRIBUTE', elements: [5, 6, 7, 8] },
    })]];
    const result = repartitioner.repartitionState(old, 1, 3);
    const count = (i: number, name: string): number =>
      result[i]?.[0]?.states.get(name)?.elements.length ?? 0;
    expect([0, 1, 2].map((i) => count(i, 'a'))).toEqual([2, 1, 1]);
    expect([0, 1, 2].map((i) => count(i, 'b'))).toEqual([1, 2, 1]);
    expect(result[1]?.[0]?.states.get('b')?.elements).toEqual([5, 6]);
  });

  test('an empty list passed over while assigning travels as an empty entry', () => {
    const old = [[split('h0', 's', [1])], [split('h1', 's', [])], [split('h2', 's', [2])]];
    const result = repartitioner.repartitionState(old, 3, 2);
    // Subtask 0 takes h0's element and stops; subtask 1 passes over h1's empty list on its
    // way to h2 and so receives an empty entry of h1.
    expect(result[0]?.map((h) => [h.handleId, h.states.get('s')?.elements])).toEqual([
      ['h0', [1]],
    ]);
    expect(result[1]?.map((h) => [h.handleId, h.states.get('s')?.elements])).toEqual([
      ['h1', []], ['h2', [2]],
    ]);
  });

  test('partly reported broadcast state is re-spread at unchanged parallelism', () => {
    const bc = (id: string, elements: number[]): OperatorStateHandle<number> =>
      operatorStateHandle(id, { bc: { mode: 'BROADCAST', elements } });
    const old = [[bc('h0', [10])], [split('h1', 's', [1])], [bc('h2', [30])]];
    const result = repartitioner.repartitionState(old, 3, 3);
    const view = result.map((hs) => hs.map((h) => [h.handleId, [...h.states.keys()]]));
    // Subtask 1 takes reported entry 1 (h2's); subtask 2 keeps h2 and also gets entry 2 mod 2.
    expect(view).toEqual([
      [['h0', ['bc']]],
      [['h1', ['s']], ['h2', ['bc']]],
      [['h0', ['bc']], ['h2', ['bc']]],
    ]);
  });

  test('fully reported broadcast at unchanged parallelism is returned unchanged', () => {
    const old = [0, 1].map((i) => [operatorStateHandle(`h${i}`, {
      bc: { mode: 'BROADCAST', elements: [i] },
    })]);
    const result = repartitioner.repartitionState(old, 2, 2);
    expect(result[0]?.[0]).toBe(old[0]?.[0]);
  });

  test('rejects a mismatched old parallelism', () => {
    expect(() => repartitioner.repartitionState([[]], 2, 2)).toThrow(AssertionError);
    expect(() => repartitioner.repartitionState([[]], 1, 0)).toThrow(AssertionError);
  });
});

describe('testPartitionableStateRepartitioning invariants', () => {
  const modes: OperatorStateMode[] = ['SPLIT_DISTRIBUTE', 'UNION', 'BROADCAST'];
  const arbCase = fc.record({
    oldP: fc.integer({ min: 1, max: 9 }),
    newP: fc.integer({ min: 1, max: 9 }),
    states: fc.uniqueArray(fc.record({
      name: fc.string({ minLength: 1, maxLength: 4 }),
      mode: fc.constantFrom(...modes),
      sizes: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 9, maxLength: 9 }),
    }), { selector: (s) => s.name, maxLength: 5 }),
  });

  test('split once, union newP times, broadcast by modulo, balanced split load', () => {
    fc.assert(fc.property(arbCase, ({ oldP, newP, states }) => {
      let next = 0;
      const old = Array.from({ length: oldP }, (_, subtask) => [operatorStateHandle(
        `h${subtask}`,
        states.map((s) => [s.name, {
          mode: s.mode,
          elements: Array.from({ length: s.mode === 'BROADCAST' ? 1 : s.sizes[subtask] ?? 0 },
            () => next++),
        }] as const),
      )]);
      const result = repartitioner.repartitionState(old, oldP, newP);
      expect(result).toHaveLength(newP);
      for (const s of states) {
        const all = old.flatMap((hs) => hs.flatMap((h) => h.states.get(s.name)?.elements ?? []));
        const got = result.map((hs) => hs.flatMap((h) => h.states.get(s.name)?.elements ?? []));
        if (s.mode === 'SPLIT_DISTRIBUTE') {
          expect(got.flat().sort((a, b) => a - b)).toEqual(all);
          if (oldP !== newP) {
            const loads = got.map((g) => g.length);
            expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
          }
        } else if (s.mode === 'UNION') {
          for (const g of got) {
            expect(g.slice().sort((a, b) => a - b)).toEqual(all);
          }
        } else {
          // Every subtask reported, so each new subtask gets exactly old subtask i mod oldP's.
          got.forEach((g, i) =>
            expect(g).toEqual(old[i % oldP]?.[0]?.states.get(s.name)?.elements));
        }
      }
    }), { numRuns: 500 });
  });
});

describe('javaHashMapKeyOrder', () => {
  test('colliding keys keep insertion order', () => {
    expect(javaHashMapKeyOrder(['BB', 'Aa'])).toEqual(['BB', 'Aa']);
    expect(javaHashMapKeyOrder(['Aa', 'BB', 'Aa'])).toEqual(['Aa', 'BB']);
  });

  test('orders by bucket of a 16-slot table', () => {
    // "a".."d" hash to 97..100 -> buckets 1..4; "p" (112) -> bucket 0.
    expect(javaHashMapKeyOrder(['d', 'c', 'p', 'b', 'a'])).toEqual(['p', 'a', 'b', 'c', 'd']);
  });

  test('grows the table past 12 keys and when one bucket reaches 9 keys', () => {
    // "a" (97) and "q" (113) share bucket 1 of 16 but split at 32 (buckets 1 and 17).
    const fillers = ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'];
    expect(javaHashMapKeyOrder(['q', 'a', ...fillers])[0]).toBe('q'); // 12 keys: 16 slots
    expect(javaHashMapKeyOrder(['q', 'a', ...fillers, 'l'])[0]).toBe('a'); // 13 keys: 32
    // Nine single chars 16 apart collide in bucket 1 of 16; the ninth forces a table of 32
    // (a small table grows instead of making a tree bucket), where they fall in buckets 1, 17.
    const colliding = Array.from({ length: 9 }, (_, i) => String.fromCharCode(33 + 16 * i));
    const order = javaHashMapKeyOrder(colliding.slice().reverse());
    expect(order).toEqual(colliding.slice().sort((x, y) =>
      ((x.charCodeAt(0) & 31) - (y.charCodeAt(0) & 31))
      || colliding.indexOf(y) - colliding.indexOf(x)));
  });
});
