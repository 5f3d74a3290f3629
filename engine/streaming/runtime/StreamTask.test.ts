import { describe, expect, test } from 'vitest';
import type { ExecutionAttemptId, HostId } from '../../api/ids.ts';
import { rpcAddress } from '../../api/ids.ts';
import type { ObjectStore, StoredObject } from '../../api/ObjectStore.ts';
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../cluster/ClusterConfiguration.ts';
import { createJobGraph } from '../../jobgraph/StreamingJobGraphGenerator.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import { createTestingEngineEnv } from '../../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../../testing/TestingScheduler.ts';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import { collectSink, splitSource } from '../api/sources.ts';
import { StreamExecutionEnvironment } from '../api/StreamExecutionEnvironment.ts';
import type { CollectedRecord } from '../api/sources.ts';
import { MAX_PRIORITY } from './MailboxProcessor.ts';
import { StreamTask } from './StreamTask.ts';

const ATTEMPT = 'v0#0@0' as ExecutionAttemptId;

/**
 * A source task (a source chained to a collecting sink, no network) on a TestingScheduler,
 * invoked and waiting for its first split; with `restoring`, invoked but still reading its
 * restored state (an object store read that never completes), so not running yet.
 */
function sourceTask(restoring = false) {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const objectStore = { get: () => new CompletableFuture<StoredObject>() } as unknown as ObjectStore;
  const env = createTestingEngineEnv({
    host: 'taskmanager-1' as HostId, clock: scheduler, executors: scheduler, tracer, objectStore,
  });
  const job = new StreamExecutionEnvironment({ jobName: 'notify', parallelism: 1 });
  job.enableCheckpointing(100);
  const out: CollectedRecord[] = [];
  job.fromSource(splitSource([{ id: 0, records: [1, 2, 3] }]), { name: 'src', uid: 'src' }).sinkTo(collectSink(out));
  const jobGraph = createJobGraph(job.getStreamGraph());
  const tdd: TaskDeploymentDescriptor = {
    jobGraph, jobRun: 1, jobMasterAddress: rpcAddress('jobmaster'), checkpointStoragePrefix: '',
    vertexId: jobGraph.vertices[0]?.id as string, subtaskIndex: 0, attemptNumber: 0,
    attemptId: ATTEMPT, maxParallelism: jobGraph.vertices[0]?.maxParallelism ?? 128, slotIndex: 0, allocationId: 'a1', inputGates: [], producedPartitions: [],
    checkpointingEnabled: true,
    checkpointing: { mode: 'EXACTLY_ONCE', maxConcurrent: 1, checkpointsAfterTasksFinish: true },
    ...(restoring ? { restore: {
      restoreCheckpointId: 1,
      taskStateSnapshot: {
        operators: [{ operatorUid: 'src', handle: { path: 'chk-1/src', sizeBytes: 0 }, data: undefined }],
        isTaskDeployedAsFinished: false, isTaskFinished: false,
      },
    } } : {}),
  };
  const task = new StreamTask(env, DEFAULT_CLUSTER_CONFIGURATION, tdd, scheduler.get(`mailbox/${ATTEMPT}`), {
    switchToInitializing: () => {},
    switchToRunning: () => {},
    finished: () => {},
    failed: (e) => { throw e; },
    sendEventToCoordinator: () => {},
    responder: { acknowledgeCheckpoint: () => {}, declineCheckpoint: () => {} },
  });
  task.invoke();
  scheduler.runAll();
  /** The checkpoint notification events the task traced, as `type id`. */
  const notifications = (): string[] => tracer.events
    .filter((e) => e.type === 'checkpoint.taskNotified' || e.type === 'checkpoint.taskSubsumed'
      || e.type === 'source.no-more-splits-received')
    .map((e) => `${e.type.replace(/^.*\./, '')} ${String(e.attrs['checkpointId'] ?? '')}`.trim());
  return { task, scheduler, notifications };
}

describe('StreamTask: checkpoint notifications are MAX_PRIORITY mails (notifyCheckpointOperation)', () => {
  test('the loop takes a notification after an earlier normal mail, in the order they came', () => {
    const { task, scheduler, notifications } = sourceTask();
    task.dispatchOperatorEvent('src', { type: 'NoMoreSplitsEvent' });
    task.notifyCheckpointCompleteAsync(1);
    task.notifyCheckpointSubsumedAsync(-1);
    scheduler.runAll();
    expect(notifications()).toEqual(['no-more-splits-received', 'taskNotified 1', 'taskSubsumed -1']);
  });

  test('a nested tryYield(MAX_PRIORITY) takes the notification ahead of the earlier normal mail', () => {
    const { task, scheduler, notifications } = sourceTask();
    task.mailbox.put({ label: 'yielding', run: () => { task.mailbox.tryYield(MAX_PRIORITY); } });
    task.dispatchOperatorEvent('src', { type: 'NoMoreSplitsEvent' });
    task.notifyCheckpointCompleteAsync(1);
    scheduler.runAll();
    expect(notifications()).toEqual(['taskNotified 1', 'no-more-splits-received']);
  });
});

describe('StreamTask.notifyCheckpointSubsumedAsync (Flink: forwarded as is while the task runs)', () => {
  test('a subsumed id at or below the latest completed one still reaches the chain, unlike a '
    + 'completion; -1 (nothing subsumed) is forwarded too', () => {
    const { task, scheduler, notifications } = sourceTask();
    task.notifyCheckpointCompleteAsync(5);
    task.notifyCheckpointCompleteAsync(3);
    task.notifyCheckpointSubsumedAsync(3);
    task.notifyCheckpointSubsumedAsync(5);
    task.notifyCheckpointSubsumedAsync(-1);
    scheduler.runAll();
    expect(notifications()).toEqual(['taskNotified 5', 'taskSubsumed 3', 'taskSubsumed 5', 'taskSubsumed -1']);
  });

  test('a task that is not running yet ignores it (SubtaskCheckpointCoordinatorImpl isRunning)', () => {
    const { task, scheduler, notifications } = sourceTask(true);
    task.notifyCheckpointSubsumedAsync(1);
    scheduler.runAll();
    expect(notifications()).toEqual([]);
  });
});
