import { describe, expect, test } from 'vitest';
import { RecreateOnResetOperatorCoordinator } from '../../coordination/RecreateOnResetOperatorCoordinator.ts';
import { SourceCoordinator } from '../../coordination/SourceCoordinator.ts';
import { collectSink, splitSource, twoPhaseCommitSink,
  type CollectedRecord } from '../api/sources.ts';
import type { OperatorSpec, StreamNode } from '../api/StreamGraph.ts';
import { CollectSinkOperator } from '../sinks/CollectSinkOperator.ts';
import { TwoPhaseCommitSinkOperator } from '../sinks/TwoPhaseCommitSinkOperator.ts';
import { SourceOperator } from '../sources/SourceOperator.ts';
import { FilterOperator } from './FilterOperator.ts';
import { FlatMapOperator } from './FlatMapOperator.ts';
import { KeyedProcessOperator } from './KeyedProcessOperator.ts';
import { MapOperator } from './MapOperator.ts';
import { createCoordinator, createOperator } from './OperatorFactory.ts';
import { createTestingOperatorEnv } from './testing/TestingOperatorEnv.ts';
import { createTestingOperatorContext, TestingOutput } from './testing/TestingOperatorContext.ts';

const node = (spec: OperatorSpec, parallelism = 2): StreamNode => ({
  id: 0, name: spec.kind, uid: `${spec.kind}-0`, spec, parallelism, maxParallelism: 128,
  maxParallelismConfigured: false, costUs: 10,
});

describe('OperatorFactory', () => {
  test('creates the operator of each spec kind', () => {
    const ctx = createTestingOperatorContext();
    const opts = { checkpointingEnabled: true };
    const target: CollectedRecord[] = [];
    const source = splitSource([{ id: 0, records: [1] }, { id: 4, records: [] }]);
    expect(createOperator(node({ kind: 'source', source }), ctx, opts)).toBeInstanceOf(
      SourceOperator);
    expect(createOperator(node({ kind: 'map', fn: (v) => v }), ctx, opts)).toBeInstanceOf(
      MapOperator);
    expect(createOperator(node({ kind: 'filter', fn: () => true }), ctx, opts)).toBeInstanceOf(
      FilterOperator);
    expect(createOperator(node({ kind: 'flatMap', fn: () => undefined }), ctx, opts)).toBeInstanceOf(FlatMapOperator);
    const keyed = node({ kind: 'keyedProcess', fn: { processElement: () => undefined } });
    expect(createOperator(keyed, ctx, { ...opts, inputKeySelector: (v) => String(v) }))
      .toBeInstanceOf(KeyedProcessOperator);
    expect(() => createOperator(keyed, ctx, opts)).toThrow(/no input key selector/);
    expect(createOperator(node({ kind: 'sink', sink: twoPhaseCommitSink('out') }), ctx, opts))
      .toBeInstanceOf(TwoPhaseCommitSinkOperator);
    expect(createOperator(node({ kind: 'sink', sink: collectSink(target) }), ctx, opts))
      .toBeInstanceOf(CollectSinkOperator);
  });

  test('sets the given output up', () => {
    const out = new TestingOutput();
    const op = createOperator(node({ kind: 'map', fn: (v) => v }), createTestingOperatorContext(),
      { checkpointingEnabled: false, output: out });
    op.processElement({ value: 1, split: 0, offset: 0, tag: '' });
    expect(out.values()).toEqual([1]);
  });

  test('creates a SourceCoordinator for sources only, recreated on reset', () => {
    const env = createTestingOperatorEnv();
    const executor = env.scheduler.get('coordinator');
    const source = splitSource([{ id: 3, records: [1] }, { id: 1, records: [2] }]);
    const c = createCoordinator(node({ kind: 'source', source }), env, executor);
    expect(c).toBeInstanceOf(RecreateOnResetOperatorCoordinator);
    const inner = (c as RecreateOnResetOperatorCoordinator).internalCoordinator;
    expect(inner).toBeInstanceOf(SourceCoordinator);
    expect((inner as SourceCoordinator).enumeratorState().unassigned.map((s) => s.splitId)).toEqual(
      [1, 3]);
    expect(createCoordinator(node({ kind: 'map', fn: (v) => v }), env, executor)).toBeUndefined();
  });
});
