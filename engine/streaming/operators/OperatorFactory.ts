/**
 * Creates the runtime operator of a StreamNode for one subtask, and the OperatorCoordinator of a
 * node that has one (sources), by the node's OperatorSpec kind.
 *
 * @see org.apache.flink.streaming.api.operators.StreamOperatorFactory,
 *      org.apache.flink.runtime.operators.coordination.OperatorCoordinator.Provider
 *
 * Invariants: pure construction; no operator is set up, restored or opened here.
 */
import type { EngineEnv } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { OperatorCoordinator } from '../../coordination/OperatorCoordinator.ts';
import { RecreateOnResetOperatorCoordinator } from '../../coordination/RecreateOnResetOperatorCoordinator.ts';
import { SourceCoordinator } from '../../coordination/SourceCoordinator.ts';
import { assert, unreachable } from '../../util/assert.ts';
import type { KeySelector } from '../api/functions.ts';
import type { StreamNode } from '../api/StreamGraph.ts';
import { CollectSinkOperator } from '../sinks/CollectSinkOperator.ts';
import { TwoPhaseCommitSinkOperator } from '../sinks/TwoPhaseCommitSinkOperator.ts';
import { SourceOperator } from '../sources/SourceOperator.ts';
import { CheckpointedPassThroughOperator } from './CheckpointedPassThroughOperator.ts';
import { FilterOperator } from './FilterOperator.ts';
import { FlatMapOperator } from './FlatMapOperator.ts';
import { KeyedProcessOperator } from './KeyedProcessOperator.ts';
import { MapOperator } from './MapOperator.ts';
import type { Output, StreamOperator, StreamOperatorContext } from './StreamOperator.ts';

/** Options of {@link createOperator}. */
export interface CreateOperatorOptions {
  /** The key selector of the operator's keyed input edge (required for keyed operators). */
  readonly inputKeySelector?: KeySelector<unknown>;
  /** Whether the job checkpoints (two-phase-commit sinks commit at end of input otherwise). */
  readonly checkpointingEnabled: boolean;
  /**
   * The output the operator emits into; when given, `setup(output)` is called here. Otherwise
   * the chain calls `setup` itself before `initializeState`.
   */
  readonly output?: Output;
}

/**
 * The operator of `node` for the subtask described by `ctx`.
 * @throws AssertionError when a keyed operator has no input key selector.
 */
export function createOperator(
  node: StreamNode,
  ctx: StreamOperatorContext,
  opts: CreateOperatorOptions,
): StreamOperator {
  const op = newOperator(node, ctx, opts);
  if (opts.output !== undefined) op.setup?.(opts.output);
  return op;
}

/**
 * The coordinator of `node` (sources), created on the JobMaster with its environment: a
 * SourceCoordinator on the coordinator thread `executor`, recreated on every global reset
 * (SourceCoordinatorProvider is a RecreateOnResetOperatorCoordinator.Provider in Flink).
 */
export function createCoordinator(
  node: StreamNode,
  env: EngineEnv,
  executor: Executor,
): OperatorCoordinator | undefined {
  const spec = node.spec;
  if (spec.kind !== 'source') return undefined;
  const splitIds = spec.source.splits.map((s) => s.id);
  return new RecreateOnResetOperatorCoordinator(() => new SourceCoordinator({
    env, operatorUid: node.uid, splitIds, parallelism: node.parallelism, executor,
  }));
}

function newOperator(
  node: StreamNode,
  ctx: StreamOperatorContext,
  opts: CreateOperatorOptions,
): StreamOperator {
  const spec = node.spec;
  switch (spec.kind) {
    case 'source':
      return new SourceOperator({ uid: node.uid, source: spec.source, ctx });
    case 'map':
      return new MapOperator(node.uid, spec.fn);
    case 'filter':
      return new FilterOperator(node.uid, spec.fn);
    case 'flatMap':
      return new FlatMapOperator(node.uid, spec.fn);
    case 'checkpointedPassThrough':
      return new CheckpointedPassThroughOperator(node.uid, spec.create, ctx);
    case 'keyedProcess': {
      const keySelector = opts.inputKeySelector;
      assert(keySelector !== undefined,
        () => `keyed operator ${node.uid} has no input key selector`);
      return new KeyedProcessOperator({ uid: node.uid, fn: spec.fn, keySelector, ctx });
    }
    case 'sink':
      switch (spec.sink.kind) {
        case 'two-phase-commit':
          return new TwoPhaseCommitSinkOperator({
            uid: node.uid, sinkName: spec.sink.name, ctx,
            checkpointingEnabled: opts.checkpointingEnabled,
            ...(spec.sink.create === undefined ? {} : { create: spec.sink.create }),
          });
        case 'collect':
          return new CollectSinkOperator(node.uid, spec.sink.target, ctx);
        default:
          return unreachable(spec.sink, 'sink kind');
      }
    default:
      return unreachable(spec, 'operator kind');
  }
}
