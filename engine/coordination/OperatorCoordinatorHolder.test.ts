import { describe, expect, test } from 'vitest';
import { hostId, rpcAddress } from '../api/ids.ts';
import type { JobVertex } from '../jobgraph/JobGraph.ts';
import { ExecutionVertex } from '../jobmaster/ExecutionGraph.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { TestingTracer } from '../testing/TestingTracer.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorCoordinator, SubtaskGateway } from './OperatorCoordinator.ts';
import { OperatorCoordinatorHolder } from './OperatorCoordinatorHolder.ts';
import { TestingTaskExecutorGateway } from './testing/TestingTaskExecutorGateway.ts';

/**
 * A coordinator that records the calls it gets and keeps each attempt's gateway. It snapshots at
 * once unless `holdSnapshots`, in which case the test completes `snapshots` itself.
 */
function recordingCoordinator(holdSnapshots: boolean) {
  const calls: string[] = [];
  const gateways = new Map<number, SubtaskGateway>();
  const snapshots = new Map<number, CompletableFuture<unknown>>();
  const coordinator: OperatorCoordinator = {
    start: () => undefined,
    close: () => undefined,
    handleEventFromOperator: (s, _a, e) => calls.push(`event ${s} ${String(e)}`),
    checkpointCoordinator: (id, result) => {
      calls.push(`checkpoint ${id}`);
      if (holdSnapshots) snapshots.set(id, result);
      else result.complete(`state ${id}`);
    },
    notifyCheckpointComplete: (id) => calls.push(`complete ${id}`),
    notifyCheckpointAborted: (id) => calls.push(`aborted ${id}`),
    resetToCheckpoint: (id) => calls.push(`reset ${id}`),
    subtaskReset: (s, id) => calls.push(`subtaskReset ${s} ${id}`),
    executionAttemptFailed: () => undefined,
    executionAttemptReady: (s, a, g) => {
      calls.push(`ready ${s}@${a}`);
      gateways.set(s, g);
    },
  };
  return { coordinator, calls, gateways, snapshots };
}

const VERTEX: JobVertex = {
  id: 'v0', name: 'source', parallelism: 2, maxParallelism: 128, maxParallelismConfigured: false,
  operators: [], isSource: true,
};

/** A holder of a 2-subtask source with both first attempts ready; nothing has run yet. */
function holder(options: { holdSnapshots?: boolean } = {}) {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const env = createTestingEngineEnv({ host: hostId('jobmanager'), clock: scheduler, executors: scheduler, tracer });
  const te = new TestingTaskExecutorGateway();
  const failed: string[] = [];
  const c = recordingCoordinator(options.holdSnapshots ?? false);
  const h = new OperatorCoordinatorHolder(env, scheduler.get('main'), 'v0', 'src', c.coordinator, {
    gateway: () => te,
    failSubtask: (v, s) => failed.push(`${v}#${s}`),
  }, 2);
  const vertices = [0, 1].map((s) => new ExecutionVertex(VERTEX, s));
  /** Makes `ev`'s current attempt deployed and initializing, and tells the holder. */
  const ready = (ev: ExecutionVertex) => {
    ev.current.slot = { taskExecutor: rpcAddress('te'), host: hostId('tm'), slotIndex: ev.subtask, allocationId: 'a' };
    ev.current.state = 'INITIALIZING';
    h.attemptReady(ev);
  };
  /** Fails `ev`'s current attempt and starts the next one (not yet ready). */
  const restart = (ev: ExecutionVertex) => {
    ev.current.state = 'FAILED';
    ev.resetForNewExecution();
  };
  for (const ev of vertices) ready(ev);
  /** Sends `event` through the gateway the coordinator holds for `subtask`. */
  const send = (subtask: number, event: string) => (c.gateways.get(subtask) as SubtaskGateway).sendEvent(event);
  const skipped = () => tracer.marks.filter((m) => m.type === 'coordinator-notify-skipped').map((m) => m.attrs);
  const check = () => {
    scheduler.runAll();
    h.checkInvariants();
  };
  return { h, c, te, failed, vertices, ready, restart, send, skipped, check, tracer };
}

describe('OperatorCoordinatorHolder: a notification for a checkpoint a gateway never marked', () => {
  test('an abort that overtook its queued trigger, after a real checkpoint, skips the gateways and '
    + 'the coordinator (Flink\'s gateway throws "unseen checkpoint"), without an assertion', () => {
    const t = holder();
    // Checkpoint 1 runs for real: marked, snapshotted, closed, completed.
    t.h.checkpointCoordinator(1);
    t.h.notifyCheckpointComplete(1);
    // Checkpoint 2 was aborted before its coordinator step ran, so no gateway ever marked it.
    expect(() => t.h.notifyCheckpointAborted(2)).not.toThrow();
    t.check();
    expect(t.c.calls).not.toContain('aborted 2');
    // The mail ends at the first gateway: subtask 1's is never asked.
    expect(t.skipped()).toEqual([{ operator: 'src', checkpointId: 2, subtask: 0, notification: 'aborted' }]);
    // Later checkpoints still work, and notify the coordinator.
    const three = t.h.checkpointCoordinator(3);
    t.h.notifyCheckpointComplete(3);
    t.check();
    expect(three.isDone() && !three.isCompletedExceptionally()).toBe(true);
    expect(t.c.calls.filter((c) => !c.startsWith('ready')))
      .toEqual(['checkpoint 1', 'complete 1', 'checkpoint 3', 'complete 3']);
  });
});

describe('OperatorCoordinatorHolder: the coordinator checkpoint', () => {
  test('completes with the state once the events sent before it were received', () => {
    const t = holder();
    void t.send(0, 'before');
    const f = t.h.checkpointCoordinator(1);
    t.check();
    expect(f.isDone()).toBe(false);
    t.te.sent[0]?.answer.complete(undefined);
    t.check();
    expect(f.getNow()).toBe('state 1');
  });

  test('fails with "Cannot close gateway" when the checkpoint was aborted before the snapshot completed', () => {
    const t = holder({ holdSnapshots: true });
    const f = t.h.checkpointCoordinator(4);
    t.h.notifyCheckpointAborted(4);
    t.c.snapshots.get(4)?.complete('state 4');
    t.check();
    expect(f.isCompletedExceptionally()).toBe(true);
    expect(() => f.getNow()).toThrow(/Cannot close gateway/);
    // Nothing is left closed: events pass.
    void t.send(0, 'after');
    expect(t.te.events()).toEqual(['after']);
  });

  test('abortCurrentTriggering reopens the latest marked checkpoint of every gateway', () => {
    const t = holder();
    t.h.checkpointCoordinator(2);
    void t.send(0, 'held');
    t.h.abortCurrentTriggering();
    t.check();
    expect(t.te.events()).toEqual(['held']);
  });
});
