/**
 * Cause links (Trace.ts): each recorded event names the event behind the work that recorded it,
 * through every lane of the event queue (executor tasks, timers, RPC messages, pools), and the
 * sim names the real cause where the order of work does not: a drop's crash or partition, a
 * timeout's drop.
 */
import { describe, expect, test } from 'vitest';
import { RpcTimeoutError, rpcAddress } from '../engine/api/index.ts';
import type { ExpectedError } from '../engine/util/ExpectedError.ts';
import type { EngineEnv } from '../engine/api/index.ts';
import type { TraceEvent } from './Trace.ts';
import { World } from './World.ts';

const JM = rpcAddress('jobmaster');
const TE = rpcAddress('taskexecutor');
const FIXED = { minUs: 100, medianUs: 100, maxUs: 100 };

function setup() {
  const w = new World({ seed: 'causes', rpc: { defaultLatency: FIXED } });
  let jm: EngineEnv | undefined;
  w.addHost('jobmanager', (env) => {
    jm = env;
    env.rpc.startEndpoint(JM, env.executors.get('main'), () => 'jm');
  });
  w.addHost('taskmanager-1', (env) => {
    env.rpc.startEndpoint(TE, env.executors.get('main'), (c) => {
      env.tracer.event('te.handled', { method: c.method });
      // Work handed to another thread of the host keeps the cause.
      env.executors.get('io').execute('io-work', () => env.tracer.event('te.ioWork', { method: c.method }));
      return 'ok';
    });
  });
  return { w, jm: () => jm as EngineEnv };
}

/** The event of `type` (the first), and a lookup by seq. */
function find(w: World, type: string, attr?: [string, unknown]): TraceEvent {
  const e = w.trace.events.find((x) => x.type === type && (attr === undefined || x.attrs[attr[0]] === attr[1]));
  expect(e, `no ${type} event`).toBeDefined();
  return e as TraceEvent;
}

function causeOf(w: World, e: TraceEvent): TraceEvent | undefined {
  return e.cause === undefined ? undefined : w.trace.events.find((x) => x.seq === e.cause);
}

describe('cause links', () => {
  test('a delivery is caused by its send, the handler by the delivery, work on another thread by the handler', () => {
    const { w, jm } = setup();
    jm().executors.get('main').schedule('send', 1_000, () => {
      jm().tracer.event('jm.decided');
      jm().rpc.tell(JM, TE, 'control', 'doIt', []);
    });
    w.run();
    const send = find(w, 'rpc.send', ['method', 'doIt']);
    expect(causeOf(w, send)?.type).toBe('jm.decided');
    const deliver = find(w, 'rpc.deliver', ['id', send.attrs.id]);
    expect(deliver.cause).toBe(send.seq);
    const handled = find(w, 'te.handled');
    expect(handled.cause).toBe(deliver.seq);
    expect(find(w, 'te.ioWork').cause).toBe(handled.seq);
    // The answer's send is the handler's doing too (after what it recorded).
    for (const e of w.trace.events) if (e.cause !== undefined) expect(e.cause).toBeLessThan(e.seq);
  });

  test('a timer runs its task with the cause it was scheduled under', () => {
    const { w, jm } = setup();
    const main = jm().executors.get('main');
    main.schedule('first', 10, () => {
      jm().tracer.event('jm.armed');
      main.schedule('later', 5_000, () => jm().tracer.event('jm.fired'));
      jm().tracer.event('jm.unrelated-root-later', {}, -1);
    });
    w.run();
    const fired = find(w, 'jm.fired');
    expect(causeOf(w, fired)?.type).toBe('jm.armed');
    // An explicit cause of -1 makes a root, and a task run from the queue alone has none.
    expect(find(w, 'jm.unrelated-root-later').cause).toBeUndefined();
  });

  test('an ask whose request was dropped at a crashed host times out caused by the drop, which the crash caused', () => {
    const { w, jm } = setup();
    w.at(500, 'crash', () => w.crash('taskmanager-1'));
    jm().executors.get('main').schedule('ask', 1_000, () => {
      jm().rpc.ask(JM, TE, 'control', 'doIt', [], 20_000).whenComplete(() => jm().tracer.event('jm.askFailed'));
    });
    w.run();
    const drop = find(w, 'rpc.drop', ['reason', 'endpoint-down']);
    expect(causeOf(w, drop)?.type).toBe('host.crash');
    const timeout = find(w, 'rpc.timeout');
    expect(timeout.cause).toBe(drop.seq);
    expect(causeOf(w, find(w, 'jm.askFailed'))?.type).toBe('rpc.timeout');
  });

  test('an ask\'s RpcTimeoutError names its rpc.timeout event (ExpectedError.event), for whoever handles it later', () => {
    const { w, jm } = setup();
    w.at(500, 'crash', () => w.crash('taskmanager-1'));
    let error: ExpectedError | undefined;
    jm().executors.get('main').schedule('ask', 1_000, () => {
      jm().rpc.ask(JM, TE, 'control', 'doIt', [], 20_000).whenComplete((_v, e) => { error = e as ExpectedError; });
    });
    w.run();
    expect(error).toBeInstanceOf(RpcTimeoutError);
    expect(error?.event).toBe(find(w, 'rpc.timeout').seq);
  });

  test('a message cut by a partition is dropped caused by the partition', () => {
    const { w, jm } = setup();
    w.at(500, 'cut', () => w.partition('jobmanager', 'taskmanager-1'));
    jm().executors.get('main').schedule('ask', 1_000, () => {
      jm().rpc.ask(JM, TE, 'control', 'doIt', [], 20_000);
    });
    w.run();
    const drop = find(w, 'rpc.drop', ['reason', 'partition']);
    expect(causeOf(w, drop)?.type).toBe('net.partition');
    expect(find(w, 'rpc.timeout').cause).toBe(drop.seq);
  });

  test('a latency overridden to slow is recorded as rpc.slow: an ask it makes time out is caused by it, and so is '
    + 'an ask held behind it on the link', () => {
    // Find the decision of the first ask's latency, then override it to slow (ten times 100 µs).
    const probe = setup();
    probe.jm().executors.get('main').schedule('ask', 1_000, () => void probe.jm().rpc.ask(JM, TE, 'control', 'first', [], 500));
    probe.w.run();
    const decision = probe.w.choices.log.find((d) => d.kind === 'delay' && d.label.startsWith('rpc'))?.index ?? -1;
    const w = new World({ seed: 'causes', rpc: { defaultLatency: FIXED }, overrides: [{ decision, alternative: 3 }] });
    let jm: EngineEnv | undefined;
    w.addHost('jobmanager', (env) => {
      jm = env;
      env.rpc.startEndpoint(JM, env.executors.get('main'), () => 'jm');
    });
    w.addHost('taskmanager-1', (env) => env.rpc.startEndpoint(TE, env.executors.get('main'), () => 'ok'));
    const env = jm as EngineEnv;
    env.executors.get('main').schedule('ask', 1_000, () => {
      void env.rpc.ask(JM, TE, 'control', 'first', [], 500);
      void env.rpc.ask(JM, TE, 'control', 'second', [], 500);
    });
    w.run();
    const slow = find(w, 'rpc.slow');
    expect(causeOf(w, slow)?.attrs.method).toBe('first');
    expect(slow.attrs.latencyUs).toBe(1_000);
    const timeouts = w.trace.events.filter((e) => e.type === 'rpc.timeout');
    expect(timeouts.map((t) => t.attrs.method)).toEqual(['first', 'second']);
    for (const t of timeouts) expect(t.cause).toBe(slow.seq);
  });

  test('an ask delivered to a paused host that times out is caused by the pause', () => {
    const { w, jm } = setup();
    w.at(500, 'pause', () => w.pause('taskmanager-1'));
    w.at(40_000, 'resume', () => w.resume('taskmanager-1'));
    jm().executors.get('main').schedule('ask', 1_000, () => void jm().rpc.ask(JM, TE, 'control', 'doIt', [], 20_000));
    w.run();
    expect(find(w, 'rpc.timeout').cause).toBe(find(w, 'host.pause').seq);
  });

  test('a protocol-point action is caused by the event it matched', () => {
    const { w, jm } = setup();
    w.onTrace((e) => e.type === 'te.handled', () => w.trace.record('sim', 'fault', { index: 0 }), { once: true });
    jm().executors.get('main').schedule('send', 1_000, () => jm().rpc.tell(JM, TE, 'control', 'doIt', []));
    w.run();
    expect(causeOf(w, find(w, 'fault'))?.type).toBe('te.handled');
  });
});
