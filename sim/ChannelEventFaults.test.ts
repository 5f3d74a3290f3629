import { describe, expect, test } from 'vitest';
import type { EngineEnv, HostId } from '../engine/api/index.ts';
import type { ChannelEventActed, ChannelEventFilter } from './ChannelEventFaults.ts';
import { ChannelEventFaults } from './ChannelEventFaults.ts';
import { World } from './World.ts';

const LAT = { minUs: 100, medianUs: 100, maxUs: 100 };

const barrier = (id: number): unknown => ({
  kind: 'event', sizeBytes: 1,
  event: { type: 'barrier', barrier: { id, timestampUs: 0, options: { snapshotType: 'CHECKPOINT', alignment: 'AT_LEAST_ONCE', alignedCheckpointTimeoutUs: 0 } } },
});
const cancel = (id: number): unknown => ({ kind: 'event', sizeBytes: 1, event: { type: 'cancel-checkpoint', checkpointId: id } });
const data = (n: number): unknown => ({ kind: 'data', sizeBytes: 1, records: [n] });

/** What a payload is, for the arrival log: `b2`, `c3`, `d7`. */
function label(p: unknown): string {
  const b = p as { kind: string; records?: number[]; event?: { type: string; barrier?: { id: number }; checkpointId?: number } };
  if (b.kind === 'data') return `d${String(b.records?.[0])}`;
  return b.event?.type === 'barrier' ? `b${String(b.event.barrier?.id)}` : `c${String(b.event?.checkpointId)}`;
}

/**
 * Two producer subtasks v0#0 and v0#1 (on tm-1) each serve one subpartition that the consumer
 * v1#0 (its mailbox on tm-2) reads, as the engine names them: `e0:<attempt>/0`. At 1 ms each
 * producer sends `sends[i]` back to back (credit is ample). Returns each channel's arrivals as
 * `label@µs`.
 */
function twoChannels(arm: (w: World) => void, sends: readonly (readonly unknown[])[], healTimeUs = 1_000_000): Record<string, string[]> {
  const w = new World({ seed: 'channel-events', network: { latency: LAT }, healTimeUs });
  const arrivals: Record<string, string[]> = { 'v0#0': [], 'v0#1': [] };
  w.addHost('tm-1', (env: EngineEnv) => {
    ['v0#0@0', 'v0#1@0'].forEach((attempt, i) => {
      env.network.serve(`e0:${attempt}/0`, env.executors.get(`mailbox/${attempt}`), (end) => {
        end.setHandlers({ onCredit: () => {}, onUpstream: () => {}, onError: () => {} });
        env.executors.get(`mailbox/${attempt}`).schedule('send', 1_000 - env.clock.nowUs(), () => {
          for (const p of sends[i] ?? []) end.send(p, { sizeBytes: 1 });
        });
      });
    });
  });
  w.addHost('tm-2', (env: EngineEnv) => {
    const ex = env.executors.get('mailbox/v1#0@0');
    for (const producer of ['v0#0', 'v0#1']) {
      env.network.connect({
        key: `e0:${producer}@0/0`, producerHost: 'tm-1' as HostId, executor: ex, initialCredit: 100,
        handlers: {
          onConnected: () => {},
          onPayload: (p) => arrivals[producer]?.push(`${label(p)}@${env.clock.nowUs()}`),
          onError: () => {},
        },
      });
    }
  });
  arm(w);
  w.run();
  return arrivals;
}

describe('channel-event faults on the data network', () => {
  test('a delayed barrier holds its channel from that event on, in order; the other channel goes on', () => {
    const acted: ChannelEventActed[] = [];
    const arrivals = twoChannels((w) => w.channelEventFaults.arm(
      { event: 'barrier', checkpoint: 2, to: 'v1#0', from: 'v0#1', nth: 1 }, 20_000, (a) => acted.push(a)),
    [[data(0), barrier(2), data(1)], [data(10), barrier(2), data(11), cancel(3), data(12)]]);
    // Sent at 1 ms, 0.1 ms latency: v0#0's channel is untouched.
    expect(arrivals['v0#0']).toEqual(['d0@1100', 'b2@1100', 'd1@1100']);
    // v0#1's: what was sent before the barrier arrives on time; the barrier 20 ms later, and
    // everything behind it after it, in the order sent.
    expect(arrivals['v0#1']).toEqual(['d10@1100', 'b2@21100', 'd11@21100', 'c3@21100', 'd12@21100']);
    expect(acted).toEqual([{ event: 'barrier', checkpoint: 2, from: 'v0#1@0', to: 'v1#0@0', releaseUs: 21_000 }]);
  });

  test('counts matching events from when armed and acts on the n-th only, once', () => {
    const acted: ChannelEventActed[] = [];
    const arrivals = twoChannels((w) => w.channelEventFaults.arm(
      { event: 'cancellation', to: 'v1#0', nth: 2 }, 5_000, (a) => acted.push(a)),
    [[cancel(3), barrier(4), cancel(5), cancel(6)], []]);
    // Any channel into v1#0, any checkpoint: the 2nd cancellation marker is c5; c6 is not delayed
    // by a fault of its own, only by its place behind c5.
    expect(arrivals['v0#0']).toEqual(['c3@1100', 'b4@1100', 'c5@6100', 'c6@6100']);
    expect(acted.map((a) => a.checkpoint)).toEqual([5]);
  });

  test('a delay ends at the heal time at the latest', () => {
    const acted: ChannelEventActed[] = [];
    const arrivals = twoChannels((w) => w.channelEventFaults.arm(
      { event: 'barrier', to: 'v1#0', nth: 1 }, 500_000, (a) => acted.push(a)), [[barrier(1), data(1)], []], 30_000);
    expect(arrivals['v0#0']).toEqual(['b1@30100', 'd1@30100']);
    expect(acted[0]?.releaseUs).toBe(30_000);
  });
});

describe('ChannelEventFaults matching', () => {
  const send = (f: ChannelEventFaults, key: string, consumer: string, payload: unknown, nowUs = 0): number =>
    f.onSend({ key, consumerExecutor: `tm-2/mailbox/${consumer}`, payload }, nowUs, 1_000_000);

  test.each<[string, Partial<ChannelEventFilter>, string, string, unknown, boolean]>([
    ['the event kind', {}, 'e0:v0#1@0/0', 'v1#0@0', cancel(2), false],
    ['the checkpoint', { checkpoint: 3 }, 'e0:v0#1@0/0', 'v1#0@0', barrier(2), false],
    ['the receiving subtask', {}, 'e0:v0#1@0/1', 'v1#1@0', barrier(2), false],
    ['the sending subtask', { from: 'v0#0' }, 'e0:v0#1@0/0', 'v1#0@0', barrier(2), false],
    ['a record', {}, 'e0:v0#1@0/0', 'v1#0@0', data(2), false],
    ['the job run', { inRun: (attempt) => attempt.endsWith('@4') }, 'e0:v0#1@0/0', 'v1#0@0', barrier(2), false],
    ['(all of them: a match)', { from: 'v0#1', checkpoint: 2 }, 'e0:v0#1@3/0', 'v1#0@4', barrier(2), true],
    ['(a later job run)', { inRun: (attempt) => attempt.endsWith('@4') }, 'e0:v0#1@3/0', 'v1#0@4', barrier(2), true],
  ])('an event must match %s', (_what, filter, key, consumer, payload, matches) => {
    const f = new ChannelEventFaults();
    f.arm({ event: 'barrier', to: 'v1#0', nth: 1, ...filter }, 7_000, () => {});
    expect(send(f, key, consumer, payload)).toBe(matches ? 7_000 : 0);
    expect(f.active).toBe(!matches);
  });

  test('faults acting on one event add up, within the heal time; spent faults leave', () => {
    const f = new ChannelEventFaults();
    const acted: number[] = [];
    f.arm({ event: 'barrier', to: 'v1#0', nth: 1 }, 300_000, (a) => acted.push(a.releaseUs));
    f.arm({ event: 'barrier', to: 'v1#0', nth: 1 }, 400_000, (a) => acted.push(a.releaseUs));
    f.arm({ event: 'barrier', to: 'v1#0', nth: 2 }, 1_000, (a) => acted.push(a.releaseUs));
    expect(send(f, 'e0:v0#0@0/0', 'v1#0@0', barrier(1), 100_000)).toBe(700_000);
    expect(acted).toEqual([400_000, 800_000]);
    expect(send(f, 'e0:v0#0@0/0', 'v1#0@0', barrier(2), 950_000)).toBe(1_000);
    expect(f.active).toBe(false);
    const capped = new ChannelEventFaults();
    capped.arm({ event: 'barrier', to: 'v1#0', nth: 1 }, 300_000, () => {});
    expect(send(capped, 'e0:v0#0@0/0', 'v1#0@0', barrier(1), 900_000)).toBe(100_000);
  });
});
