/**
 * The CheckpointCoordinator with real OperatorCoordinatorHolders (not the recording fake): the
 * paths where the two meet, as in Flink's CheckpointCoordinator and OperatorCoordinatorHolder.
 */
import { describe, expect, test } from 'vitest';
import { rpcAddress, hostId } from '../api/ids.ts';
import type { OperatorCoordinator } from '../coordination/OperatorCoordinator.ts';
import { OperatorCoordinatorHolder } from '../coordination/OperatorCoordinatorHolder.ts';
import { TestingTaskExecutorGateway } from '../coordination/testing/TestingTaskExecutorGateway.ts';
import type { JobVertex } from '../jobgraph/JobGraph.ts';
import { ExecutionVertex } from '../jobmaster/ExecutionGraph.ts';
import { createCheckpointHarness } from './testing/TestingCheckpointCoordinatorContext.ts';

const SOURCE: JobVertex = {
  id: 'src', name: 'source', parallelism: 2, maxParallelism: 128, maxParallelismConfigured: false,
  operators: [], isSource: true,
};

describe('an abort that overtakes a queued trigger reaches the holders as a notification for a checkpoint they never saw', () => {
  test('the trigger skips the coordinator step; the abort notification is skipped by the holder (coordinator-notify-skipped), without an assertion; later checkpoints work', () => {
    const calls: string[] = [];
    const coordinator: OperatorCoordinator = {
      start: () => undefined,
      close: () => undefined,
      handleEventFromOperator: () => undefined,
      checkpointCoordinator: (id, result) => {
        calls.push(`checkpoint ${id}`);
        result.complete(`state ${id}`);
      },
      notifyCheckpointComplete: (id) => calls.push(`complete ${id}`),
      notifyCheckpointAborted: (id) => calls.push(`aborted ${id}`),
      resetToCheckpoint: () => undefined,
      subtaskReset: () => undefined,
      executionAttemptFailed: () => undefined,
      executionAttemptReady: () => undefined,
    };
    let holder: OperatorCoordinatorHolder | undefined;
    const h = createCheckpointHarness({
      coordinators: (ctx) => {
        holder = new OperatorCoordinatorHolder(ctx.env, ctx.mainExecutor, 'src', 'source', coordinator, {
          gateway: () => new TestingTaskExecutorGateway(), failSubtask: () => undefined,
        }, 2);
        return [holder];
      },
    });
    for (const s of [0, 1]) {
      const ev = new ExecutionVertex(SOURCE, s);
      ev.current.slot = { taskExecutor: rpcAddress('te'), host: hostId('tm'), slotIndex: s, allocationId: 'a' };
      ev.current.state = 'RUNNING';
      holder?.attemptReady(ev);
    }
    const ackAll = (id: number): void => {
      for (const s of [0, 1]) {
        h.ctx.ioExecutor.execute('receive-ack', () => h.coordinator.receiveAcknowledgeMessage({
          attemptId: h.ctx.attempt('src', s).attemptId, checkpointId: id, subtaskState: null,
        }));
        holder?.handleEventFromOperator(s, 0, { type: 'AcknowledgeCheckpointEvent', checkpointId: id });
      }
      h.scheduler.runAll();
    };
    h.coordinator.startCheckpointScheduler();
    h.coordinator.triggerCheckpoint();
    h.scheduler.runAll();
    ackAll(1);
    expect(h.coordinator.store.getLatestCheckpointId()).toBe(1);
    // Checkpoint 2 is aborted (a stop, as at a failover) before its coordinator step ran.
    h.coordinator.triggerCheckpoint();
    h.scheduler.runUntilNext('jobmaster/checkpoint-timer:checkpoint-coordinators');
    h.coordinator.stopCheckpointScheduler();
    h.scheduler.runAll();
    h.invariants.checkAll();
    expect(calls).toEqual(['checkpoint 1', 'complete 1']);
    expect(h.tracer.marks.filter((m) => m.type === 'coordinator-notify-skipped').map((m) => m.attrs['checkpointId']))
      .toEqual([2]);
    h.coordinator.startCheckpointScheduler();
    h.coordinator.triggerCheckpoint();
    h.scheduler.runAll();
    ackAll(3);
    expect(calls).toEqual(['checkpoint 1', 'complete 1', 'checkpoint 3', 'complete 3']);
  });
});
