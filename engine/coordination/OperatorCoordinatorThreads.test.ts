/**
 * The threads of an operator coordinator, as Flink runs them: the holder on the JobMaster main
 * thread, the SourceCoordinator's work on its own coordinator thread (SourceCoordinatorContext's
 * single-threaded executor), and the way back (a gateway's sendEvent and the snapshot's future)
 * through the main thread again. Each test pins one ordering, mostly by keeping the coordinator
 * thread busy (blocked in enumerator work) and watching what waits and what goes on.
 */
import { describe, expect, test } from 'vitest';
import type { Executor } from '../api/Executor.ts';
import { hostId, rpcAddress } from '../api/ids.ts';
import type { JobVertex } from '../jobgraph/JobGraph.ts';
import { ExecutionVertex } from '../jobmaster/ExecutionGraph.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { TestingTracer } from '../testing/TestingTracer.ts';
import { OperatorCoordinatorHolder } from './OperatorCoordinatorHolder.ts';
import { RecreateOnResetOperatorCoordinator } from './RecreateOnResetOperatorCoordinator.ts';
import { SourceCoordinator } from './SourceCoordinator.ts';
import { requestSplitEvent, type SourceEvent } from './SourceEvent.ts';
import { TestingTaskExecutorGateway } from './testing/TestingTaskExecutorGateway.ts';

const VERTEX: JobVertex = {
  id: 'v0', name: 'source', parallelism: 2, maxParallelism: 128, maxParallelismConfigured: false,
  operators: [], isSource: true,
};

/** A started holder of a 2-subtask source over 4 splits, both first attempts ready, all run. */
function setup() {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const env = createTestingEngineEnv({ host: hostId('jobmanager'), clock: scheduler, executors: scheduler, tracer });
  const te = new TestingTaskExecutorGateway();
  const main = scheduler.get('main');
  const thread = scheduler.get('coordinator');
  const coordinator = new RecreateOnResetOperatorCoordinator(() => new SourceCoordinator({
    env, operatorUid: 'src', splitIds: [0, 1, 2, 3], parallelism: 2, executor: thread,
  }));
  const failed: string[] = [];
  const h = new OperatorCoordinatorHolder(env, main, 'v0', 'src', coordinator, {
    gateway: () => te, failSubtask: (v, s) => failed.push(`${v}#${s}`),
  }, 2, thread);
  const vertices = [0, 1].map((s) => new ExecutionVertex(VERTEX, s));
  const ready = (ev: ExecutionVertex): void => {
    ev.current.slot = { taskExecutor: rpcAddress('te'), host: hostId('tm'), slotIndex: ev.subtask, allocationId: 'a' };
    ev.current.state = 'INITIALIZING';
    h.attemptReady(ev);
  };
  h.start();
  for (const ev of vertices) ready(ev);
  scheduler.runAll();
  const start = scheduler.history.length;
  /** Occupies the coordinator thread with enumerator work; the returned function ends it. */
  const busy = (): (() => void) => {
    let waker: Executor | undefined;
    thread.execute('enumerator-work', () => {
      waker = thread.block('enumerator-work');
    });
    scheduler.runAll();
    return () => (waker as Executor).execute('enumerator-work-done', () => undefined);
  };
  /** What ran since the setup, as `executor:label`. */
  const ran = (): string[] => scheduler.history.slice(start);
  /** The split ids (or 'none') sent to the tasks, as `subtask:split`. */
  const sent = (): string[] => te.sent.map((s) => {
    const e = s.event as SourceEvent;
    return `${s.attemptId}:${e.type === 'AddSplitEvent' ? e.splits.map((x) => x.splitId).join(',') : 'none'}`;
  });
  const request = (subtask: number): void =>
    h.handleEventFromOperator(subtask, vertices[subtask]?.current.attemptNumber ?? 0, requestSplitEvent());
  return { scheduler, tracer, te, h, coordinator, vertices, ready, busy, ran, sent, request, failed };
}

describe('operator coordinator threads: the holder hands work to the coordinator thread', () => {
  test('start, ready attempts and operator events run as coordinator-thread tasks, in the order the main thread called', () => {
    const t = setup();
    t.request(1);
    t.request(0);
    t.scheduler.runAll();
    expect(t.ran()).toEqual([
      'coordinator:handle-split-request', 'coordinator:handle-split-request',
      // The answers go back through the main thread, where the valve decides.
      'main:operator-event-send', 'main:operator-event-send',
    ]);
    expect(t.sent()).toEqual(['v0#1@0:0', 'v0#0@0:1']);
    expect(t.scheduler.history.slice(0, 3)).toEqual([
      'coordinator:start-enumerator', 'coordinator:attempt-ready', 'coordinator:attempt-ready',
    ]);
  });

  test('a busy coordinator thread holds up split requests, the snapshot and the notifications; the main thread goes on', () => {
    const t = setup();
    const done = t.busy();
    t.request(0);
    const result = t.h.checkpointCoordinator(1);
    t.h.notifyCheckpointAborted(1);
    t.scheduler.runAll();
    // Nothing of the coordinator's ran, and nothing was sent.
    expect(t.ran()).toEqual(['coordinator:enumerator-work']);
    expect(t.tracer.eventsOf('source.split-assigned')).toEqual([]);
    expect(result.isDone()).toBe(false);
    // The holder's own part ran on the main thread at once: the abort opened the gateways it had
    // marked, so the snapshot that comes later cannot close them.
    done();
    t.scheduler.runAll();
    expect(t.ran().slice(1)).toEqual([
      'coordinator:enumerator-work-done', 'coordinator:handle-split-request', 'coordinator:checkpoint-coordinator',
      'coordinator:checkpoint-aborted', 'main:operator-event-send', 'main:coordinator-checkpoint-done',
    ]);
    expect(() => result.getNow()).toThrow(/Cannot close gateway/);
    expect(t.sent()).toEqual(['v0#0@0:0']);
  });
});

describe('operator coordinator threads: the way back goes through the main thread', () => {
  test('an event sent before the snapshot goes out before the gateways close; one sent after it is held until the subtask acknowledges', () => {
    const t = setup();
    t.request(0);
    const result = t.h.checkpointCoordinator(1);
    t.request(0);
    t.scheduler.runAll();
    expect(t.ran()).toEqual([
      'coordinator:handle-split-request', 'coordinator:checkpoint-coordinator', 'coordinator:handle-split-request',
      'main:operator-event-send', 'main:coordinator-checkpoint-done', 'main:operator-event-send',
    ]);
    expect(t.sent()).toEqual(['v0#0@0:0']);
    expect(t.tracer.marks.filter((m) => m.type === 'event-valve-held').map((m) => m.attrs))
      .toEqual([{ operator: 'src', subtask: 0, checkpointId: 1 }]);
    // The snapshot's future waits for the event sent before it.
    expect(result.isDone()).toBe(false);
    t.te.sent[0]?.answer.complete(undefined);
    t.scheduler.runAll();
    expect(result.getNow()).toEqual({ unassigned: [{ splitId: 1, offset: 0 }, { splitId: 2, offset: 0 }, { splitId: 3, offset: 0 }], assigned: [0] });
    t.h.handleEventFromOperator(0, 0, { type: 'AcknowledgeCheckpointEvent', checkpointId: 1 });
    expect(t.sent()).toEqual(['v0#0@0:0', 'v0#0@0:1']);
  });

  test('a completion opens the gateways on the main thread at once; the coordinator hears of it later on its thread', () => {
    const t = setup();
    t.h.checkpointCoordinator(1);
    t.scheduler.runAll();
    const done = t.busy();
    t.request(1); // queued behind the busy work: answered after the completion
    t.h.notifyCheckpointComplete(1);
    t.scheduler.runAll();
    expect(t.tracer.eventsOf('source.coordinator-notified')).toEqual([]);
    done();
    t.scheduler.runAll();
    expect(t.ran().slice(-4)).toEqual([
      'coordinator:enumerator-work-done', 'coordinator:handle-split-request', 'coordinator:checkpoint-complete',
      'main:operator-event-send',
    ]);
    // The gateway was open by then: the split went out, not held.
    expect(t.sent()).toEqual(['v0#1@0:0']);
    expect(t.tracer.marks.some((m) => m.type === 'event-valve-held')).toBe(false);
  });
});

describe('operator coordinator threads: failover', () => {
  test('a subtask reset gives a fresh gateway on the main thread at once; the splits return on the coordinator thread, after the busy work', () => {
    const t = setup();
    t.request(0);
    t.scheduler.runAll();
    t.te.sent[0]?.answer.complete(undefined);
    const done = t.busy();
    const ev = t.vertices[0] as ExecutionVertex;
    ev.current.state = 'FAILED';
    t.h.attemptFailed(ev, 'crash');
    ev.resetForNewExecution();
    t.h.subtaskReset(0, -1);
    t.ready(ev);
    t.request(0);
    t.scheduler.runAll();
    expect(t.tracer.marks.filter((m) => m.type === 'splits-returned')).toEqual([]);
    done();
    t.scheduler.runAll();
    expect(t.ran().slice(-6)).toEqual([
      'coordinator:enumerator-work-done', 'coordinator:attempt-failed', 'coordinator:subtask-reset',
      'coordinator:attempt-ready', 'coordinator:handle-split-request', 'main:operator-event-send',
    ]);
    // Split 0 came back and went to the new attempt.
    expect(t.sent()).toEqual(['v0#0@0:0', 'v0#0@1:0']);
  });

  test('a global reset drops the old coordinator\'s queued work; the new one starts behind the busy work and answers', () => {
    const t = setup();
    const done = t.busy();
    t.request(0); // queued for the old coordinator: dropped
    for (const ev of t.vertices) {
      ev.current.state = 'FAILED';
      ev.resetForNewExecution();
    }
    t.h.resetToCheckpoint(-1, undefined);
    const fresh = t.coordinator.internalCoordinator;
    for (const ev of t.vertices) t.ready(ev);
    t.request(1);
    t.scheduler.runAll();
    expect(t.tracer.eventsOf('source.coordinator-reset')).toHaveLength(1);
    expect(t.tracer.eventsOf('source.coordinator-started')).toHaveLength(1);
    done();
    t.scheduler.runAll();
    expect(t.ran().slice(-7)).toEqual([
      'coordinator:enumerator-work-done', 'coordinator:handle-split-request', 'coordinator:start-enumerator',
      'coordinator:attempt-ready', 'coordinator:attempt-ready', 'coordinator:handle-split-request',
      'main:operator-event-send',
    ]);
    expect(t.coordinator.internalCoordinator).toBe(fresh);
    expect(t.tracer.eventsOf('source.coordinator-started')).toHaveLength(2);
    // Only the new coordinator answered: split 0, to the new attempt of subtask 1.
    expect(t.sent()).toEqual(['v0#1@1:0']);
  });

  test('closing (the JobMaster stops) drops what is queued on the coordinator thread', () => {
    const t = setup();
    const done = t.busy();
    t.request(0);
    const result = t.h.checkpointCoordinator(1);
    t.h.close();
    done();
    t.scheduler.runAll();
    expect(t.tracer.eventsOf('source.split-assigned')).toEqual([]);
    expect(t.tracer.eventsOf('source.coordinator-checkpoint')).toEqual([]);
    expect(result.isDone()).toBe(false);
  });
});
