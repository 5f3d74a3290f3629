import { describe, expect, test } from 'vitest';
import { collectSink } from '../../engine/index.ts';
import { FILTER_MENU, FLAT_MAP_MENU, KEY_MENU, KEYED_MENU, MAP_MENU } from './generatedFunctions.ts';
import {
  buildGeneratedJob, generatedStageUid, GENERATED_JOB_LIMITS, InvalidGeneratedJobError, validateGeneratedJobSpec,
} from './generatedJob.ts';
import type { GeneratedJobSpec } from './generatedJob.ts';
import { generateJobSpec } from './generateJobSpec.ts';

/** mulberry32: a tiny deterministic PRNG for seeded loops. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const base: GeneratedJobSpec = {
  records: [[1, 2, 3], [-4, 0]],
  stages: [
    { kind: 'map', fn: 0, parallelism: 2, rebalance: false },
    { kind: 'keyed', key: 0, fn: 0, parallelism: 3 },
    { kind: 'filter', fn: 0, parallelism: 3, rebalance: true },
    { kind: 'flatMap', fn: 0, parallelism: 3, rebalance: false },
  ],
  sourceParallelism: 2,
  sinkParallelism: 1,
  maxParallelism: 8,
};

describe('generateJobSpec', () => {
  test('gives valid, buildable specs for many seeds, deterministically', () => {
    const kinds = new Set<string>();
    for (let seed = 0; seed < 300; seed++) {
      const spec = generateJobSpec(prng(seed));
      expect(() => validateGeneratedJobSpec(spec)).not.toThrow();
      expect(generateJobSpec(prng(seed))).toEqual(spec);
      expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
      const graph = buildGeneratedJob(spec, collectSink([]));
      expect(graph.nodes).toHaveLength(spec.stages.length + 2);
      spec.stages.forEach((st) => kinds.add(st.kind));
    }
    expect([...kinds].sort()).toEqual(['filter', 'flatMap', 'keyed', 'map']);
  });

  test('honours its bounds and rejects bad ones', () => {
    for (let seed = 0; seed < 50; seed++) {
      const spec = generateJobSpec(prng(seed), { maxSplits: 2, maxRecordsPerSplit: 3, maxAbsValue: 5, maxStages: 1, maxParallelism: 2 });
      expect(spec.records.length).toBeLessThanOrEqual(2);
      expect(spec.records.flat().every((v) => Math.abs(v) <= 5)).toBe(true);
      expect(spec.stages.length).toBeLessThanOrEqual(1);
    }
    expect(() => generateJobSpec(prng(1), { maxStages: 99 })).toThrow(/maxStages must be an integer in 1..6/);
    expect(() => generateJobSpec(prng(1), { maxSplits: 0 })).toThrow(/maxSplits/);
  });
});

describe('buildGeneratedJob', () => {
  test('maps stages to operators and edges', () => {
    const graph = buildGeneratedJob(base, collectSink([]));
    expect(graph.nodes.map((n) => [n.uid, n.spec.kind, n.parallelism, n.maxParallelism])).toEqual([
      ['gen-source', 'source', 2, 8],
      ['gen-0-map-add1', 'map', 2, 8],
      ['gen-1-keyed-rem4-count', 'keyedProcess', 3, 8],
      ['gen-2-filter-even', 'filter', 3, 8],
      ['gen-3-flatMap-duplicate', 'flatMap', 3, 8],
      ['gen-sink', 'sink', 1, 8],
    ]);
    expect(graph.edges.map((e) => e.partitioner)).toEqual(['forward', 'hash', 'rebalance', 'forward', 'rebalance']);
    expect(generatedStageUid(base, 1)).toBe('gen-1-keyed-rem4-count');
    expect(() => generatedStageUid(base, 9)).toThrow(/no stage 9/);
  });

  test('operator-state stages: pass-through operators, splitOwners always fed over rebalance', () => {
    const spec: GeneratedJobSpec = { ...base, stages: [
      { kind: 'splitOwners', parallelism: 2 },
      { kind: 'splitLog', parallelism: 2, rebalance: false },
      ...base.stages,
    ] };
    const graph = buildGeneratedJob(spec, collectSink([]));
    expect(graph.nodes.slice(1, 3).map((n) => [n.uid, n.spec.kind])).toEqual([
      ['gen-0-splitOwners', 'checkpointedPassThrough'], ['gen-1-splitLog', 'checkpointedPassThrough'],
    ]);
    // Equal parallelism, yet the union-state stage is fed over rebalance; the list one forward.
    expect(graph.edges.slice(0, 3).map((e) => e.partitioner)).toEqual(['rebalance', 'forward', 'forward']);
  });

  test.each<[string, Partial<GeneratedJobSpec>, RegExp]>([
    ['no splits', { records: [] }, /records must be 1..16 splits/],
    ['a fractional record', { records: [[1.5]] }, /record \(0, 0\) must be an integer/],
    ['a huge record', { records: [[2_000_000]] }, /record \(0, 0\)/],
    ['-0', { records: [[-0]] }, /record \(0, 0\)/],
    ['too long a split', { records: [Array(1001).fill(1)] }, /split 0 must be an array of at most 1000/],
    ['three keyed stages', { stages: Array(3).fill({ kind: 'keyed', key: 0, fn: 0, parallelism: 1 }) }, /at most 2 keyed/],
    ['three flatMaps', { stages: Array(3).fill({ kind: 'flatMap', fn: 0, parallelism: 1, rebalance: false }) }, /at most 2 flatMap/],
    ['too many stages', { stages: Array(7).fill({ kind: 'map', fn: 0, parallelism: 1, rebalance: false }) }, /at most 6 stages/],
    ['a bad map index', { stages: [{ kind: 'map', fn: MAP_MENU.length, parallelism: 1, rebalance: false }] }, /stage 0 map function index/],
    ['a bad key index', { stages: [{ kind: 'keyed', key: -1, fn: 0, parallelism: 1 }] }, /stage 0 key index/],
    ['a bad keyed index', { stages: [{ kind: 'keyed', key: 0, fn: 99, parallelism: 1 }] }, /stage 0 keyed function index/],
    ['a missing rebalance', { stages: [{ kind: 'filter', fn: 0, parallelism: 1 } as never] }, /rebalance must be a boolean/],
    ['an unknown kind', { stages: [{ kind: 'union', parallelism: 1 } as never] }, /unknown kind union/],
    ['two splitLog stages', { stages: Array(2).fill({ kind: 'splitLog', parallelism: 1, rebalance: false }) }, /at most 1 splitLog/],
    ['two splitOwners stages', { stages: Array(2).fill({ kind: 'splitOwners', parallelism: 1 }) }, /at most 1 splitOwners/],
    ['a splitLog without rebalance', { stages: [{ kind: 'splitLog', parallelism: 1 } as never] }, /rebalance must be a boolean/],
    ['parallelism 0', { sourceParallelism: 0 }, /parallelism must be an integer in 1..16/],
    ['max parallelism below parallelism', { maxParallelism: 2 }, /maxParallelism must be an integer in 3..32768/],
  ])('rejects %s', (_name, patch, message) => {
    const spec = { ...base, ...patch };
    expect(() => validateGeneratedJobSpec(spec)).toThrow(InvalidGeneratedJobError);
    expect(() => buildGeneratedJob(spec, collectSink([]))).toThrow(message);
  });

  test('the limits are sane', () => {
    expect(GENERATED_JOB_LIMITS.maxKeyedStages).toBe(2);
  });
});

describe('generated functions', () => {
  const run = <T>(f: (v: number, out: { collect: (x: T) => void }) => void, v: number): T[] => {
    const out: T[] = [];
    f(v, { collect: (x) => out.push(x) });
    return out;
  };

  test('never produce -0 and keep numeric keys 32-bit', () => {
    for (let v = -50; v <= 50; v++) {
      for (const m of MAP_MENU) expect(Object.is(m.fn(v), -0)).toBe(false);
      for (const fm of FLAT_MAP_MENU) expect(run<number>(fm.fn, v).some((x) => Object.is(x, -0))).toBe(false);
      for (const k of KEY_MENU) {
        const key = k.fn(v * 1_000_003);
        expect(typeof key === 'string' || (Number.isInteger(key) && Math.abs(key as number) < 2 ** 31)).toBe(true);
      }
      for (const f of FILTER_MENU) expect(typeof f.fn(v)).toBe('boolean');
    }
  });

  test('flatMap menu fan-outs', () => {
    const byName = (n: string) => FLAT_MAP_MENU.find((e) => e.name === n)!.fn;
    expect(run(byName('duplicate'), 4)).toEqual([4, 4]);
    expect(run(byName('pairWith1000'), 4)).toEqual([4, 1004]);
    expect(run(byName('byRem3'), 5)).toEqual([5, 6]);
    expect(run(byName('byRem3'), -3)).toEqual([]);
    expect(run(byName('upTo3'), 3)).toEqual([3, 4, 5]);
    expect(KEYED_MENU.map((e) => e.name)).toEqual(['count', 'sum', 'minMax', 'distinct', 'countAndSplit']);
  });
});
