import { describe, expect, test } from 'vitest';
import {
  failsTheJobWhenRun, ReferenceFailureManager, UNKNOWN_ID, type CheckpointFailure,
} from './referenceFailureManager.ts';

const job = (checkpointId: number, reason: string): CheckpointFailure => ({ checkpointId, reason });
const task = (checkpointId: number, reason: string): CheckpointFailure => ({ checkpointId, reason, task: 'v0#0@0' });

/** The actions of feeding `steps` (a failure, or a success id) to a fresh manager. */
function actions(tolerable: number, steps: readonly (CheckpointFailure | number)[]): string[] {
  const m = new ReferenceFailureManager(tolerable);
  return steps.map((s) => {
    if (typeof s === 'number') {
      m.success(s);
      return 'success';
    }
    return m.failure(s).action;
  });
}

// The vectors of Flink's CheckpointFailureManagerTest (flink-semantics.md section 7, item 19).
describe('the reference CheckpointFailureManager', () => {
  test('continuous failures fail once the counter exceeds the tolerable number', () => {
    expect(actions(2, [task(1, 'CHECKPOINT_DECLINED'), task(2, 'CHECKPOINT_DECLINED'),
      job(3, 'JOB_FAILOVER_REGION'), task(4, 'CHECKPOINT_DECLINED')]))
      .toEqual(['counted', 'counted', 'ignored', 'fail']);
  });

  test('a success breaks the run of failures', () => {
    expect(actions(2, [job(1, 'IO_EXCEPTION'), task(2, 'CHECKPOINT_DECLINED'), job(3, 'JOB_FAILOVER_REGION'), 4,
      job(5, 'CHECKPOINT_EXPIRED')])).toEqual(['counted', 'counted', 'ignored', 'success', 'counted']);
  });

  test('failures of checkpoints at or below the last success are ignored (FLINK-18336)', () => {
    expect(actions(2, [job(1, 'CHECKPOINT_EXPIRED'), job(2, 'CHECKPOINT_EXPIRED'), 2,
      job(1, 'CHECKPOINT_EXPIRED'), job(2, 'CHECKPOINT_EXPIRED'), job(3, 'CHECKPOINT_EXPIRED'),
      job(4, 'CHECKPOINT_EXPIRED')])).toEqual(['counted', 'counted', 'success', 'ignored', 'ignored', 'counted', 'counted']);
    expect(actions(0, [5, task(4, 'CHECKPOINT_DECLINED')])).toEqual(['success', 'ignored']);
  });

  test('each checkpoint id counts once; the unknown id always counts', () => {
    expect(actions(2, [task(1, 'CHECKPOINT_DECLINED'), task(2, 'CHECKPOINT_DECLINED'), job(3, 'JOB_FAILOVER_REGION'),
      task(2, 'CHECKPOINT_DECLINED')])).toEqual(['counted', 'counted', 'ignored', 'ignored']);
    expect(actions(1, [job(UNKNOWN_ID, 'IO_EXCEPTION'), job(UNKNOWN_ID, 'IO_EXCEPTION')])).toEqual(['counted', 'fail']);
  });

  test('with tolerable 0 exactly the five counted reasons fail the job (FLINK-17351)', () => {
    const reasons = ['IO_EXCEPTION', 'CHECKPOINT_ASYNC_EXCEPTION', 'CHECKPOINT_DECLINED', 'CHECKPOINT_EXPIRED',
      'FINALIZE_CHECKPOINT_FAILURE', 'CHECKPOINT_SUBSUMED', 'JOB_FAILOVER_REGION', 'TASK_FAILURE',
      'CHECKPOINT_DECLINED_SUBSUMED', 'TRIGGER_CHECKPOINT_FAILURE', 'NOT_ALL_REQUIRED_TASKS_RUNNING',
      'CHECKPOINT_COORDINATOR_SUSPEND', 'TASK_CHECKPOINT_FAILURE'];
    const failing = reasons.filter((r) => new ReferenceFailureManager(0).failure(job(1, r)).action === 'fail');
    expect(failing).toEqual(reasons.slice(0, 5));
  });

  test('the counter is cleared when it runs over, so the next failure counts from 1', () => {
    expect(actions(1, [job(1, 'CHECKPOINT_EXPIRED'), job(2, 'CHECKPOINT_EXPIRED'), job(3, 'CHECKPOINT_EXPIRED'),
      job(4, 'CHECKPOINT_EXPIRED')])).toEqual(['counted', 'fail', 'counted', 'fail']);
  });

  test('a task-level failure fails the job through failJobDueToTaskFailure, a job-level one through failJob', () => {
    expect(new ReferenceFailureManager(0).failure(task(1, 'CHECKPOINT_ASYNC_EXCEPTION')).callback)
      .toBe('failJobDueToTaskFailure');
    expect(new ReferenceFailureManager(0).failure(job(1, 'CHECKPOINT_EXPIRED')).callback).toBe('failJob');
    // A pre-flight reason is job-level whoever reported it.
    expect(new ReferenceFailureManager(0).failure(task(1, 'IO_EXCEPTION')).callback).toBe('failJob');
  });

  test('failJobDueToTaskFailure fails the job only if the attempt is RUNNING or INITIALIZING when it runs '
    + '(DefaultExecutionGraph.failGlobalIfExecutionIsStillRunning, FLINK-13593)', () => {
    const states = ['RUNNING', 'INITIALIZING', 'DEPLOYING', 'CANCELING', 'CANCELED', 'FAILED', 'FINISHED', 'SUPERSEDED'];
    expect(states.filter((s) => failsTheJobWhenRun('failJobDueToTaskFailure', s))).toEqual(['RUNNING', 'INITIALIZING']);
    expect(failsTheJobWhenRun('failJobDueToTaskFailure', undefined)).toBe(false);
    expect(failsTheJobWhenRun('failJob', undefined)).toBe(true);
  });

  test('savepoints: job-level failures never count; a synchronous one fails at once from a task', () => {
    const m = new ReferenceFailureManager(0);
    expect(m.failure({ checkpointId: 1, reason: 'CHECKPOINT_EXPIRED', savepoint: true }).action).toBe('ignored');
    expect(m.failure({ checkpointId: 2, reason: 'CHECKPOINT_DECLINED_TASK_CLOSING', task: 'v0#0@0',
      savepoint: true, synchronous: true })).toMatchObject({ action: 'fail', callback: 'failJob' });
    expect(m.failure({ checkpointId: 3, reason: 'CHECKPOINT_DECLINED', task: 'v0#0@0', savepoint: true })
      .action).toBe('fail');
  });

  test('rejects a bad tolerable number', () => {
    expect(() => new ReferenceFailureManager(-1)).toThrow(/non-negative integer/);
    expect(() => new ReferenceFailureManager(0.5)).toThrow(/non-negative integer/);
  });
});
