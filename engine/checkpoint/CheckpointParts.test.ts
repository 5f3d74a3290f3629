import { describe, expect, test } from 'vitest';
import { executionAttemptId, hostId } from '../api/ids.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { checkpointCoordinatorConfiguration } from './CheckpointCoordinatorConfiguration.ts';
import { CheckpointException, type CheckpointFailureReason } from './CheckpointFailureReason.ts';
import { CheckpointFailureManager } from './CheckpointFailureManager.ts';
import { CheckpointProperties } from './CheckpointProperties.ts';
import { CheckpointRequestDecider } from './CheckpointRequestDecider.ts';
import { CheckpointsCleaner } from './CheckpointsCleaner.ts';
import { CheckpointTriggerRequest } from './CheckpointTriggerRequest.ts';
import { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import { DefaultCompletedCheckpointStore } from './DefaultCompletedCheckpointStore.ts';
import { PendingCheckpoint } from './PendingCheckpoint.ts';
import { TestingObjectStore } from './testing/TestingObjectStore.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import { operatorStateHandle } from '../state/OperatorStateHandle.ts';
import { operatorSubtaskState } from '../streaming/operators/OperatorSubtaskState.ts';

function env(bugs: string[] = []) {
  const s = new TestingScheduler();
  return { s, env: createTestingEngineEnv({ host: hostId('jm'), clock: s, executors: s,
    objectStore: new TestingObjectStore(), bugs: { has: (id) => bugs.includes(id) } }) };
}
const CP = CheckpointProperties.forCheckpoint('NEVER_RETAIN_AFTER_TERMINATION');
const SP = CheckpointProperties.forSavepoint(true);
const SYNC = CheckpointProperties.forSyncSavepoint(true, false);

describe('Failure manager', () => {
  function fm(tolerable: number, bugs: string[] = []) {
    const calls: string[] = [];
    const m = new CheckpointFailureManager(env(bugs).env, tolerable, {
      failJob: () => calls.push('job'), failJobDueToTaskFailure: () => calls.push('task'),
    });
    const fail = (id: number, r: CheckpointFailureReason) => m.handleCheckpointException(id, CP, new CheckpointException(r), executionAttemptId('v#0@0'));
    return { m, calls, fail };
  }
  test('19. counting rules', () => {
    let f = fm(2);
    f.fail(1, 'CHECKPOINT_DECLINED'); f.fail(2, 'CHECKPOINT_DECLINED'); f.fail(3, 'JOB_FAILOVER_REGION'); f.fail(4, 'CHECKPOINT_DECLINED');
    expect(f.calls).toEqual(['task']);
    f = fm(2);
    f.fail(1, 'IO_EXCEPTION'); f.fail(2, 'CHECKPOINT_DECLINED'); f.fail(3, 'JOB_FAILOVER_REGION'); f.m.handleCheckpointSuccess(4); f.fail(5, 'CHECKPOINT_EXPIRED');
    expect(f.calls).toEqual([]);
    f = fm(2);
    f.fail(1, 'CHECKPOINT_EXPIRED'); f.fail(2, 'CHECKPOINT_EXPIRED'); f.m.handleCheckpointSuccess(2);
    f.fail(1, 'CHECKPOINT_EXPIRED'); f.fail(3, 'CHECKPOINT_EXPIRED'); f.fail(4, 'CHECKPOINT_EXPIRED');
    expect(f.calls).toEqual([]);
    f = fm(2);
    f.fail(1, 'CHECKPOINT_DECLINED'); f.fail(2, 'CHECKPOINT_DECLINED'); f.fail(3, 'JOB_FAILOVER_REGION'); f.fail(2, 'CHECKPOINT_DECLINED');
    expect(f.calls).toEqual([]);
    const all: CheckpointFailureReason[] = ['IO_EXCEPTION', 'CHECKPOINT_DECLINED', 'FINALIZE_CHECKPOINT_FAILURE',
      'CHECKPOINT_EXPIRED', 'CHECKPOINT_ASYNC_EXCEPTION', 'CHECKPOINT_SUBSUMED', 'TASK_FAILURE', 'TRIGGER_CHECKPOINT_FAILURE',
      'CHECKPOINT_DECLINED_TASK_NOT_READY', 'NOT_ALL_REQUIRED_TASKS_RUNNING'];
    const failing = all.filter((r, i) => { const g = fm(0); g.fail(i + 1, r); return g.calls.length > 0; });
    expect(failing).toEqual(all.slice(0, 5));
  });
  test('pre-flight IO_EXCEPTION is job-level; savepoints are never counted job-level', () => {
    const f = fm(0);
    f.m.handleCheckpointException(-1, CP, new CheckpointException('IO_EXCEPTION'), undefined);
    f.m.handleCheckpointException(-1, SP, new CheckpointException('IO_EXCEPTION'), undefined);
    expect(f.calls).toEqual(['job']);
  });
  test('a task-level failure of a synchronous savepoint fails the job at once through failJob, whatever '
    + 'the counter (CheckpointFailureManager.handleTaskLevelCheckpointException)', () => {
    const f = fm(5);
    f.m.handleCheckpointSuccess(9);
    f.m.handleCheckpointException(3, SYNC, new CheckpointException('CHECKPOINT_DECLINED_TASK_CLOSING'),
      executionAttemptId('v#0@0'));
    expect(f.calls).toEqual(['job']);
    expect(f.m.failureCounter).toBe(0);
  });
  test('planted fm-ignore-expired and fm-count-past-checkpoints', () => {
    const a = fm(0, [PLANTED_BUGS.fmIgnoreExpired]);
    a.fail(1, 'CHECKPOINT_EXPIRED');
    expect(a.calls).toEqual([]);
    const b = fm(0, [PLANTED_BUGS.fmCountPastCheckpoints]);
    b.m.handleCheckpointSuccess(6);
    b.fail(5, 'CHECKPOINT_DECLINED');
    expect(b.calls).toEqual(['task']);
  });
});

describe('PendingCheckpoint', () => {
  const attempt = (i: number) => ({ attemptId: executionAttemptId(`v#${i}@0`), vertexId: 'v', subtask: i, state: 'RUNNING' as const });
  const plan = { tasksToTrigger: [attempt(0)], tasksToWaitFor: [attempt(0), attempt(1)], tasksToCommitTo: [], finishedTasks: [], fullyFinishedVertices: [] };
  const pending = (props = CP) => new PendingCheckpoint({ checkpointId: 1, triggerTimestampUs: 0, plan, props, coordinatorUids: [], masterHookIds: [], vertices: [] });
  test('a plan that waits for no task is refused, as Flink\'s constructor precondition does (it masks plan-terminal-as-finished\'s empty plan)', () => {
    const empty = { ...plan, tasksToTrigger: [], tasksToWaitFor: [] };
    expect(() => new PendingCheckpoint({ checkpointId: 4, triggerTimestampUs: 0, plan: empty, props: SP, coordinatorUids: [], masterHookIds: [], vertices: [] }))
      .toThrow('checkpoint 4 needs at least one vertex that commits the checkpoint (its plan waits for no task)');
  });
  test('20. savepoints cannot be subsumed', () => {
    expect(pending(SP).canBeSubsumed()).toBe(false);
    expect(pending(SYNC).canBeSubsumed()).toBe(false);
    expect(() => pending(SP).abort('CHECKPOINT_SUBSUMED')).toThrow();
    expect(pending().canBeSubsumed()).toBe(true);
  });
  test('21. the completion future completes on finalise or abort, not on the last ack', () => {
    const p = pending();
    expect(() => p.createCompletedCheckpoint(5)).toThrow();
    expect(p.acknowledgeTask(attempt(0).attemptId, null)).toBe('SUCCESS');
    expect(p.acknowledgeTask(attempt(0).attemptId, null)).toBe('DUPLICATE');
    expect(p.acknowledgeTask(executionAttemptId('x#0@0'), null)).toBe('UNKNOWN');
    expect(p.acknowledgeTask(attempt(1).attemptId, null)).toBe('SUCCESS');
    expect(p.completionFuture.isDone()).toBe(false);
    p.finalizeCheckpoint(p.createCompletedCheckpoint(5));
    expect(p.completionFuture.getNow().checkpointId).toBe(1);
    expect(p.acknowledgeTask(attempt(1).attemptId, null)).toBe('DISCARDED');
    const q = pending();
    q.abort('CHECKPOINT_EXPIRED');
    expect(q.completionFuture.isCompletedExceptionally()).toBe(true);
  });
});

describe('Stores', () => {
  const cp = (id: number, props = CP) => new CompletedCheckpoint({ checkpointId: id, triggerTimestampUs: 0, completionTimestampUs: 0, props,
    operatorStates: new Map(), coordinatorStates: new Map(), masterStates: new Map(), finishedTasks: [], fullyFinishedVertices: [],
    operatorInfo: new Map() });
  function store(retained: number) {
    const e = env().env;
    return new DefaultCompletedCheckpointStore(e, { retained, cleaner: new CheckpointsCleaner(e, e.executors.get('io')) });
  }
  const ids = (s: DefaultCompletedCheckpointStore) => s.getAllCheckpoints().map((c) => c.checkpointId);
  test('36. retention and subsumption order', () => {
    let s = store(1);
    for (const c of [cp(1), cp(2), cp(3, SP), cp(4, SP), cp(5, SP)]) s.addCheckpointAndSubsumeOldestOne(c, () => undefined);
    expect(ids(s)).toEqual([2, 5]);
    s = store(1);
    for (const c of [cp(1), cp(2, SP), cp(3)]) s.addCheckpointAndSubsumeOldestOne(c, () => undefined);
    expect(ids(s)).toEqual([3]);
    s = store(1);
    for (const c of [cp(1), cp(2, SP), cp(3, SYNC)]) s.addCheckpointAndSubsumeOldestOne(c, () => undefined);
    expect(ids(s)).toEqual([3]);
    s = store(3);
    for (const c of [cp(1), cp(2), cp(3)]) s.addCheckpointAndSubsumeOldestOne(c, () => undefined);
    expect(ids(s)).toEqual([1, 2, 3]);
    expect(s.addCheckpointAndSubsumeOldestOne(cp(4), () => undefined).lastSubsumedId).toBe(1);
    expect(s.getLatestCheckpointId()).toBe(4);
    expect(store(1).getLatestCheckpointId()).toBe(0);
  });
  test('shutdown on suspension forgets without discarding', () => {
    const s = store(1);
    s.addCheckpointAndSubsumeOldestOne(cp(1), () => undefined);
    s.shutdown('RESTARTING', () => undefined);
    expect(ids(s)).toEqual([]);
  });
});

describe('CheckpointRequestDecider and configuration', () => {
  test('queue order, cap and max concurrent', () => {
    const { env: e } = env();
    let pending = 1;
    const d = new CheckpointRequestDecider(e, { maxConcurrent: 1, minPauseUs: 0,
      numberOfPendingCheckpoints: () => pending, numberOfCleaningCheckpoints: () => 0, rescheduleTrigger: () => undefined });
    const reqs = Array.from({ length: 1001 }, (_x, i) => new CheckpointTriggerRequest(CP, true, i, i));
    for (const r of reqs) expect(d.chooseRequestToExecute(r, false, 0)).toBeUndefined();
    expect(d.numQueuedRequests).toBe(1000);
    expect(() => reqs[1000]?.future.getNow()).toThrow('TOO_MANY_CHECKPOINT_REQUESTS');
    const manual = new CheckpointTriggerRequest(CP, false, 5000, 5000);
    d.chooseRequestToExecute(manual, false, 0);
    pending = 0;
    expect(d.chooseQueuedRequestToExecute(false, 0)).toBe(manual);
    expect(d.chooseQueuedRequestToExecute(true, 0)).toBeUndefined();
  });
  test('validation has clear errors', () => {
    expect(() => checkpointCoordinatorConfiguration({ intervalUs: 5_000 })).toThrow('intervalUs');
    expect(() => checkpointCoordinatorConfiguration({ timeoutUs: 5 })).toThrow('timeoutUs');
    expect(() => checkpointCoordinatorConfiguration({ maxConcurrent: 0 })).toThrow('maxConcurrent');
    expect(() => checkpointCoordinatorConfiguration({ retained: 0 })).toThrow('retained');
    expect(() => checkpointCoordinatorConfiguration({ tolerableFailures: -1 })).toThrow('tolerableFailures');
    expect(checkpointCoordinatorConfiguration({ intervalUs: 10_000, minPauseUs: 50_000 }).intervalUs).toBe(50_000);
  });
});

describe('PendingCheckpoint: union list state and partly finished vertices (DefaultCheckpointPlan#fulfillFinishedTaskStatus)', () => {
  const attempt = (v: string, i: number) =>
    ({ attemptId: executionAttemptId(`${v}#${i}@0`), vertexId: v, subtask: i, state: 'RUNNING' as const });
  /** Vertex `src` (list state) and vertex `u` (union state), two subtasks each, all acked. */
  function pending(finishedOperators: readonly string[]): PendingCheckpoint {
    const tasks = [attempt('src', 0), attempt('src', 1), attempt('u', 0), attempt('u', 1)];
    const vertex = (id: string, uid: string) => ({ id, parallelism: 2, isSource: id === 'src', operatorUids: [uid],
      maxParallelism: 128, maxParallelismConfigured: false, setMaxParallelism: () => undefined });
    const pc = new PendingCheckpoint({ checkpointId: 3, triggerTimestampUs: 0, props: CP, coordinatorUids: [], masterHookIds: [],
      vertices: [vertex('src', 'list-op'), vertex('u', 'union-op')],
      plan: { tasksToTrigger: tasks, tasksToWaitFor: tasks, tasksToCommitTo: [], finishedTasks: [], fullyFinishedVertices: [] } });
    for (const t of tasks) {
      const union = t.vertexId === 'u';
      const data = operatorSubtaskState({ managedOperatorState: [operatorStateHandle(`${t.vertexId}${t.subtask}`, {
        s: { mode: union ? 'UNION' : 'SPLIT_DISTRIBUTE', elements: [t.subtask] } })] });
      pc.acknowledgeTask(t.attemptId, { isTaskDeployedAsFinished: false, isTaskFinished: finishedOperators.includes(`${t.vertexId}#${t.subtask}`),
        operators: [{ operatorUid: union ? 'union-op' : 'list-op', handle: { path: `chk-3/${t.vertexId}${t.subtask}`, sizeBytes: 1 }, data }] });
    }
    return pc;
  }

  test('a vertex with union state whose operators partly finished declines with CHECKPOINT_DECLINED_TASK_CLOSING', () => {
    expect(() => pending(['u#0']).createCompletedCheckpoint(0)).toThrow(/vertex u is partly finished and uses union list state/);
    expect(() => pending(['u#0', 'u#1']).createCompletedCheckpoint(0)).not.toThrow();
  });

  test('another vertex partly finished does not decline because some vertex uses union state', () => {
    expect(() => pending(['src#0']).createCompletedCheckpoint(0)).not.toThrow();
  });
});
