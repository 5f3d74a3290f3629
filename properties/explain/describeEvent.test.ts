/** describeEvent: the words of a timed-out RPC name the endpoint that did not answer. */
import { expect, test } from 'vitest';
import type { TraceEvent } from '../../sim/Trace.ts';
import { describeEvent } from './describeEvent.ts';
import { EventIndex } from './EventIndex.ts';

const TE1 = 'taskexecutor@taskmanager-1/0';
const TE2 = 'taskexecutor@taskmanager-2/0';

function index(events: readonly Omit<TraceEvent, 'seq' | 'timeUs'>[]): EventIndex {
  return new EventIndex(events.map((e, seq) => ({ ...e, seq, timeUs: seq * 1000 })));
}

test('a trigger that times out on a paused TaskManager names that TaskManager\'s task, not a send of another RPC on its cause chain', () => {
  const x = index([
    { host: 'jobmanager', type: 'checkpoint.triggerSent', attrs: { checkpointId: 22, task: 'v0#3@0' } },
    // Another trigger RPC, to the healthy TaskManager, on the chain that leads to the pause.
    { host: 'jobmanager', type: 'rpc.send', attrs: { id: 5, from: 'jobmaster', to: TE2, method: 'triggerCheckpoint' }, cause: 0 },
    { host: 'sim', type: 'fault', attrs: { index: 0, type: 'pause', action: 'pause' }, cause: 1 },
    { host: 'jobmanager', type: 'rpc.timeout', attrs: { from: 'jobmaster', to: TE1, method: 'triggerCheckpoint' }, cause: 2 },
  ]);
  const timeout = x.events[3] as TraceEvent;
  expect(describeEvent(timeout, { index: x, faults: [] })).toBe(`triggerCheckpoint RPC to ${TE1} timed out`);
});

test('a timeout whose chain reaches its own send names the task that send was about', () => {
  const x = index([
    { host: 'jobmanager', type: 'checkpoint.triggerSent', attrs: { checkpointId: 22, task: 'v0#3@0' } },
    { host: 'jobmanager', type: 'rpc.send', attrs: { id: 5, from: 'jobmaster', to: TE1, method: 'triggerCheckpoint' }, cause: 0 },
    { host: 'sim', type: 'rpc.drop', attrs: { id: 5, reason: 'lost' }, cause: 1 },
    { host: 'jobmanager', type: 'rpc.timeout', attrs: { from: 'jobmaster', to: TE1, method: 'triggerCheckpoint' }, cause: 2 },
  ]);
  expect(describeEvent(x.events[3] as TraceEvent, { index: x, faults: [] })).toBe('triggerCheckpoint RPC to v0#3@0 timed out');
});
