import { describe, expect, test } from 'vitest';
import type { ExecutionAttemptId } from '../../api/ids.ts';
import { hostId, rpcAddress } from '../../api/ids.ts';
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import { TestingObjectStore } from '../../checkpoint/testing/TestingObjectStore.ts';
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../cluster/ClusterConfiguration.ts';
import type { NetworkBuffer } from '../../io/NetworkBuffer.ts';
import { subpartitionKey } from '../../io/NetworkBuffer.ts';
import { outputsOf } from '../../jobgraph/JobGraph.ts';
import { createJobGraph } from '../../jobgraph/StreamingJobGraphGenerator.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import { TestingDataNetwork } from '../../testing/TestingDataNetwork.ts';
import { createTestingEngineEnv } from '../../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../../testing/TestingScheduler.ts';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import { collectSink, splitSource } from '../api/sources.ts';
import { StreamExecutionEnvironment } from '../api/StreamExecutionEnvironment.ts';
import { StreamTask } from './StreamTask.ts';

const ATTEMPT = 'v0#0@0' as ExecutionAttemptId;
const PARTITION = 'p0';
/** How long a slowed write of the object store takes (µs): only the order of steps is asserted. */
const SLOW_WRITE_US = 1_000;

const barrier = (id: number): CheckpointBarrier => ({
  id, timestampUs: 0, options: { snapshotType: 'CHECKPOINT', alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0 },
});

/**
 * A source task with one network output (a rebalance to a sink that is not deployed: the test
 * reads the subpartition itself), checkpointing on with checkpoints after tasks finish. It has
 * no splits: NoMoreSplits ends its data at once. Everything the task reports lands in `reports`
 * in order, the subpartition's buffers in `received`.
 */
function finishingSourceTask() {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const objectStore = new TestingObjectStore();
  const network = new TestingDataNetwork(scheduler.get('net'));
  const producerHost = hostId('taskmanager-1');
  const env = createTestingEngineEnv({
    host: producerHost, clock: scheduler, executors: scheduler, tracer, objectStore, network: network.view(producerHost),
  });
  const job = new StreamExecutionEnvironment({ jobName: 'drain', parallelism: 1 });
  job.enableCheckpointing(100);
  job.fromSource(splitSource([]), { name: 'src', uid: 'src' }).rebalance().sinkTo(collectSink([]));
  const jobGraph = createJobGraph(job.getStreamGraph());
  const source = jobGraph.vertices[0];
  const edge = source === undefined ? undefined : outputsOf(jobGraph, source.id)[0];
  if (source === undefined || edge === undefined) throw new Error('the job has no source with an output edge');
  const tdd: TaskDeploymentDescriptor = {
    jobGraph, jobRun: 1, jobMasterAddress: rpcAddress('jobmaster'), checkpointStoragePrefix: '',
    vertexId: source.id, subtaskIndex: 0, attemptNumber: 0, attemptId: ATTEMPT, maxParallelism: source.maxParallelism,
    slotIndex: 0, allocationId: 'a1', inputGates: [],
    producedPartitions: [{ edgeIndex: edge.index, partitionId: PARTITION, numSubpartitions: 1, numTargetKeyGroups: 128 }],
    checkpointingEnabled: true,
    checkpointing: { mode: 'EXACTLY_ONCE', maxConcurrent: 2, checkpointsAfterTasksFinish: true },
  };
  const reports: string[] = [];
  const task = new StreamTask(env, DEFAULT_CLUSTER_CONFIGURATION, tdd, scheduler.get(`mailbox/${ATTEMPT}`), {
    switchToInitializing: () => {},
    switchToRunning: () => {},
    finished: () => {
      reports.push('finished');
      // As Task does on FINISHED.
      task.cleanUp(true);
    },
    failed: (e) => { throw e; },
    sendEventToCoordinator: () => {},
    responder: {
      acknowledgeCheckpoint: (ack) => reports.push(`ack ${ack.checkpointId}`),
      declineCheckpoint: (d) => reports.push(`decline ${d.checkpointId} ${d.reason}`),
    },
  });
  const received: string[] = [];
  const consumer = network.view(hostId('taskmanager-2')).connect({
    key: subpartitionKey(PARTITION, 0), producerHost, executor: scheduler.get('consumer'), initialCredit: 2,
    handlers: {
      onConnected: () => {},
      onPayload: (payload) => {
        const b = payload as NetworkBuffer;
        if (b.kind === 'data') return;
        received.push(b.event.type === 'barrier' ? `barrier ${b.event.barrier.id}` : b.event.type);
        // An aligned barrier blocks the subpartition until the consumer resumes it.
        if (b.event.type === 'barrier') consumer.sendUpstream({ type: 'resume-consumption' });
      },
      onError: () => {},
    },
  });
  task.invoke();
  scheduler.runAll();
  task.dispatchOperatorEvent('src', { type: 'NoMoreSplitsEvent' });
  scheduler.runAll();
  return { task, scheduler, objectStore, tracer, reports, received };
}

describe('afterInvoke: a finishing task runs the mails queued behind its final notification', () => {
  test('a trigger queued behind the final checkpoint\'s notification is performed and acknowledged; its barrier '
    + 'goes downstream before EndOfPartition, and the task turns FINISHED only once its async part completed', () => {
    const { task, scheduler, objectStore, tracer, reports, received } = finishingSourceTask();
    expect(tracer.events.some((e) => e.type === 'task.endOfInput')).toBe(true);
    // Checkpoint 2 is the final checkpoint: the first one performed after the data ended.
    task.triggerCheckpointAsync(barrier(2));
    scheduler.runAll();
    expect(reports).toEqual(['ack 2']);
    // Its notification and checkpoint 3's trigger reach the task together, the notification first.
    const timer = scheduler.get('store-timer');
    objectStore.slowPuts(timer, SLOW_WRITE_US);
    task.notifyCheckpointCompleteAsync(2);
    task.triggerCheckpointAsync(barrier(3));
    scheduler.runAll();
    // Checkpoint 3 was performed in the drain (its barrier is out), its write is still running,
    // and the task waits for it: no EndOfPartition, not FINISHED.
    expect(received).toEqual(['end-of-data', 'barrier 2', 'barrier 3']);
    expect(reports).toEqual(['ack 2']);
    expect(tracer.events.filter((e) => e.type === 'checkpoint.taskTriggered').map((e) => e.attrs['checkpointId'])).toEqual([2, 3]);
    // A trigger that comes now is declined at once: the mailbox takes no more mails.
    task.triggerCheckpointAsync(barrier(4));
    expect(reports).toEqual(['ack 2', 'decline 4 CHECKPOINT_DECLINED_TASK_CLOSING']);
    scheduler.advanceTimeUs(SLOW_WRITE_US);
    scheduler.runAll();
    expect(reports).toEqual(['ack 2', 'decline 4 CHECKPOINT_DECLINED_TASK_CLOSING', 'ack 3', 'finished']);
    expect(received).toEqual(['end-of-data', 'barrier 2', 'barrier 3', 'end-of-partition']);
    const types = tracer.events.map((e) => e.type);
    expect(types.lastIndexOf('checkpoint.asyncDone')).toBeLessThan(types.indexOf('io.partition.finished'));
  });

  test('a stop-with-savepoint queued behind the final notification stops the finished source in the drain; its '
    + 'trigger then finds the mailbox closing and is declined (Flink: the rejected trigger fails the stop\'s future)', () => {
    const { task, scheduler, reports, received } = finishingSourceTask();
    task.triggerCheckpointAsync(barrier(2));
    scheduler.runAll();
    task.notifyCheckpointCompleteAsync(2);
    task.triggerCheckpointAsync({
      ...barrier(3),
      options: { snapshotType: 'SYNC_SAVEPOINT', postCheckpointAction: 'TERMINATE', alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0 },
    });
    scheduler.runAll();
    expect(reports).toEqual(['ack 2', 'decline 3 TASK_FAILURE', 'finished']);
    expect(received).toEqual(['end-of-data', 'barrier 2', 'end-of-partition']);
  });

  test('a finishing task with no checkpoint running finishes in the step of the final notification', () => {
    const { task, scheduler, reports, received } = finishingSourceTask();
    task.triggerCheckpointAsync(barrier(2));
    scheduler.runAll();
    task.notifyCheckpointCompleteAsync(2);
    scheduler.runAll();
    expect(reports).toEqual(['ack 2', 'finished']);
    expect(received).toEqual(['end-of-data', 'barrier 2', 'end-of-partition']);
  });
});
