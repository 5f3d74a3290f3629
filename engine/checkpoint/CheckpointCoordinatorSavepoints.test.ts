/**
 * Savepoints on the CheckpointCoordinator, pinned against Flink 1.20's behaviour (its tests of the
 * same names in CheckpointCoordinatorTest, PendingCheckpointTest and CheckpointRequestDeciderTest):
 * a savepoint is first in the queue and forced (unless unaligned checkpoints are on), goes into
 * `savepoint-<id>`, is never subsumed and never subsumes, is not added to the store and notifies
 * no task; a synchronous savepoint does notify and subsume, and its task-level failure fails the
 * job through failJob.
 */
import { describe, expect, test } from 'vitest';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import { CheckpointException } from './CheckpointFailureReason.ts';
import { CheckpointFailureManager } from './CheckpointFailureManager.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import { CheckpointProperties } from './CheckpointProperties.ts';
import { CheckpointRequestDecider } from './CheckpointRequestDecider.ts';
import { CheckpointTriggerRequest } from './CheckpointTriggerRequest.ts';
import type { TaskStateSnapshot } from './TaskStateSnapshot.ts';
import { createCheckpointHarness, type CheckpointHarness } from './testing/TestingCheckpointCoordinatorContext.ts';
import { executionAttemptId, hostId } from '../api/ids.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { TestingObjectStore } from './testing/TestingObjectStore.ts';

function state(path: string): TaskStateSnapshot {
  return { operators: [{ operatorUid: 'source', handle: { path, sizeBytes: 10 }, data: { x: 1 } }],
    isTaskDeployedAsFinished: false, isTaskFinished: false };
}

/** Both subtasks of `src` acknowledge `id` (on the ioExecutor, as the JobMaster hands acks over). */
function ackAll(h: CheckpointHarness, id: number, dir = `chk-${id}`): void {
  for (const subtask of [0, 1]) {
    const path = `${dir}/src#${subtask}@0/source`;
    h.objectStore.files.set(path, { data: { x: 1 }, sizeBytes: 10 });
    h.ctx.ioExecutor.execute('receive-ack', () => {
      h.coordinator.receiveAcknowledgeMessage({ attemptId: h.ctx.attempt('src', subtask).attemptId, checkpointId: id, subtaskState: state(path) });
    });
  }
  h.scheduler.runAll();
}

function run<T>(h: CheckpointHarness, f: () => CompletableFuture<T>): CompletableFuture<T> {
  const future = f();
  h.scheduler.runAll();
  return future;
}

const pendingIds = (h: CheckpointHarness): number[] => h.coordinator.getPendingCheckpoints().map((p) => p.checkpointId);
const notified = (h: CheckpointHarness, id: number): number => h.ctx.completes.filter((c) => c.checkpointId === id).length;

describe('CheckpointCoordinator savepoints', () => {
  test('testTriggerAndConfirmSimpleSavepoint: barriers say SAVEPOINT, aligned, into savepoint-<id>; '
    + 'the savepoint completes outside the store and notifies no task', () => {
    const h = createCheckpointHarness();
    const savepoint = run(h, () => h.coordinator.triggerSavepoint());
    expect(h.ctx.triggers.map((t) => [t.task, t.checkpointId])).toEqual([['src#0@0', 1], ['src#1@0', 1]]);
    expect(h.ctx.triggers[0]?.options).toEqual({
      snapshotType: 'SAVEPOINT', alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0, targetLocation: 'savepoint-1',
    });
    expect(h.coordinator.getPendingCheckpoints()[0]?.props.isSavepoint).toBe(true);
    ackAll(h, 1, 'savepoint-1');
    const completed = savepoint.getNow();
    expect(completed.metadataPath).toBe('savepoint-1/_metadata');
    expect(completed.stateFiles()).toEqual(['savepoint-1/src#0@0/source', 'savepoint-1/src#1@0/source']);
    expect(h.objectStore.files.has('savepoint-1/_metadata')).toBe(true);
    expect(h.coordinator.store.getAllCheckpoints()).toEqual([]);
    expect(h.ctx.completes).toEqual([]);
    expect(h.tracer.hasMark('savepoint-completed')).toBe(true);
    expect(h.coordinator.checkpointStats.history[0]?.checkpointType).toBe('SAVEPOINT');
  });

  test('testSavepointsAreNotSubsumed: a later checkpoint subsumes an earlier checkpoint but not a pending savepoint, '
    + 'and a savepoint subsumes nothing and sends no notification', () => {
    const h = createCheckpointHarness({ config: { maxConcurrent: 100 } });
    const savepoint1 = run(h, () => h.coordinator.triggerSavepoint());
    run(h, () => h.coordinator.triggerCheckpoint(false));
    run(h, () => h.coordinator.triggerCheckpoint(false));
    expect(pendingIds(h)).toEqual([1, 2, 3]);
    ackAll(h, 3);
    expect(pendingIds(h)).toEqual([1]);
    expect(notified(h, 3)).toBe(2);
    expect(h.coordinator.store.getAllCheckpoints().map((c) => c.checkpointId)).toEqual([3]);
    expect(savepoint1.isDone()).toBe(false);
    run(h, () => h.coordinator.triggerCheckpoint(false));
    const savepoint2 = run(h, () => h.coordinator.triggerSavepoint());
    expect(pendingIds(h)).toEqual([1, 4, 5]);
    ackAll(h, 5, 'savepoint-5');
    expect(savepoint2.getNow().checkpointId).toBe(5);
    expect(notified(h, 5)).toBe(0);
    // The older checkpoint 4 and savepoint 1 are still pending: a savepoint subsumes nothing.
    expect(pendingIds(h)).toEqual([1, 4]);
    expect(h.coordinator.store.getAllCheckpoints().map((c) => c.checkpointId)).toEqual([3]);
    ackAll(h, 1, 'savepoint-1');
    expect(savepoint1.getNow().checkpointId).toBe(1);
    expect(notified(h, 1)).toBe(0);
    expect(pendingIds(h)).toEqual([4]);
    expect(h.coordinator.store.getAllCheckpoints().map((c) => c.checkpointId)).toEqual([3]);
  });

  test('testConcurrentSavepoints: max concurrent 1 does not hold savepoints back (they are forced)', () => {
    const h = createCheckpointHarness({ config: { maxConcurrent: 1 } });
    const futures = Array.from({ length: 5 }, () => h.coordinator.triggerSavepoint());
    for (const f of futures) expect(f.isDone()).toBe(false);
    h.scheduler.runAll();
    expect(pendingIds(h)).toEqual([1, 2, 3, 4, 5]);
    for (let id = 5; id >= 1; id--) ackAll(h, id, `savepoint-${id}`);
    expect(futures.map((f) => f.getNow().checkpointId)).toEqual([1, 2, 3, 4, 5]);
    // A periodic checkpoint waits while max concurrent is reached by a (forced) savepoint.
    const h2 = createCheckpointHarness({ config: { maxConcurrent: 1 } });
    run(h2, () => h2.coordinator.triggerSavepoint());
    run(h2, () => h2.coordinator.triggerCheckpoint(true));
    expect(pendingIds(h2)).toEqual([1]);
    expect(h2.coordinator.numQueuedRequests).toBe(1);
  });

  test('testSavepointScheduledInUnalignedMode: with unaligned checkpoints on, a savepoint is not forced, '
    + 'waits for max concurrent, and is still aligned', () => {
    const h = createCheckpointHarness({ config: { maxConcurrent: 1, unaligned: true } });
    run(h, () => h.coordinator.triggerCheckpoint(false));
    const savepoint = run(h, () => h.coordinator.triggerSavepoint());
    expect(pendingIds(h)).toEqual([1]);
    expect(h.coordinator.numQueuedRequests).toBe(1);
    ackAll(h, 1);
    expect(pendingIds(h)).toEqual([2]);
    expect(h.ctx.triggers.find((t) => t.checkpointId === 2)?.options.alignment).toBe('ALIGNED');
    expect(h.ctx.triggers.find((t) => t.checkpointId === 1)?.options.alignment).toBe('UNALIGNED');
    ackAll(h, 2, 'savepoint-2');
    expect(savepoint.getNow().props.isSavepoint).toBe(true);
  });

  test('in at-least-once mode a savepoint\'s barriers go through the tracker like a checkpoint\'s (CheckpointOptions.forConfig)', () => {
    const h = createCheckpointHarness({ config: { mode: 'AT_LEAST_ONCE' } });
    run(h, () => h.coordinator.triggerSavepoint());
    expect(h.ctx.triggers[0]?.options).toEqual({
      snapshotType: 'SAVEPOINT', alignment: 'AT_LEAST_ONCE', alignedCheckpointTimeoutUs: 0, targetLocation: 'savepoint-1',
    });
  });

  test('testMinDelayBetweenSavepoints: the min pause holds periodic checkpoints back, not savepoints', () => {
    const h = createCheckpointHarness({ config: { maxConcurrent: 1, minPauseUs: 100_000_000, intervalUs: 100_000_000 } });
    run(h, () => h.coordinator.triggerSavepoint());
    ackAll(h, 1, 'savepoint-1');
    run(h, () => h.coordinator.triggerSavepoint());
    expect(pendingIds(h)).toEqual([2]);
  });

  test('a forced-full phase never turns a savepoint into a full checkpoint, and a savepoint does not end it', () => {
    const h = createCheckpointHarness();
    (h.coordinator as unknown as { state: { forceFullSnapshot: boolean } }).state.forceFullSnapshot = true;
    run(h, () => h.coordinator.triggerSavepoint());
    ackAll(h, 1, 'savepoint-1');
    run(h, () => h.coordinator.triggerCheckpoint(false));
    expect(h.ctx.triggers.map((t) => t.options.snapshotType)).toEqual(['SAVEPOINT', 'SAVEPOINT', 'FULL_CHECKPOINT', 'FULL_CHECKPOINT']);
  });

  test('an aborted savepoint\'s files are discarded from its directory; a completed one\'s stay (they are the user\'s)', () => {
    const h = createCheckpointHarness({ config: { tolerableFailures: 5 } });
    const failed = run(h, () => h.coordinator.triggerSavepoint());
    const path = 'savepoint-1/src#0@0/source';
    h.objectStore.files.set(path, { data: {}, sizeBytes: 10 });
    h.ctx.ioExecutor.execute('ack', () => {
      h.coordinator.receiveAcknowledgeMessage({ attemptId: h.ctx.attempt('src', 0).attemptId, checkpointId: 1, subtaskState: state(path) });
    });
    h.scheduler.runAll();
    h.ctx.ioExecutor.execute('decline', () => {
      h.coordinator.receiveDeclineMessage({ attemptId: h.ctx.attempt('src', 1).attemptId, checkpointId: 1, reason: 'CHECKPOINT_DECLINED' });
    });
    h.scheduler.runAll();
    expect(failed.isCompletedExceptionally()).toBe(true);
    expect(h.objectStore.files.has(path)).toBe(false);
    expect(h.tracer.hasMark('savepoint-failed')).toBe(true);
    // The abort notification goes out for a savepoint too.
    expect(h.ctx.aborts.filter((a) => a.checkpointId === 1)).toHaveLength(2);
    run(h, () => h.coordinator.triggerSavepoint());
    ackAll(h, 2, 'savepoint-2');
    h.coordinator.shutdown('FINISHED');
    h.scheduler.runAll();
    expect([...h.objectStore.files.keys()].filter((p) => p.startsWith('savepoint-2/')).sort())
      .toEqual(['savepoint-2/_metadata', 'savepoint-2/src#0@0/source', 'savepoint-2/src#1@0/source']);
  });
});

describe('CheckpointCoordinator synchronous savepoints', () => {
  test('testSyncSavepointCannotBeSubsumed: a checkpoint completing after a pending synchronous savepoint leaves it pending', () => {
    const h = createCheckpointHarness({ config: { maxConcurrent: 10 } });
    const sync = run(h, () => h.coordinator.triggerSynchronousSavepoint(false));
    run(h, () => h.coordinator.triggerCheckpoint(false));
    ackAll(h, 2);
    expect(pendingIds(h)).toEqual([1]);
    expect(sync.isDone()).toBe(false);
    expect(h.coordinator.getPendingCheckpoints()[0]?.canBeSubsumed()).toBe(false);
  });

  test('a synchronous savepoint subsumes older pending checkpoints and notifies the tasks, which then finish', () => {
    const h = createCheckpointHarness({ config: { maxConcurrent: 10 } });
    run(h, () => h.coordinator.triggerCheckpoint(false));
    const sync = run(h, () => h.coordinator.triggerSynchronousSavepoint(true));
    expect(h.ctx.triggers.filter((t) => t.checkpointId === 2).map((t) => t.options.snapshotType)).toEqual(['SYNC_SAVEPOINT', 'SYNC_SAVEPOINT']);
    expect(h.coordinator.getPendingCheckpoints()[1]?.props.postCheckpointAction).toBe('TERMINATE');
    ackAll(h, 2, 'savepoint-2');
    expect(sync.getNow().metadataPath).toBe('savepoint-2/_metadata');
    expect(pendingIds(h)).toEqual([]);
    expect(notified(h, 2)).toBe(2);
    expect(h.coordinator.store.getAllCheckpoints()).toEqual([]);
  });

  test('jobFailsIfInFlightSynchronousSavepointIsDiscarded: a task-level decline of a synchronous savepoint calls failJob once, '
    + 'even with failures tolerated, and its future fails with the decline\'s CheckpointException', () => {
    const h = createCheckpointHarness({ config: { tolerableFailures: 5 } });
    const sync = run(h, () => h.coordinator.triggerSynchronousSavepoint(false));
    h.ctx.ioExecutor.execute('decline', () => {
      h.coordinator.receiveDeclineMessage({ attemptId: h.ctx.attempt('src', 0).attemptId, checkpointId: 1, reason: 'CHECKPOINT_DECLINED' });
    });
    h.scheduler.runAll();
    expect(pendingIds(h)).toEqual([]);
    expect(h.ctx.failures).toEqual(['job: CHECKPOINT_DECLINED']);
    expect(() => sync.getNow()).toThrow(CheckpointException);
    expect(() => sync.getNow()).toThrow('CHECKPOINT_DECLINED');
  });

  test('a JobManager-side failure of a synchronous savepoint (its expiry) is not counted and fails nothing', () => {
    const h = createCheckpointHarness({ config: { tolerableFailures: 0, timeoutUs: 60_000 } });
    const sync = run(h, () => h.coordinator.triggerSynchronousSavepoint(false));
    h.scheduler.advanceTimeUs(60_000);
    h.scheduler.runAll();
    expect(() => sync.getNow()).toThrow('CHECKPOINT_EXPIRED');
    expect(h.ctx.failures).toEqual([]);
  });
});

describe('CheckpointFailureManager: savepoint cases', () => {
  function fm(tolerable: number, bugs: string[] = []) {
    const s = new TestingScheduler();
    const env = createTestingEngineEnv({ host: hostId('jm'), clock: s, executors: s, objectStore: new TestingObjectStore(),
      bugs: { has: (id) => bugs.includes(id) } });
    const calls: string[] = [];
    const m = new CheckpointFailureManager(env, tolerable, { failJob: () => calls.push('job'), failJobDueToTaskFailure: () => calls.push('task') });
    return { m, calls };
  }
  const SP = CheckpointProperties.forSavepoint(true);
  const task = executionAttemptId('v#0@0');

  test('a task-level failure of a savepoint is counted per reason like a checkpoint\'s', () => {
    const f = fm(0);
    f.m.handleCheckpointException(1, SP, new CheckpointException('CHECKPOINT_ASYNC_EXCEPTION'), task);
    expect(f.calls).toEqual(['task']);
    const g = fm(0);
    g.m.handleCheckpointException(1, SP, new CheckpointException('CHECKPOINT_DECLINED_TASK_NOT_READY'), task);
    expect(g.calls).toEqual([]);
  });

  test('a JobManager-side savepoint failure is never counted', () => {
    const f = fm(0);
    f.m.handleCheckpointException(1, SP, new CheckpointException('CHECKPOINT_EXPIRED'), undefined);
    f.m.handleCheckpointException(2, SP, new CheckpointException('IO_EXCEPTION'), undefined);
    expect(f.calls).toEqual([]);
  });

  test('testIgnoresPastCheckpoints with a savepoint: a savepoint older than the last success is ignored '
    + '(counted under the planted fm-count-past-checkpoints)', () => {
    const f = fm(0);
    f.m.handleCheckpointSuccess(6);
    f.m.handleCheckpointException(5, SP, new CheckpointException('CHECKPOINT_ASYNC_EXCEPTION'), task);
    expect(f.calls).toEqual([]);
    const bug = fm(0, [PLANTED_BUGS.fmCountPastCheckpoints]);
    bug.m.handleCheckpointSuccess(6);
    bug.m.handleCheckpointException(5, SP, new CheckpointException('CHECKPOINT_ASYNC_EXCEPTION'), task);
    expect(bug.calls).toEqual(['task']);
  });
});

describe('CheckpointRequestDecider: savepoint cases', () => {
  function decider(minPauseUs = 0) {
    const s = new TestingScheduler();
    const env = createTestingEngineEnv({ host: hostId('jm'), clock: s, executors: s, objectStore: new TestingObjectStore() });
    return new CheckpointRequestDecider(env, { maxConcurrent: 1, minPauseUs, numberOfPendingCheckpoints: () => 0,
      numberOfCleaningCheckpoints: () => 0, rescheduleTrigger: () => undefined });
  }
  let seq = 0;
  const request = (props: CheckpointProperties, periodic: boolean): CheckpointTriggerRequest => new CheckpointTriggerRequest(props, periodic, 0, seq++);
  const CP = CheckpointProperties.forCheckpoint('NEVER_RETAIN_AFTER_TERMINATION');

  test('testSavepointPrioritized and testNonForcedSavepointPrioritized: a savepoint runs before a checkpoint queued first', () => {
    for (const props of [CheckpointProperties.forSavepoint(true), CheckpointProperties.forSavepoint(false)]) {
      const d = decider();
      const checkpoint = request(CP, true);
      const savepoint = request(props, false);
      expect(d.chooseRequestToExecute(checkpoint, true, 0)).toBeUndefined();
      expect(d.chooseRequestToExecute(savepoint, true, 0)).toBeUndefined();
      expect(d.chooseQueuedRequestToExecute(false, 0)).toBe(savepoint);
      expect(d.chooseQueuedRequestToExecute(false, 0)).toBe(checkpoint);
    }
  });

  test('testSavepointTiming: inside the min pause a savepoint (forced, periodic or not, or not forced) runs at once; '
    + 'a periodic checkpoint is dropped', () => {
    for (const [props, periodic] of [[CheckpointProperties.forSavepoint(true), false], [CheckpointProperties.forSavepoint(true), true],
      [CheckpointProperties.forSavepoint(false), false]] as const) {
      const r = request(props, periodic);
      expect(decider(10_000).chooseRequestToExecute(r, false, 0)).toBe(r);
    }
    const periodic = request(CP, true);
    expect(decider(10_000).chooseRequestToExecute(periodic, false, 0)).toBeUndefined();
    expect(() => periodic.future.getNow()).toThrow('MINIMUM_TIME_BETWEEN_CHECKPOINTS');
  });
});
