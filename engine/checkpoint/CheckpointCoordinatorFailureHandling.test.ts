/**
 * The CheckpointCoordinator's handlers of a pending checkpoint's failure (reference 1.7 to 1.11):
 * each records what it learned (`checkpoint.failureHandled`, or the decline) and aborts the
 * checkpoint at once with Flink's reason; with its planted stall on, it leaves it pending.
 */
import { describe, expect, test } from 'vitest';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import {
  createCheckpointHarness, TestingOperatorCoordinator, type CheckpointHarness,
} from './testing/TestingCheckpointCoordinatorContext.ts';

/** An ack as the JobMaster hands it over: a task on the ioExecutor (ExecutionGraphHandler). */
function ack(h: CheckpointHarness, subtask: number, id: number): void {
  h.ctx.ioExecutor.execute('receive-ack', () => {
    h.coordinator.receiveAcknowledgeMessage({ attemptId: h.ctx.attempt('src', subtask).attemptId, checkpointId: id, subtaskState: null });
  });
  h.scheduler.runAll();
}

function decline(h: CheckpointHarness, subtask: number, id: number): void {
  h.ctx.ioExecutor.execute('receive-decline', () => {
    h.coordinator.receiveDeclineMessage({ attemptId: h.ctx.attempt('src', subtask).attemptId, checkpointId: id, reason: 'CHECKPOINT_DECLINED' });
  });
  h.scheduler.runAll();
}

function trigger(h: CheckpointHarness): CompletableFuture<CompletedCheckpoint> {
  const f = h.coordinator.triggerCheckpoint(false);
  h.scheduler.runAll();
  return f;
}

describe('each handler that learns of a failure of a pending checkpoint aborts it at once (reference 1.7 to 1.11), '
  + 'recording what it learned; its planted stall leaves the checkpoint pending', () => {
  /** The checkpoint.failureHandled events, as `handler failure [failureReason]`. */
  const handled = (h: CheckpointHarness): string[] => h.tracer.eventsOf('checkpoint.failureHandled')
    .map((e) => [e.attrs['handler'], e.attrs['failure'], e.attrs['failureReason']].filter((x) => x !== undefined).join(' '));
  const aborted = (h: CheckpointHarness): string[] => h.tracer.eventsOf('checkpoint.aborted')
    .map((e) => `${String(e.attrs['checkpointId'])} ${String(e.attrs['reason'])}`);

  for (const stall of [false, true]) {
    const bugs = (id: string): string[] => (stall ? [id] : []);
    const outcome = stall ? 'left pending' : 'aborted';

    test(`a failed trigger RPC (triggerCheckpointRequest, FLINK-21246): ${outcome}`, () => {
      const h = createCheckpointHarness({ config: { tolerableFailures: 5 }, bugs: bugs(PLANTED_BUGS.triggerFailureLeavesPending) });
      h.ctx.failTriggers = true;
      trigger(h);
      expect(handled(h)).toEqual(['triggerCheckpointRequest Exception']);
      expect(aborted(h)).toEqual(stall ? [] : ['1 TRIGGER_CHECKPOINT_FAILURE']);
      expect(h.coordinator.numberOfPendingCheckpoints).toBe(stall ? 1 : 0);
      if (stall) {
        // Left to its timeout: the canceller expires it.
        h.scheduler.advanceTimeUs(h.coordinator.getPendingCheckpoints().length === 0 ? 0 : 10_000_000);
        expect(aborted(h)).toEqual(['1 CHECKPOINT_EXPIRED']);
      }
    });

    test(`a failed OperatorCoordinator snapshot (onTriggerFailure): ${outcome}`, () => {
      const h = createCheckpointHarness({
        config: { tolerableFailures: 5 }, bugs: bugs(PLANTED_BUGS.triggerFailureLeavesPending),
        coordinators: () => [Object.assign(new TestingOperatorCoordinator('enumerator', 'src'), { fail: true })],
      });
      trigger(h);
      // The coordinators' step hands the failure on as a CheckpointException (getCheckpointException).
      expect(handled(h)).toEqual(['onTriggerFailure CheckpointException TRIGGER_CHECKPOINT_FAILURE']);
      expect(aborted(h)).toEqual(stall ? [] : ['1 TRIGGER_CHECKPOINT_FAILURE']);
      expect(h.coordinator.numberOfPendingCheckpoints).toBe(stall ? 1 : 0);
      // The trigger ended either way: no trigger RPC went out, and the next trigger may start.
      expect(h.ctx.triggers).toEqual([]);
      expect(h.coordinator.isTriggering).toBe(false);
    });

    test(`a failed _metadata write (completePendingCheckpoint): ${outcome}`, () => {
      const h = createCheckpointHarness({ config: { tolerableFailures: 5 }, bugs: bugs(PLANTED_BUGS.finalizeFailureLeavesPending) });
      trigger(h);
      h.objectStore.failNextPuts(1);
      ack(h, 0, 1);
      ack(h, 1, 1);
      expect(handled(h)).toEqual(['completePendingCheckpoint IOException']);
      expect(aborted(h)).toEqual(stall ? [] : ['1 FINALIZE_CHECKPOINT_FAILURE']);
      expect(h.coordinator.numberOfPendingCheckpoints).toBe(stall ? 1 : 0);
      expect(h.coordinator.lock.heldBy).toBeUndefined();
    });

    test(`a decline (receiveDeclineMessage): ${outcome}`, () => {
      const h = createCheckpointHarness({ config: { tolerableFailures: 5 }, bugs: bugs(PLANTED_BUGS.declineLeavesPending) });
      trigger(h);
      decline(h, 0, 1);
      expect(h.tracer.eventsOf('checkpoint.declined').map((e) => e.attrs['pending'])).toEqual([true]);
      expect(aborted(h)).toEqual(stall ? [] : ['1 CHECKPOINT_DECLINED']);
      expect(h.coordinator.numberOfPendingCheckpoints).toBe(stall ? 1 : 0);
    });

    test(`the scheduler's stop when a failure moves the job out of RUNNING (FLINK-7844): ${outcome}`, () => {
      const h = createCheckpointHarness({ config: { intervalUs: 10_000 }, bugs: bugs(PLANTED_BUGS.taskFailureLeavesPending) });
      const activator = h.coordinator.createActivatorDeactivator();
      activator.jobStatusChanges('RUNNING');
      h.scheduler.advanceTimeUs(10_000);
      expect(h.coordinator.numberOfPendingCheckpoints).toBe(1);
      h.ctx.mainExecutor.execute('failover', () => activator.jobStatusChanges('RESTARTING'));
      h.scheduler.runAll();
      expect(h.coordinator.isPeriodicCheckpointingStarted).toBe(false);
      expect(aborted(h)).toEqual(stall ? [] : ['1 CHECKPOINT_COORDINATOR_SUSPEND']);
      expect(h.coordinator.numberOfPendingCheckpoints).toBe(stall ? 1 : 0);
      // The restore's abort (SchedulerBase.restoreState) still comes, later.
      h.coordinator.abortPendingCheckpoints('JOB_FAILOVER_REGION');
      expect(aborted(h).at(-1)).toBe(stall ? '1 JOB_FAILOVER_REGION' : '1 CHECKPOINT_COORDINATOR_SUSPEND');
    });
  }

  test('a trigger step that fails because its checkpoint expired meanwhile is recorded too, and aborts nothing more', () => {
    const h = createCheckpointHarness({ config: { tolerableFailures: 5, timeoutUs: 10_000 },
      coordinators: () => [Object.assign(new TestingOperatorCoordinator('enumerator', 'src'), { hang: true })] });
    trigger(h);
    h.scheduler.advanceTimeUs(10_000);
    h.scheduler.runAll();
    expect(aborted(h)).toEqual(['1 CHECKPOINT_EXPIRED']);
    // onTriggerFailure learns of the abort that failed its step: the checkpoint was no longer pending.
    expect(handled(h)).toEqual(['onTriggerFailure CheckpointException CHECKPOINT_EXPIRED']);
  });
});
