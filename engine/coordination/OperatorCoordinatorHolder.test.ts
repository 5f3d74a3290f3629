import { describe, expect, test } from 'vitest';
import { hostId, rpcAddress } from '../api/ids.ts';
import type { JobVertex } from '../jobgraph/JobGraph.ts';
import { ExecutionVertex } from '../jobmaster/ExecutionGraph.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { TestingTracer } from '../testing/TestingTracer.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorCoordinator, SubtaskGateway } from './OperatorCoordinator.ts';
import { COORDINATOR_EVENTS_BYPASS_VALVE, OperatorCoordinatorHolder } from './OperatorCoordinatorHolder.ts';
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
function holder(options: { holdSnapshots?: boolean; bugs?: readonly string[] } = {}) {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const bugs = new Set(options.bugs ?? []);
  const env = createTestingEngineEnv({
    host: hostId('jobmanager'), clock: scheduler, executors: scheduler, tracer, bugs: { has: (id) => bugs.has(id) },
  });
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
    // Checkpoint 1 runs for real: marked, snapshotted, closed (a main-thread mail), completed.
    t.h.checkpointCoordinator(1);
    t.check();
    t.h.notifyCheckpointComplete(1);
    // Checkpoint 2 was aborted before its coordinator step ran, so no gateway ever marked it.
    expect(() => t.h.notifyCheckpointAborted(2)).not.toThrow();
    t.check();
    expect(t.c.calls).not.toContain('aborted 2');
    // The mail ends at the first gateway: subtask 1's is never asked.
    expect(t.skipped()).toEqual([{ operator: 'src', checkpointId: 2, subtask: 0, notification: 'aborted' }]);
    // Later checkpoints still work, and notify the coordinator.
    const three = t.h.checkpointCoordinator(3);
    t.check();
    t.h.notifyCheckpointComplete(3);
    t.check();
    expect(three.isDone() && !three.isCompletedExceptionally()).toBe(true);
    expect(t.c.calls.filter((c) => !c.startsWith('ready')))
      .toEqual(['checkpoint 1', 'complete 1', 'checkpoint 3', 'complete 3']);
  });

  test('the notification stops at the first fresh gateway: the gateways after it stay closed and '
    + 'the coordinator is not told; their subtask\'s acknowledgement still opens them', () => {
    const t = holder();
    t.h.checkpointCoordinator(5);
    void t.send(1, 'split-for-1');
    t.check();
    expect(t.te.events()).toEqual([]);
    // Subtask 0 fails over regionally: a fresh gateway, which never saw 5.
    t.restart(t.vertices[0] as ExecutionVertex);
    t.h.subtaskReset(0, 4);
    t.h.notifyCheckpointAborted(5);
    t.check();
    expect(t.te.events()).toEqual([]);
    expect(t.c.calls).not.toContain('aborted 5');
    expect(t.skipped()).toEqual([{ operator: 'src', checkpointId: 5, subtask: 0, notification: 'aborted' }]);
    // Subtask 1's task snapshotted 5 anyway: its AcknowledgeCheckpointEvent releases the event.
    t.h.handleEventFromOperator(1, 0, { type: 'AcknowledgeCheckpointEvent', checkpointId: 5 });
    t.check();
    expect(t.te.events()).toEqual(['split-for-1']);
  });
  test('a gateway left closed by a skipped notification keeps holding, and later coordinator '
    + 'checkpoints wait for what it holds, until a global reset sends it', () => {
    const t = holder();
    t.h.checkpointCoordinator(5);
    const held = t.send(1, 'split-for-1');
    t.check();
    t.restart(t.vertices[0] as ExecutionVertex);
    t.h.subtaskReset(0, 4);
    t.h.notifyCheckpointAborted(5);
    t.ready(t.vertices[0] as ExecutionVertex);
    // Subtask 1 never snapshots 5 (say its trigger was lost): its gateway stays closed for 5, and
    // checkpoint 6, which closes after the held event was sent, waits for it.
    const six = t.h.checkpointCoordinator(6);
    t.check();
    t.h.handleEventFromOperator(1, 0, { type: 'AcknowledgeCheckpointEvent', checkpointId: 6 });
    t.check();
    expect(t.te.events()).toEqual([]);
    expect(six.isDone()).toBe(false);
    // A global reset sends it (to the old attempt) and leaves nothing closed.
    for (const ev of t.vertices) t.restart(ev);
    t.h.resetToCheckpoint(4, 'state 4');
    t.check();
    expect(t.te.events()).toEqual(['split-for-1']);
    t.te.sent[0]?.answer.completeExceptionally(new Error('task gone'));
    t.check();
    expect(held.isCompletedExceptionally() && six.isCompletedExceptionally()).toBe(true);
  });
});

describe('OperatorCoordinatorHolder: resets, as Flink', () => {
  test('resetToCheckpoint opens every gateway for every checkpoint, sending what they held to the '
    + 'old attempts, then sets up fresh gateways that know no checkpoint', () => {
    const t = holder();
    t.h.checkpointCoordinator(7);
    const held = [t.send(0, 'a0'), t.send(0, 'b0'), t.send(1, 'a1')];
    t.check();
    expect(t.te.events()).toEqual([]);
    for (const ev of t.vertices) t.restart(ev);
    t.h.resetToCheckpoint(6, 'state 6');
    t.check();
    // Flushed in order, to the attempts they were sent for.
    expect(t.te.sent.map((s) => `${s.attemptId} ${String(s.event)}`))
      .toEqual(['v0#0@0 a0', 'v0#0@0 b0', 'v0#1@0 a1']);
    // The old attempts are gone: the sends fail, without failing the new attempts over.
    for (const s of t.te.sent) s.answer.completeExceptionally(new Error('task gone'));
    t.check();
    expect(held.every((f) => f.isCompletedExceptionally())).toBe(true);
    expect(t.failed).toEqual([]);
    // The fresh gateways never marked 7: its late completion notice is skipped.
    t.h.notifyCheckpointComplete(7);
    expect(t.skipped()).toEqual([{ operator: 'src', checkpointId: 7, subtask: 0, notification: 'complete' }]);
    // The new attempts get the fresh gateways: nothing is closed, events pass.
    for (const ev of t.vertices) t.ready(ev);
    void t.send(0, 'c0');
    t.check();
    expect(t.te.sent.at(-1)?.attemptId).toBe('v0#0@1');
    expect(t.c.calls.filter((c) => !c.startsWith('ready'))).toEqual(['checkpoint 7', 'reset 6']);
  });

  test('subtaskReset gives the subtask a fresh gateway and drops the old one with what it held; '
    + 'the other subtasks\' gateways are untouched', () => {
    const t = holder();
    t.h.checkpointCoordinator(3);
    const dropped = t.send(0, 'held-for-0');
    void t.send(1, 'held-for-1');
    t.check();
    t.restart(t.vertices[0] as ExecutionVertex);
    t.h.subtaskReset(0, 2);
    t.check();
    expect(t.c.calls.at(-1)).toBe('subtaskReset 0 2');
    // As in Flink, the dropped gateway's events are never sent and their futures never complete.
    expect(dropped.isDone()).toBe(false);
    // The new attempt's gateway is open although checkpoint 3 is still closed for subtask 1.
    t.ready(t.vertices[0] as ExecutionVertex);
    void t.send(0, 'after-reset');
    t.check();
    expect(t.te.events()).toEqual(['after-reset']);
    expect(t.te.sent[0]?.attemptId).toBe('v0#0@1');
    // Subtask 1 still waits for its acknowledgement of 3, and the new checkpoint 4 marks both.
    t.h.handleEventFromOperator(1, 0, { type: 'AcknowledgeCheckpointEvent', checkpointId: 3 });
    t.check();
    expect(t.te.events()).toEqual(['after-reset', 'held-for-1']);
    expect(dropped.isDone()).toBe(false);
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
    t.check();
    expect(t.te.events()).toEqual(['after']);
  });

  test('planted coordinator-events-bypass-valve (FLINK-16986): an event sent after the snapshot goes out before the subtask\'s own snapshot', () => {
    for (const bugs of [[], [COORDINATOR_EVENTS_BYPASS_VALVE]]) {
      const t = holder({ bugs });
      const f = t.h.checkpointCoordinator(1);
      t.check();
      // The snapshot of 1 is taken and the gateways closed; the coordinator assigns a split now.
      void t.send(0, 'split-after-snapshot');
      t.check();
      if (bugs.length === 0) {
        // Held until subtask 0 acknowledges 1 (its barrier came and it snapshotted).
        expect(t.te.events()).toEqual([]);
        expect(t.tracer.marks.map((m) => m.type)).toContain('event-valve-held');
        t.h.handleEventFromOperator(0, 0, { type: 'AcknowledgeCheckpointEvent', checkpointId: 1 });
      } else {
        expect(t.tracer.marks.map((m) => m.type)).not.toContain('event-valve-held');
      }
      expect(t.te.events()).toEqual(['split-after-snapshot']);
      expect(f.getNow()).toBe('state 1');
    }
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
