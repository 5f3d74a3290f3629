import { describe, expect, test } from 'vitest';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import { createTestingOperatorEnv,
  type TestingOperatorEnv } from '../streaming/operators/testing/TestingOperatorEnv.ts';
import { SourceCoordinator, SPLITS_RETURNED_AT_FAILURE } from './SourceCoordinator.ts';
import { requestSplitEvent, type SourceEvent } from './SourceEvent.ts';
import type { SplitEnumeratorState } from './SplitEnumerator.ts';
import { TestingSubtaskGateway } from './testing/TestingSubtaskGateway.ts';

interface Fixture {
  readonly env: TestingOperatorEnv;
  readonly coordinator: SourceCoordinator;
  readonly gateways: TestingSubtaskGateway[];
}

/**
 * A started coordinator of `splits` splits with every first attempt ready. Its calls only queue
 * work on the coordinator thread: {@link run} runs it.
 */
function started(splits = 6, parallelism = 2, bugs: readonly string[] = []): Fixture {
  const env = createTestingOperatorEnv({ bugs });
  const coordinator = new SourceCoordinator({
    env, operatorUid: 'source-0', splitIds: Array.from({ length: splits },
      (_, i) => i), parallelism, executor: env.scheduler.get('coordinator'),
  });
  coordinator.start();
  const gateways: TestingSubtaskGateway[] = [];
  for (let i = 0; i < parallelism; i++) {
    const g = new TestingSubtaskGateway(i, 0);
    coordinator.executionAttemptReady(i, 0, g);
    gateways.push(g);
  }
  env.scheduler.runAll();
  return { env, coordinator, gateways };
}

/** Runs what the calls queued on the coordinator thread. */
function run(f: { env: TestingOperatorEnv }): void {
  f.env.scheduler.runAll();
}

/** The split ids (or 'none' for NoMoreSplitsEvent) a gateway received. */
function received(g: TestingSubtaskGateway): (number | 'none')[] {
  return (g.sent as SourceEvent[]).flatMap<number | 'none'>((e) => {
    if (e.type === 'AddSplitEvent') return e.splits.map((s) => s.splitId);
    return e.type === 'NoMoreSplitsEvent' ? ['none'] : [];
  });
}

function request(f: Fixture, subtask: number, attempt = 0): void {
  f.coordinator.handleEventFromOperator(subtask, attempt, requestSplitEvent());
  run(f);
}

function checkpoint(f: Fixture, id: number): SplitEnumeratorState {
  const result = new CompletableFuture<unknown>();
  f.coordinator.checkpointCoordinator(id, result);
  expect(result.isDone()).toBe(false);
  run(f);
  expect(result.isDone()).toBe(true);
  return result.getNow() as SplitEnumeratorState;
}

describe('SourceCoordinator', () => {
  test('answers each request with the lowest unassigned split, then with no more splits', () => {
    const f = started(3);
    request(f, 1);
    request(f, 0);
    request(f, 1);
    request(f, 0);
    request(f, 1);
    expect(received(f.gateways[0]!)).toEqual([1, 'none']);
    expect(received(f.gateways[1]!)).toEqual([0, 2, 'none']);
    expect(f.coordinator.enumeratorState()).toEqual({ unassigned: [], assigned: [0, 1, 2] });
    f.coordinator.checkInvariants();
    f.env.registry.checkAll();
  });

  test('checkpointCoordinator completes with the enumerator state and files the assignments',
    () => {
    const f = started(3);
    request(f, 0);
    const state = checkpoint(f, 1);
    expect(state).toEqual(
      { unassigned: [{ splitId: 1, offset: 0 }, { splitId: 2, offset: 0 }], assigned: [0] });
    expect(f.coordinator.trackerState()).toEqual(
      { byCheckpoint: [[1, [[0, [0]]]]], uncheckpointed: [] });
    f.coordinator.notifyCheckpointAborted(1);
    run(f);
    expect(f.coordinator.trackerState().byCheckpoint).toHaveLength(1);
    f.coordinator.notifyCheckpointComplete(1);
    expect(f.coordinator.trackerState().byCheckpoint).toHaveLength(1);
    run(f);
    expect(f.coordinator.trackerState().byCheckpoint).toHaveLength(0);
  });

  test('given splits assigned before 100 and 101, when subtask 0 resets to 100, then only split 3 returns', () => {
    const f = started(6);
    // Splits are handed out in id order, so 0 -> subtask 0, {1,2} -> subtask 1 before 100, etc.
    request(f, 0); request(f, 1); request(f, 1);
    checkpoint(f, 100);
    request(f, 0); request(f, 1); request(f, 1);
    checkpoint(f, 101);
    f.coordinator.executionAttemptFailed(0, 0, new Error('crash'));
    f.coordinator.subtaskReset(0, 100);
    run(f);
    expect(f.coordinator.enumeratorState()).toEqual(
      { unassigned: [{ splitId: 3, offset: 0 }], assigned: [0, 1, 2, 4, 5] });
    expect(f.env.trace.marks).toEqual([
      { type: 'splits-returned',
        attrs: { source: 'source-0', subtask: 0, checkpoint: 100, splits: '3' } },
    ]);
    f.coordinator.checkInvariants();
  });

  test('given nothing confirmed, when subtask 0 fails and resets to 99, then all its splits return',
    () => {
    const f = started(6);
    request(f, 0); request(f, 1);
    checkpoint(f, 100);
    request(f, 0);
    checkpoint(f, 101);
    request(f, 0);
    f.coordinator.executionAttemptFailed(0, 0, new Error('crash'));
    f.coordinator.subtaskReset(0, 99);
    run(f);
    expect(f.coordinator.enumeratorState().unassigned.map((s) => s.splitId)).toEqual(
      [0, 2, 3, 4, 5]);
  });

  test('a completion not yet notified does not make the reset return splits of the restored checkpoint', () => {
    // mutants.md 36: checkpoint 4 completed at the CheckpointCoordinator, notify(4) still in flight.
    const f = started(2);
    request(f, 1);
    checkpoint(f, 4);
    f.coordinator.executionAttemptFailed(1, 0, new Error('crash'));
    f.coordinator.subtaskReset(1, 4);
    run(f);
    expect(f.coordinator.enumeratorState()).toEqual(
      { unassigned: [{ splitId: 1, offset: 0 }], assigned: [0] });
    expect(f.env.trace.marks).toEqual([]);
  });

  test('planted splits-returned-at-failure (FLINK-20290): the failure returns splits of a checkpoint the coordinator was not yet told of', () => {
    // Split 0 went to reader 1 before checkpoint 4's coordinator snapshot; 4 completed, but its
    // notification has not reached the coordinator when reader 1 fails; the reader restores from 4.
    const failover = (bugs: readonly string[]) => {
      const f = started(2, 2, bugs);
      request(f, 1);
      checkpoint(f, 4);
      f.coordinator.executionAttemptFailed(1, 0, new Error('crash'));
      run(f);
      const atFailure = f.coordinator.enumeratorState().unassigned.map((x) => x.splitId);
      f.coordinator.notifyCheckpointComplete(4);
      f.coordinator.subtaskReset(1, 4);
      run(f);
      return { atFailure, after: f.coordinator.enumeratorState().unassigned.map((x) => x.splitId), f };
    };
    const correct = failover([]);
    // The reader's checkpoint-4 state holds split 0: it stays assigned, at the failure and the reset.
    expect(correct.atFailure).toEqual([1]);
    expect(correct.after).toEqual([1]);
    expect(correct.f.env.trace.marks).toEqual([]);
    const planted = failover([SPLITS_RETURNED_AT_FAILURE]);
    // Returned at the failure against the last notified checkpoint (none): split 0 will be read twice.
    expect(planted.atFailure).toEqual([0, 1]);
    expect(planted.after).toEqual([0, 1]);
    expect(planted.f.env.trace.marks).toEqual([
      { type: 'splits-returned', attrs: { source: 'source-0', subtask: 1, checkpoint: -1, splits: '0' } },
    ]);
  });

  test('requests of a failed attempt are ignored; the new attempt gets the returned split', () => {
    const f = started(2, 1);
    request(f, 0);
    f.coordinator.executionAttemptFailed(0, 0, new Error('crash'));
    request(f, 0, 0); // sent before the crash, arrives after it
    f.coordinator.subtaskReset(0, -1);
    run(f);
    expect(f.env.trace.eventsOf('source.stale-split-request').map((e) => e.attrs)).toHaveLength(1);
    const next = new TestingSubtaskGateway(0, 1);
    f.coordinator.executionAttemptReady(0, 1, next);
    run(f);
    request(f, 0, 1);
    request(f, 0, 1);
    request(f, 0, 1);
    expect(received(f.gateways[0]!)).toEqual([0]);
    expect(received(next)).toEqual([0, 1, 'none']);
    // A late ready of an older attempt does not replace the gateway.
    f.coordinator.executionAttemptReady(0, 0, new TestingSubtaskGateway(0, 0));
    run(f);
    f.coordinator.checkInvariants();
  });

  test('events for a subtask without a ready gateway wait for it, in order', () => {
    const env = createTestingOperatorEnv();
    const c = new SourceCoordinator({
      env, operatorUid: 's', splitIds: [0, 1], parallelism: 1, executor: env.scheduler.get('coordinator'),
    });
    c.start();
    c.handleEventFromOperator(0, 0, requestSplitEvent());
    c.handleEventFromOperator(0, 0, requestSplitEvent());
    c.handleEventFromOperator(0, 0, requestSplitEvent());
    run({ env });
    expect(env.trace.eventsOf('source.event-waits-for-gateway')).toHaveLength(3);
    const g = new TestingSubtaskGateway(0, 0);
    c.executionAttemptReady(0, 0, g);
    run({ env });
    expect(received(g)).toEqual([0, 1, 'none']);
    c.checkInvariants();
  });

  test('a subtask reset drops events that wait for its gateway; their splits return', () => {
    const f = started(2, 1);
    f.coordinator.executionAttemptFailed(0, 0, new Error('crash'));
    request(f, 0, 1); // the next attempt asks before its ready arrived
    f.coordinator.subtaskReset(0, -1);
    const next = new TestingSubtaskGateway(0, 1);
    f.coordinator.executionAttemptReady(0, 1, next);
    run(f);
    expect(next.sent).toEqual([]);
    expect(f.coordinator.enumeratorState().unassigned.map((s) => s.splitId)).toEqual([0, 1]);
  });

  test('resetToCheckpoint restores the enumerator before the start only (a reset recreates the coordinator)', () => {
    const f = started(3);
    request(f, 0);
    const state = checkpoint(f, 1);
    expect(() => f.coordinator.resetToCheckpoint(1, state)).toThrow(/not yet started/);
    const env = createTestingOperatorEnv();
    const fresh = new SourceCoordinator({
      env, operatorUid: 'source-0', splitIds: [0, 1, 2], parallelism: 2, executor: env.scheduler.get('coordinator'),
    });
    expect(() => fresh.resetToCheckpoint(2, { nope: true })).toThrow(/bad enumerator state/);
    fresh.resetToCheckpoint(1, state);
    expect(fresh.enumeratorState()).toEqual(state);
    expect(env.trace.eventsOf('source.coordinator-reset').map((e) => e.attrs)).toEqual([{ source: 'source-0', checkpoint: 1 }]);
  });

  test('a failed send is traced (the holder fails the subtask over)', () => {
    const f = started(1, 1);
    f.gateways[0]!.failNextSends(1);
    request(f, 0);
    expect(f.env.trace.eventsOf('source.event-send-failed').map((e) => e.attrs)).toEqual([
      { source: 'source-0', subtask: 0, attempt: 0, event: 'AddSplitEvent', error: 'send failed' },
    ]);
  });

  test('rejects foreign events and subtasks; after close nothing is handled', () => {
    const f = started(2);
    expect(() => f.coordinator.handleEventFromOperator(0, 0, { type: 'AddSplitEvent', splits: [] })).toThrow(/unexpected event/);
    expect(() => request(f, 2)).toThrow(/outside/);
    expect(f.env.registry.names()).toEqual(['source-coordinator/source-0']);
    // Queued before the close, dropped at its turn (shutdownNow).
    f.coordinator.handleEventFromOperator(0, 0, requestSplitEvent());
    f.coordinator.close();
    expect(f.env.registry.names()).toEqual([]);
    request(f, 0);
    expect(f.gateways[0]!.sent).toEqual([]);
    expect(f.env.trace.eventsOf('source.split-assigned')).toEqual([]);
    expect(() => f.coordinator.start()).toThrow(/after close/);
    const executor = f.env.scheduler.get('coordinator');
    expect(() => new SourceCoordinator({ env: f.env, operatorUid: 'x', splitIds: [], parallelism: 0, executor })).toThrow();
    const unstarted = new SourceCoordinator({ env: f.env, operatorUid: 'y', splitIds: [0], parallelism: 1, executor });
    expect(() => unstarted.handleEventFromOperator(0, 0, requestSplitEvent())).toThrow(/has not started yet/);
  });
});
