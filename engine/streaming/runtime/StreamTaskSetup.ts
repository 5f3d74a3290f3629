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
import type { CheckpointBarrierHandler } from '../../io/checkpointing/CheckpointBarrierHandler.ts';
import type { CheckpointableTask } from '../../io/checkpointing/CheckpointableTask.ts';
import { createBarrierHandler } from '../../io/checkpointing/createBarrierHandler.ts';
import { InputGateCheckpointableInputs } from '../../io/checkpointing/InputGateCheckpointableInputs.ts';
import { InputGate } from '../../io/InputGate.ts';
import { RecordWriter } from '../../io/RecordWriter.ts';
import { ResultPartition } from '../../io/ResultPartition.ts';
import { outputsOf, type JobVertex } from '../../jobgraph/JobGraph.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import type { JobManagerTaskRestore } from '../../checkpoint/TaskStateSnapshot.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import { createOperator } from '../operators/OperatorFactory.ts';
import type { ProcessingTimeService, StreamOperator, StreamOperatorContext } from '../operators/StreamOperator.ts';
import type { MailboxProcessor } from './MailboxProcessor.ts';

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
      downstreamMaxParallelism: pd.numTargetKeyGroups,
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
      // The task's, for every operator of the chain (Flink's TaskInfo#getMaxNumberOfParallelSubtasks):
      // a restore may have adopted the state's in place of the JobGraph's.
      maxParallelism: c.tdd.maxParallelism,
      attemptNumber: c.tdd.attemptNumber,
      ...(c.tdd.restore === undefined ? {} : { restoredCheckpointId: c.tdd.restore.restoreCheckpointId }),
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

/**
 * The processing-time service's `registerTimer` for a task: at `timeUs` (at once if that has
 * passed) the task's timer thread (made on the first timer) puts `callback` as a mail on
 * `mailbox`. Times are the task's own (a record processed lazily registers relative to its own
 * time); a timer due before the real time it is registered at, which only a lazy record's short
 * timer can be, fires at once, late by at most the batch.
 */
export function timerRegistrar(env: EngineEnv, attemptId: string, mailbox: MailboxProcessor): ProcessingTimeService['registerTimer'] {
  let thread: Executor | undefined;
  return (timeUs, label, callback) => {
    thread ??= env.executors.get(`timers/${attemptId}`);
    const dueUs = Math.max(mailbox.currentTimeUs(), timeUs);
    const t = thread.schedule(label, Math.max(0, dueUs - env.clock.nowUs()), () => {
      mailbox.put({ label, run: callback });
    });
    return { cancel: () => t.cancel() };
  };
}

/**
 * Reads a restore's operator state files, on `executor`: operator uid -> its state. Each handle
 * names a file and the part of it assigned to this subtask (its `data`: the whole snapshot, or
 * after a rescale the key groups and list elements that fall to this subtask), as Flink's
 * handles name a file and offsets in it; the file must exist, and the part is what is restored.
 * An operator with one handle gets its `data`; one with several (a rescale hands a subtask the
 * pieces of several old subtasks) gets the list of their `data`, in handle order, which
 * readRestoredState merges.
 * @returns a future failing when a file is missing (the task then fails).
 */
export function readOperatorStates(env: EngineEnv, restore: JobManagerTaskRestore, executor: Executor): CompletableFuture<Map<string, unknown>> {
  const handles = restore.taskStateSnapshot.operators;
  const reads = handles.map((h) => env.objectStore.get(h.handle.path, executor));
  return CompletableFuture.allOf(reads).thenApply(() => {
    const pieces = new Map<string, unknown[]>();
    for (const h of handles) {
      const list = pieces.get(h.operatorUid);
      if (list === undefined) pieces.set(h.operatorUid, [h.data]);
      else list.push(h.data);
    }
    const out = new Map<string, unknown>();
    for (const [uid, list] of pieces) out.set(uid, list.length === 1 ? list[0] : list);
    return out;
  });
}

/**
 * The barrier handler of a task with input gates and checkpointing on (aligned or the
 * at-least-once tracker, by mode), telling `task` to trigger or abort; undefined otherwise.
 */
export function createTaskBarrierHandler(env: EngineEnv, tdd: TaskDeploymentDescriptor, gates: readonly InputGate[],
  task: CheckpointableTask): CheckpointBarrierHandler | undefined {
  const settings = tdd.checkpointing;
  if (settings === undefined || gates.length === 0) return undefined;
  return createBarrierHandler(settings.mode, {
    task, inputs: new InputGateCheckpointableInputs(gates), taskName: tdd.attemptId, tracer: env.tracer, bugs: env.bugs,
    clock: env.clock, checkpointsAfterTasksFinish: settings.checkpointsAfterTasksFinish,
  });
}
