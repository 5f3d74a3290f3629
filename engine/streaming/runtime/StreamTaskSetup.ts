/**
 * Builds what a StreamTask runs with from its deployment descriptor: the result partitions and
 * record writers of its output edges, the input gates of its input edges, and the operators of
 * its chain with their contexts.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask (createRecordWriterDelegate),
 *      org.apache.flink.runtime.taskmanager.Task (setup of partitions and gates)
 */
import type { EngineEnv } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { TaskIOMetricGroup } from '../../api/MetricGroups.ts';
import type { ClusterConfiguration } from '../../cluster/ClusterConfiguration.ts';
import { createChannelSelector } from '../../io/ChannelSelector.ts';
import { InputGate } from '../../io/InputGate.ts';
import { RecordWriter } from '../../io/RecordWriter.ts';
import { ResultPartition } from '../../io/ResultPartition.ts';
import { outputsOf, vertexById, type JobVertex } from '../../jobgraph/JobGraph.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import { createOperator } from '../operators/OperatorFactory.ts';
import type { ProcessingTimeService, StreamOperator, StreamOperatorContext } from '../operators/StreamOperator.ts';

export interface StreamTaskSetupContext {
  readonly env: EngineEnv;
  readonly config: ClusterConfiguration;
  readonly tdd: TaskDeploymentDescriptor;
  readonly vertex: JobVertex;
  readonly executor: Executor;
  /** The task attempt's IO metric group, shared by its operators. */
  readonly metrics: TaskIOMetricGroup;
  readonly processingTime: ProcessingTimeService;
  fail(e: unknown): void;
  sendEventToCoordinator(operatorUid: string, event: unknown): void;
}

/** Creates and serves the result partitions, one record writer each. */
export function setUpOutputs(c: StreamTaskSetupContext): { partitions: ResultPartition[]; writers: RecordWriter[] } {
  const partitions: ResultPartition[] = [];
  const writers: RecordWriter[] = [];
  const outEdges = outputsOf(c.tdd.jobGraph, c.vertex.id);
  for (const pd of c.tdd.producedPartitions) {
    const edge = outEdges.find((e) => e.index === pd.edgeIndex);
    if (edge === undefined) throw new Error(`no output edge ${pd.edgeIndex}`);
    const target = vertexById(c.tdd.jobGraph, edge.target);
    const partition = new ResultPartition({
      env: c.env,
      partitionId: pd.partitionId,
      numSubpartitions: pd.numSubpartitions,
      executor: c.executor,
      recordsPerBuffer: c.config.recordsPerBuffer,
      bufferTimeoutUs: c.config.bufferTimeoutUs,
      poolSize: pd.numSubpartitions + c.config.floatingBuffersPerPartition,
      recordSizeBytes: c.config.recordSizeBytes,
      onError: (e) => c.fail(e),
    });
    partition.setup();
    partitions.push(partition);
    writers.push(new RecordWriter(partition, createChannelSelector({
      partitioner: edge.partitioner,
      numberOfChannels: pd.numSubpartitions,
      subtaskIndex: c.tdd.subtaskIndex,
      downstreamMaxParallelism: target.maxParallelism,
      ...(edge.keySelector === undefined ? {} : { keySelector: edge.keySelector }),
    })));
  }
  return { partitions, writers };
}

/** Creates the input gates and requests their subpartitions. */
export function setUpInputs(c: StreamTaskSetupContext): InputGate[] {
  return c.tdd.inputGates.map((gd, i) => {
    const gate = new InputGate({
      env: c.env,
      executor: c.executor,
      gateIndex: i,
      channels: gd.channels,
      exclusiveCredit: c.config.exclusiveBuffersPerChannel,
      onError: (e) => c.fail(e),
    });
    gate.setup();
    return gate;
  });
}

/**
 * Creates the chain's operators, head first. Their environment's clock is the task's
 * processing-time clock, so that a record processed late in a lazy batch (MailboxProcessor)
 * sees its own time.
 */
export function createOperators(c: StreamTaskSetupContext): StreamOperator[] {
  const inEdge = c.tdd.jobGraph.edges.find((e) => e.target === c.vertex.id);
  const processingTime = c.processingTime;
  const env: EngineEnv = { ...c.env, clock: { nowUs: () => processingTime.nowUs() } };
  return c.vertex.operators.map((node, i) => {
    const ctx: StreamOperatorContext = {
      env,
      taskName: `${c.vertex.id}#${c.tdd.subtaskIndex}`,
      subtaskIndex: c.tdd.subtaskIndex,
      parallelism: c.vertex.parallelism,
      maxParallelism: node.maxParallelism,
      attemptNumber: c.tdd.attemptNumber,
      mailbox: c.executor,
      metrics: c.metrics,
      processingTime: c.processingTime,
      eventGateway: { sendEventToCoordinator: (event) => c.sendEventToCoordinator(node.uid, event) },
      failTask: (e) => c.fail(e),
      ...(c.config.traceKeyedInputs && node.spec.kind === 'keyedProcess' ? {
        keyedInputTrace: { attemptId: c.tdd.attemptId, restoredCheckpointId: c.tdd.restore?.restoreCheckpointId ?? -1 },
      } : {}),
    };
    const keySelector = i === 0 ? inEdge?.keySelector : undefined;
    return createOperator(node, ctx, {
      ...(keySelector === undefined ? {} : { inputKeySelector: keySelector }),
      checkpointingEnabled: c.tdd.checkpointingEnabled,
    });
  });
}
