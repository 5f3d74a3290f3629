import { describe, expect, test } from 'vitest';
import { Trace } from './Trace.ts';
import { stringHash } from './TraceHash.ts';

/** A trace on a clock the test moves. */
function trace(): { t: Trace; clock: { nowUs: number } } {
  const clock = { nowUs: 0 };
  return { t: new Trace(clock), clock };
}

describe('Trace fast paths record what record records', () => {
  const sends = [
    { id: 0, from: 'jobmaster', to: 'taskexecutor@taskmanager-1/0', kind: 'trigger', method: 'triggerCheckpoint', answer: false },
    { id: 7, from: 'taskexecutor@taskmanager-1/0', to: 'jobmaster', kind: 'ack', method: 'acknowledgeCheckpoint', answer: true },
    { id: 123456, from: 'resourcemanager', to: 'x', kind: 'heartbeat', method: 'requestHeartbeat', answer: false },
  ];

  test('recordRpcSend gives the same hash and stored events as recordOutput(host, "rpc.send", attrs)', () => {
    const a = trace();
    const b = trace();
    for (const [i, s] of sends.entries()) {
      a.clock.nowUs = b.clock.nowUs = 1000 * i + 17;
      const host = i === 1 ? 'taskmanager-1' : 'jobmanager';
      // A send is output: it takes the current cause and leaves it (cause links, Trace.ts).
      a.t.recordOutput(host, 'rpc.send', s);
      b.t.recordRpcSend(host, stringHash(host), s, stringHash(s.from), stringHash(s.to),
        stringHash(s.kind), stringHash(s.method));
    }
    expect(b.t.hash).toBe(a.t.hash);
    expect(b.t.events).toEqual(a.t.events);
    expect(b.t.eventCount).toBe(3);
    expect(b.t.cause).toBe(-1);
  });

  test('record makes its event the current cause; output and marks do not', () => {
    const { t } = trace();
    const first = t.record('jobmanager', 'step');
    expect(t.cause).toBe(first);
    t.recordOutput('store', 'store.begin', { op: 'put' });
    t.mark('jobmanager', 'some-mark');
    expect(t.cause).toBe(first);
    const second = t.record('jobmanager', 'next');
    expect(t.events.map((e) => e.cause)).toEqual([undefined, first, first, first]);
    expect(t.cause).toBe(second);
  });

  test('recordRpcSend folds every attribute: a different one gives a different hash', () => {
    const base = trace();
    const s = sends[0] as (typeof sends)[number];
    base.t.recordRpcSend('h', stringHash('h'), s, stringHash(s.from), stringHash(s.to),
      stringHash(s.kind), stringHash(s.method));
    const variants: [string, (typeof sends)[number]][] = [
      ['id', { ...s, id: 1 }], ['from', { ...s, from: 'y' }], ['to', { ...s, to: 'y' }],
      ['kind', { ...s, kind: 'ack' }], ['method', { ...s, method: 'm' }], ['answer', { ...s, answer: true }],
    ];
    for (const [what, v] of variants) {
      const other = trace();
      other.t.recordRpcSend('h', stringHash('h'), v, stringHash(v.from), stringHash(v.to),
        stringHash(v.kind), stringHash(v.method));
      expect(other.t.hash, what).not.toBe(base.t.hash);
    }
  });

  test('recordOn with the host hash equals record; a watched type reaches its subscriber', () => {
    const a = trace();
    const b = trace();
    const seen: string[] = [];
    b.t.subscribe((e) => e.type === 'checkpoint.acked', (e) => seen.push(`${e.host}:${String(e.attrs.id)}`),
      { types: ['checkpoint.acked'] });
    for (const t of [a.t, b.t]) {
      t.record('jobmanager', 'checkpoint.triggered', { id: 1, ts: -5, name: 'x', ok: true });
    }
    a.t.record('taskmanager-1', 'checkpoint.acked', { id: 1 });
    b.t.recordOn('taskmanager-1', stringHash('taskmanager-1'), 'checkpoint.acked', { id: 1 });
    expect(b.t.hash).toBe(a.t.hash);
    expect(b.t.events).toEqual(a.t.events);
    b.t.pendingActions.forEach((f) => f());
    expect(seen).toEqual(['taskmanager-1:1']);
  });
});
