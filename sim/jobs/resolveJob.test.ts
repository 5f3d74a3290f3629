/**
 * The built-in jobs through the JobDefinition path build exactly the graphs of their workload
 * builders (so their runs are unchanged), and a module's input is generated or cut to the
 * spec's size within its range.
 */
import { describe, expect, test } from 'vitest';
import { splitSource, twoPhaseCommitSink } from '../../engine/index.ts';
import { buildJobGraph } from '../run/RunJob.ts';
import { flightsJob } from '../workloads/flights.ts';
import { buildGeneratedJob } from '../workloads/generatedJob.ts';
import { wordcountJob } from '../workloads/wordcount.ts';
import { defineJob } from './JobDefinition.ts';
import { registerJobModule } from './jobModuleRegistry.ts';
import { jobJudgingOf, resolveJob } from './resolveJob.ts';

/** A graph as data: every field but the functions, which are the same objects anyway. */
const shape = (g: ReturnType<typeof flightsJob>): unknown => JSON.parse(JSON.stringify(g));

describe('built-in jobs as JobDefinitions', () => {
  test('flights at per-role parallelism and a max parallelism equals flightsJob', () => {
    const byUid = { 'flights-source': 2, 'airport-stats': 3, 'flights-sink': 1 };
    const viaDefinition = buildJobGraph({ kind: 'flights', selection: { from: 10, to: 300 }, splits: 5 }, { parallelism: byUid, maxParallelism: 64 });
    const direct = flightsJob({ selection: { from: 10, to: 300 }, splits: 5, parallelism: { source: 2, stats: 3, sink: 1 }, maxParallelism: 64, sink: twoPhaseCommitSink('flights-sink') });
    expect(shape(viaDefinition)).toEqual(shape(direct));
    expect(viaDefinition.edges.map((e) => e.partitioner)).toEqual(['hash', 'rebalance']);
  });

  test('wordcount and a generated shape equal their builders', () => {
    expect(shape(buildJobGraph({ kind: 'wordcount', lines: 7, splits: 2 }, { parallelism: {} })))
      .toEqual(shape(wordcountJob({ lines: ['x'].length === 1 ? undefined as never : [], sink: twoPhaseCommitSink('wordcount-sink'), splits: 2 }) && wordcountJobOf(7)));
    const spec = {
      records: [[1, 2, 3], [4]], stages: [{ kind: 'keyed' as const, key: 0, fn: 0, parallelism: 2 }],
      sourceParallelism: 1, sinkParallelism: 2, maxParallelism: 8,
    };
    expect(shape(buildJobGraph({ kind: 'generated', spec }, { parallelism: {} }))).toEqual(shape(buildGeneratedJob(spec, twoPhaseCommitSink('gen-sink'))));
  });
});

function wordcountJobOf(lines: number): ReturnType<typeof wordcountJob> {
  return wordcountJob({ lines: WORDS.slice(0, lines), sink: twoPhaseCommitSink('wordcount-sink'), splits: 2 });
}

import { WORDCOUNT_TEXT as WORDS } from '../workloads/wordcount.ts';

describe('a module job\'s input', () => {
  const fixed = defineJob<number>({
    name: 'fixed',
    input: [{ id: 0, records: [1, 2, 3] }, { id: 1, records: [4, 5] }],
    build(env, splits) {
      env.fromSource(splitSource(splits), { uid: 'src' }).sinkTo(twoPhaseCommitSink('out'), { uid: 'out' });
    },
  });
  const generated = defineJob<number>({
    name: 'gen', input: { minSize: 2, maxSize: 10, generate: (n) => [{ id: 0, records: Array.from({ length: n }, (_x, i) => i) }] },
    build(env, splits) {
      env.fromSource(splitSource(splits), { uid: 'src' }).sinkTo(twoPhaseCommitSink('out'), { uid: 'out' });
    },
  });
  registerJobModule({ path: '/virtual/fixed.ts', exportName: 'default', definition: fixed, hash: 'h', label: './fixed.ts' }, undefined);
  registerJobModule({ path: '/virtual/gen.ts', exportName: 'default', definition: generated, hash: 'h', label: './gen.ts' }, undefined);

  test('fixed splits are cut to their first size records in split order; later splits keep their ids, empty', () => {
    expect(resolveJob({ kind: 'module', path: '/virtual/fixed.ts' }).splits.map((s) => s.records.length)).toEqual([3, 2]);
    expect(resolveJob({ kind: 'module', path: '/virtual/fixed.ts', size: 2 }).splits).toEqual([{ id: 0, records: [1, 2] }, { id: 1, records: [] }]);
    expect(() => resolveJob({ kind: 'module', path: '/virtual/fixed.ts', size: 6 })).toThrow('job module ./fixed.ts: job.size must be in 0..5 for this module\'s input, got 6');
  });

  test('a generator runs at the spec\'s size, default its maxSize, within minSize..maxSize', () => {
    expect(resolveJob({ kind: 'module', path: '/virtual/gen.ts' }).splits[0]?.records).toHaveLength(10);
    expect(resolveJob({ kind: 'module', path: '/virtual/gen.ts', size: 3 }).splits[0]?.records).toEqual([0, 1, 2]);
    expect(() => resolveJob({ kind: 'module', path: '/virtual/gen.ts', size: 1 })).toThrow('job.size must be in 2..10');
  });

  test('a module that was never loaded is one line saying to load it', () => {
    expect(() => resolveJob({ kind: 'module', path: '/virtual/none.ts' }))
      .toThrow('job module /virtual/none.ts is not loaded: await loadJobModule(path) before simulating a spec that names it');
  });
});

describe('jobJudgingOf', () => {
  test('is the definition\'s judge for every built-in kind', () => {
    for (const job of [{ kind: 'flights' as const, selection: { from: 0, to: 10 } }, { kind: 'wordcount' as const }]) {
      expect(jobJudgingOf(job)).toBe(resolveJob(job).definition.judge);
    }
  });
});
