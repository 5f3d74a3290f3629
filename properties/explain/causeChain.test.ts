import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../../sim/Trace.ts';
import { causeChain } from './causeChain.ts';
import { EventIndex } from './EventIndex.ts';

/** A doctored trace: `seq` is the index; `cause` an index too. */
function trace(events: readonly { ms: number; host?: string; type: string; attrs?: TraceEvent['attrs']; cause?: number }[]): EventIndex {
  return new EventIndex(events.map((e, seq) => ({
    seq, timeUs: e.ms * 1000, host: e.host ?? 'jobmanager', type: e.type, attrs: e.attrs ?? {},
    ...(e.cause === undefined ? {} : { cause: e.cause }),
  })));
}

/** The chain of the last event, as `type` and the inferred rule when there is one. */
function chainOfLast(index: EventIndex): string[] {
  const last = index.events[index.events.length - 1] as TraceEvent;
  return causeChain(index, last).map((s) => (s.inferred === undefined ? s.event.type : `${s.event.type} [inferred]`));
}

const TE = 'taskexecutor@taskmanager-1/0';

describe('causeChain: silences', () => {
  test('a TaskManager lost by heartbeat timeout steps to a message fault that held a message on its link to the '
    + 'JobMaster (the heartbeats waited behind it), not to a late answer\'s drop', () => {
    const index = trace([
      { ms: 0, type: 'host.boot' },
      { ms: 10, host: 'taskmanager-1', type: 'rpc.send', attrs: { id: 7, from: TE, to: 'jobmaster', method: 'sendOperatorEventToCoordinator' } },
      { ms: 10, host: 'sim', type: 'fault', attrs: { index: 0, type: 'message', action: 'hold', id: 7 } },
      { ms: 12, host: 'taskmanager-1', type: 'rpc.send', attrs: { id: 8, from: TE, to: 'jobmaster', method: 'updateTaskExecutionState' } },
      { ms: 20, type: 'rpc.drop', attrs: { id: 8, reason: 'late-answer' }, cause: 3 },
      { ms: 40, type: 'jm.taskManagerLost', attrs: { taskExecutor: TE, cause: 'heartbeat timeout' }, cause: 0 },
    ]);
    expect(chainOfLast(index)).toEqual(['jm.taskManagerLost', 'fault [inferred]']);
  });

  test('a TaskExecutor that loses the JobMaster by heartbeat timeout steps to its own host\'s pause', () => {
    const index = trace([
      { ms: 0, type: 'host.boot' },
      { ms: 5, host: 'sim', type: 'fault', attrs: { index: 0, type: 'pause', action: 'pause' } },
      { ms: 5, host: 'taskmanager-1', type: 'host.pause', cause: 1 },
      { ms: 40, host: 'taskmanager-1', type: 'te.jmDisconnected', attrs: { cause: 'heartbeat of the JobMaster timed out' }, cause: 0 },
    ]);
    expect(chainOfLast(index)).toEqual(['te.jmDisconnected', 'host.pause [inferred]', 'fault']);
  });

  test('a heartbeat timeout at the heal time steps to an rpc-delay fault active during the silence, though the '
    + 'fault ended at that instant (a message it delayed held the heartbeats behind it); not to one that ended '
    + 'before the last heartbeat came', () => {
    const fault = (action: string) => ({ ms: 0, host: 'sim', type: 'fault', attrs: { index: 0, type: 'rpc-delay', action } });
    const heartbeats = (first: number) => [
      { ms: 570, type: 'rpc.send', attrs: { id: 4, from: 'jobmaster', to: TE, kind: 'heartbeat', method: 'requestHeartbeat' } },
      { ms: 571, host: 'taskmanager-1', type: 'rpc.deliver', attrs: { id: 4 }, cause: first },
      // The ResourceManager's heartbeats still came: they are not the JobMaster's.
      { ms: 575, type: 'rpc.send', attrs: { id: 5, from: 'resourcemanager', to: TE, kind: 'heartbeat', method: 'requestHeartbeat' } },
      { ms: 576, host: 'taskmanager-1', type: 'rpc.deliver', attrs: { id: 5 }, cause: first + 2 },
    ];
    const lost = { ms: 600, host: 'taskmanager-1', type: 'te.jmDisconnected', attrs: { cause: 'heartbeat of the JobMaster timed out' }, cause: 0 };
    const boot = { ms: 0, type: 'host.boot' };
    expect(chainOfLast(trace([boot, fault('start'), ...heartbeats(2), { ...fault('end'), ms: 600 }, lost])))
      .toEqual(['te.jmDisconnected', 'fault [inferred]']);
    expect(chainOfLast(trace([boot, fault('start'), ...heartbeats(2), { ...fault('end'), ms: 580 }, lost])))
      .toEqual(['te.jmDisconnected', 'fault [inferred]']);
    expect(chainOfLast(trace([boot, fault('start'), { ...fault('end'), ms: 500 }, ...heartbeats(3), lost])))
      .toEqual(['te.jmDisconnected', 'host.boot']);
  });

  test('a heartbeat timeout between a JobMaster and a TaskExecutor steps to the JobMaster main thread\'s wait for '
    + 'the coordinator lock since its last heartbeat request (by time: at its instant too); not to an earlier wait, nor to '
    + 'the timer thread\'s', () => {
    const wait = (thread: string, ms = 5) => ({ ms, type: 'checkpoint.lockWait', attrs: { waiter: 'stopCheckpointScheduler', holder: 'completePendingCheckpoint 1', thread } });
    const request = { ms: 5, type: 'rpc.send', attrs: { id: 3, from: 'jobmaster-2', to: TE, kind: 'heartbeat', method: 'requestHeartbeat' } };
    const lost = { ms: 40, host: 'taskmanager-1', type: 'te.jmDisconnected', attrs: { cause: 'heartbeat of the JobMaster timed out' }, cause: 0 };
    const boot = { ms: 0, type: 'host.boot' };
    expect(chainOfLast(trace([boot, request, wait('jobmanager/jobmaster-2/main'), lost])))
      .toEqual(['te.jmDisconnected', 'checkpoint.lockWait [inferred]']);
    // Recorded before the request in the same instant's step: the step sent no request after it.
    expect(chainOfLast(trace([boot, wait('jobmanager/jobmaster-2/main'), request, lost])))
      .toEqual(['te.jmDisconnected', 'checkpoint.lockWait [inferred]']);
    expect(chainOfLast(trace([boot, wait('jobmanager/jobmaster-2/main', 1), request, lost]))).toEqual(['te.jmDisconnected', 'host.boot']);
    expect(chainOfLast(trace([boot, request, wait('jobmanager/jobmaster-2/checkpoint-timer'), lost])))
      .toEqual(['te.jmDisconnected', 'host.boot']);
    // A request sent once the wait ended, still on its way when the TaskExecutor's timeout fired
    // (delivered after it), did not end its silence; one delivered before it did.
    const late = { ms: 30, type: 'rpc.send', attrs: { id: 7, from: 'jobmaster-2', to: TE, kind: 'heartbeat', method: 'requestHeartbeat' } };
    const delivered = (ms: number) => ({ ms, host: 'taskmanager-1', type: 'rpc.deliver', attrs: { id: 7 }, cause: 2 });
    const inFlight = trace([boot, wait('jobmanager/jobmaster-2/main', 2), late, lost, delivered(45)]);
    expect(causeChain(inFlight, inFlight.events[3] as TraceEvent)[1]?.event.type).toBe('checkpoint.lockWait');
    expect(chainOfLast(trace([boot, wait('jobmanager/jobmaster-2/main', 2), late, delivered(35), lost])))
      .toEqual(['te.jmDisconnected', 'host.boot']);
    // The JobMaster's side: its lost TaskExecutor, by address.
    const jmLost = { ms: 40, type: 'jm.taskManagerLost', attrs: { taskExecutor: TE, cause: 'heartbeat timeout' }, cause: 0 };
    expect(chainOfLast(trace([boot, request, wait('jobmanager/jobmaster-2/main'), jmLost])))
      .toEqual(['jm.taskManagerLost', 'checkpoint.lockWait [inferred]']);
  });

  test('a task failed for a state report that skipped INITIALIZING steps to the loss of its TaskExecutor\'s '
    + 'earlier report (a crash dropped it in flight), not to another TaskExecutor\'s or an older attempt\'s', () => {
    const TE2 = 'taskexecutor@taskmanager-2/0';
    const report = (id: number, from: string) => ({
      ms: 4, host: 'taskmanager-1', type: 'rpc.send', attrs: { id, from, to: 'jobmaster', kind: 'taskState', method: 'updateTaskExecutionState' },
    });
    const index = trace([
      { ms: 0, type: 'host.boot' },
      report(1, TE),
      { ms: 1, type: 'rpc.drop', attrs: { id: 1, reason: 'message-fault' } },
      { ms: 3, type: 'scheduler.deploy', attrs: { task: 'v3#0@0', taskExecutor: TE } },
      report(4, TE),
      { ms: 5, host: 'sim', type: 'fault', attrs: { index: 0, type: 'crash', action: 'crash' } },
      { ms: 5, host: 'taskmanager-1', type: 'host.crash', cause: 5 },
      { ms: 5, type: 'rpc.drop', attrs: { id: 4, reason: 'sender-crashed' }, cause: 6 },
      report(8, TE2),
      { ms: 5, type: 'rpc.drop', attrs: { id: 8, reason: 'partition' } },
      report(10, TE),
      { ms: 6, type: 'rpc.deliver', attrs: { id: 10 }, cause: 10 },
      { ms: 6, type: 'scheduler.taskFailed', attrs: { task: 'v3#0@0', cause: 'Concurrent unexpected state transition of task v3#0@0 from DEPLOYING (expected INITIALIZING) to RUNNING while deployment was in progress.' }, cause: 11 },
    ]);
    expect(chainOfLast(index)).toEqual(['scheduler.taskFailed', 'rpc.drop [inferred]', 'host.crash', 'fault']);
    // Only losses since the attempt's deployment count.
    const older = trace([
      { ms: 0, type: 'host.boot' },
      report(1, TE),
      { ms: 1, type: 'rpc.drop', attrs: { id: 1, reason: 'message-fault' } },
      { ms: 3, type: 'scheduler.deploy', attrs: { task: 'v3#0@0', taskExecutor: TE }, cause: 0 },
      { ms: 6, type: 'scheduler.taskFailed', attrs: { task: 'v3#0@0', cause: 'Concurrent unexpected state transition of task v3#0@0' }, cause: 3 },
    ]);
    expect(chainOfLast(older)).toEqual(['scheduler.taskFailed', 'scheduler.deploy', 'host.boot']);
  });

  test('an expired checkpoint steps to an acknowledgement of it that an rpc-loss fault lost, though the fault '
    + 'ended (at the heal time) before the checkpoint expired', () => {
    const index = trace([
      { ms: 0, host: 'sim', type: 'fault', attrs: { index: 0, type: 'rpc-loss', action: 'start' } },
      { ms: 10, type: 'checkpoint.triggered', attrs: { checkpointId: 3 } },
      { ms: 20, host: 'taskmanager-1', type: 'checkpoint.asyncDone', attrs: { checkpointId: 3 } },
      { ms: 20, host: 'taskmanager-1', type: 'rpc.send', attrs: { id: 9, from: TE, to: 'jobmaster', method: 'acknowledgeCheckpoint' }, cause: 2 },
      { ms: 20, host: 'taskmanager-1', type: 'mark', attrs: { name: 'rpc-lost', id: 9 }, cause: 0 },
      { ms: 600, host: 'sim', type: 'fault', attrs: { index: 0, type: 'rpc-loss', action: 'end' } },
      { ms: 1010, type: 'checkpoint.aborted', attrs: { checkpointId: 3, reason: 'CHECKPOINT_EXPIRED' }, cause: 1 },
    ]);
    expect(chainOfLast(index)).toEqual(['checkpoint.aborted', 'mark [inferred]', 'fault']);
    // With nothing about it lost, the world-setting fault active while it was pending is named.
    const quiet = trace([
      { ms: 0, host: 'sim', type: 'fault', attrs: { index: 0, type: 'rpc-delay', action: 'start' } },
      { ms: 10, type: 'checkpoint.triggered', attrs: { checkpointId: 3 } },
      { ms: 600, host: 'sim', type: 'fault', attrs: { index: 0, type: 'rpc-delay', action: 'end' } },
      { ms: 1010, type: 'checkpoint.aborted', attrs: { checkpointId: 3, reason: 'CHECKPOINT_EXPIRED' }, cause: 1 },
    ]);
    expect(chainOfLast(quiet)).toEqual(['checkpoint.aborted', 'fault [inferred]']);
  });

  test('an expired checkpoint steps to a slowed write of its files or a slowed data connection', () => {
    const index = trace([
      { ms: 10, type: 'checkpoint.triggered', attrs: { checkpointId: 3 } },
      { ms: 20, host: 'store', type: 'store.begin', attrs: { op: 'put', path: 'run-2/chk-3/v1#0@0/op' } },
      { ms: 20, host: 'store', type: 'store.slow', attrs: { op: 'put', path: 'run-2/chk-3/v1#0@0/op' }, cause: 1 },
      { ms: 1010, type: 'checkpoint.aborted', attrs: { checkpointId: 3, reason: 'CHECKPOINT_EXPIRED' }, cause: 0 },
    ]);
    expect(chainOfLast(index)).toEqual(['checkpoint.aborted', 'store.slow [inferred]', 'store.begin']);
    const otherCheckpoint = trace([
      { ms: 10, type: 'checkpoint.triggered', attrs: { checkpointId: 3 } },
      { ms: 20, host: 'store', type: 'store.slow', attrs: { op: 'put', path: 'chk-31/v1#0@0/op' } },
      { ms: 1010, type: 'checkpoint.aborted', attrs: { checkpointId: 3, reason: 'CHECKPOINT_EXPIRED' }, cause: 0 },
    ]);
    expect(chainOfLast(otherCheckpoint)).toEqual(['checkpoint.aborted', 'checkpoint.triggered']);
    const slowData = trace([
      { ms: 10, type: 'checkpoint.triggered', attrs: { checkpointId: 3 } },
      { ms: 20, host: 'taskmanager-1', type: 'net.slow', attrs: { conn: 2, kind: 'data' } },
      { ms: 1010, type: 'checkpoint.aborted', attrs: { checkpointId: 3, reason: 'CHECKPOINT_EXPIRED' }, cause: 0 },
    ]);
    expect(chainOfLast(slowData)).toEqual(['checkpoint.aborted', 'net.slow [inferred]']);
  });

  test('an expired checkpoint steps to a channel hold of an earlier barrier released after its trigger or less than '
    + 'its own length before, and to a slow task still slow at its trigger; not to a hold worked off before it nor a '
    + 'slow task that ended', () => {
    const hold = (releaseMs: number) => ({ ms: 98, host: 'sim', type: 'fault', attrs: { index: 0, type: 'channel-event', action: 'delay',
      event: 'barrier', checkpoint: 1, from: 'v0#0@0', to: 'v1#2@0', releaseUs: releaseMs * 1000 } });
    const pending = [
      { ms: 198, type: 'checkpoint.triggered', attrs: { checkpointId: 2 } },
      { ms: 598, type: 'checkpoint.aborted', attrs: { checkpointId: 2, reason: 'CHECKPOINT_EXPIRED' }, cause: 0 },
    ];
    const boot = { ms: 0, type: 'host.boot' };
    expect(chainOfLast(trace([boot, hold(2198), ...pending]))).toEqual(['checkpoint.aborted', 'fault [inferred]']);
    // Released 18 ms before the trigger after an 82 ms hold: its backlog still held the barrier.
    expect(chainOfLast(trace([boot, hold(180), ...pending]))).toEqual(['checkpoint.aborted', 'fault [inferred]']);
    // Released 78 ms before the trigger after a 22 ms hold: worked off by then.
    expect(chainOfLast(trace([boot, hold(120), ...pending]))).toEqual(['checkpoint.aborted', 'host.boot']);
    const slow = (action: string, ms: number) => ({ ms, host: 'sim', type: 'fault', attrs: { index: 0, type: 'slow-task', action } });
    expect(chainOfLast(trace([boot, slow('slow', 5), ...pending]))).toEqual(['checkpoint.aborted', 'fault [inferred]']);
    // Ended 48 ms before the trigger after 145 ms of slowness: still being worked off.
    expect(chainOfLast(trace([boot, slow('slow', 5), slow('end', 150), ...pending]))).toEqual(['checkpoint.aborted', 'fault [inferred]']);
    // Ended 138 ms before it after 55 ms: worked off.
    expect(chainOfLast(trace([boot, slow('slow', 5), slow('end', 60), ...pending]))).toEqual(['checkpoint.aborted', 'host.boot']);
  });

  test('a task that skips a checkpoint as aborted steps to its abort notification of it or of a newer one, '
    + 'not to the barrier that found it aborted', () => {
    const told = (id: number) => ({ ms: 10, host: 'taskmanager-1', type: 'checkpoint.taskNotifiedAborted',
      attrs: { checkpointId: id, task: 'v1#1@0' }, cause: 0 });
    const skipped = [
      { ms: 20, host: 'taskmanager-1', type: 'checkpoint.aligned', attrs: { checkpointId: 5, task: 'v1#1@0' }, cause: 0 },
      { ms: 20, host: 'taskmanager-1', type: 'checkpoint.skippedAborted', attrs: { checkpointId: 5, task: 'v1#1@0' }, cause: 2 },
    ];
    const boot = { ms: 0, type: 'host.boot' };
    expect(chainOfLast(trace([boot, told(5), ...skipped]))).toEqual(['checkpoint.skippedAborted', 'checkpoint.taskNotifiedAborted [inferred]', 'host.boot']);
    expect(chainOfLast(trace([boot, told(9), ...skipped]))).toEqual(['checkpoint.skippedAborted', 'checkpoint.taskNotifiedAborted [inferred]', 'host.boot']);
    expect(chainOfLast(trace([boot, told(4), ...skipped]))).toEqual(['checkpoint.skippedAborted', 'checkpoint.aligned', 'host.boot']);
  });

  test('a task that failed on a store operation steps to that operation\'s failed end, not to the last of the reads it '
    + 'waited for', () => {
    const read = (path: string, outcome: string, cause: number) => ({ ms: 12, host: 'store', type: 'store.end', attrs: { op: 'get', path, outcome }, cause });
    const index = trace([
      { ms: 0, type: 'host.boot' },
      { ms: 0, host: 'sim', type: 'fault', attrs: { index: 0, type: 'store-failure', action: 'start' } },
      { ms: 10, host: 'store', type: 'store.begin', attrs: { op: 'get', path: 'savepoint-4/a' }, cause: 0 },
      { ms: 10, host: 'store', type: 'store.begin', attrs: { op: 'get', path: 'savepoint-4/b' }, cause: 0 },
      { ms: 11, host: 'store', type: 'mark', attrs: { name: 'store-failed', op: 'get', path: 'savepoint-4/a' }, cause: 1 },
      read('savepoint-4/a', 'failed', 4),
      read('savepoint-4/b', 'ok', 3),
      { ms: 12, host: 'taskmanager-1', type: 'task.failed', attrs: { task: 'v1#0@2', error: 'get savepoint-4/a failed' }, cause: 6 },
    ]);
    expect(chainOfLast(index)).toEqual(['task.failed', 'store.end [inferred]', 'mark', 'fault']);
  });
});
