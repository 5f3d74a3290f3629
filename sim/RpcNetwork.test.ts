import { describe, expect, test } from 'vitest';
import {
  AssertionError, CompletableFuture, RpcEndpointNotFoundError, RpcTimeoutError, rpcAddress,
} from '../engine/api/index.ts';
import type { EngineEnv, RpcCall } from '../engine/api/index.ts';
import { World } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

const JM = rpcAddress('jobmaster');
const TE = rpcAddress('taskexecutor');
const WIDE = { minUs: 10, medianUs: 1_000, maxUs: 50_000 };

/** A world with a JobMaster and one TaskExecutor; the TE records every call it receives. */
function setup(options: Partial<WorldOptions> = {}, handler?: (c: RpcCall) => unknown) {
  const w = new World({ seed: 'rpc', rpc: { defaultLatency: WIDE }, ...options });
  const received: string[] = [];
  let jmEnv: EngineEnv | undefined;
  w.addHost('jobmanager', (env) => {
    jmEnv = env;
    env.rpc.startEndpoint(JM, env.executors.get('main'), () => 'jm');
  });
  w.addHost('taskmanager-1', (env) => {
    env.rpc.startEndpoint(TE, env.executors.get('main'), (c) => {
      received.push(`${c.method}:${String(c.args[0])}`);
      return handler ? handler(c) : c.args[0];
    });
  });
  return { w, received, jm: () => jmEnv as EngineEnv };
}

describe('RPC', () => {
  test('messages on one link arrive in order under random latencies, from any thread', () => {
    const { w, received, jm } = setup();
    const env = jm();
    const sent: string[] = [];
    for (let i = 0; i < 200; i++) {
      const ex = env.executors.get(i % 2 === 0 ? 'main' : 'io');
      ex.schedule('send', i * 300 + (i % 7), () => {
        sent.push(`m:${i}`);
        env.rpc.tell(JM, TE, 'trigger', 'm', [i]);
      });
    }
    w.run();
    expect(received).toEqual(sent);
    const times = w.trace.events.filter((e) => e.type === 'rpc.deliver').map((e) => e.timeUs);
    expect(new Set(times).size).toBeGreaterThan(10);
  });

  test('a message slowed before the heal time arrives by one normal maximum latency after it, and FIFO lets the rest through', () => {
    const normal = { minUs: 100, medianUs: 100, maxUs: 100 };
    const { w, received, jm } = setup({
      healTimeUs: 10_000,
      rpc: { defaultLatency: normal, injectedLatencyByKind: { heartbeat: { minUs: 500_000, medianUs: 500_000, maxUs: 500_000 } } },
    });
    const env = jm();
    env.rpc.tell(JM, TE, 'heartbeat', 'slow', [1]);
    env.executors.get('main').schedule('after-heal', 20_000, () => env.rpc.tell(JM, TE, 'control', 'normal', [2]));
    w.run();
    expect(received).toEqual(['slow:1', 'normal:2']);
    const delivered = w.trace.events.filter((e) => e.type === 'rpc.deliver').map((e) => e.timeUs);
    // Without the clamp the first arrives at 500 ms and the second waits behind it.
    expect(delivered).toEqual([10_100, 20_100]);
  });

  test('latency follows the configured distribution per kind', () => {
    const { w, jm } = setup({ rpc: { defaultLatency: WIDE, latencyByKind: { ack: { minUs: 7, medianUs: 7, maxUs: 7 } } } });
    const env = jm();
    env.rpc.tell(JM, TE, 'ack', 'a', [1]);
    w.run();
    const deliver = w.trace.events.find((e) => e.type === 'rpc.deliver');
    expect(deliver?.timeUs).toBe(7);
  });

  test('ask completes on the caller main thread with the answer, a future, or an error', () => {
    const { w, jm } = setup({}, (c) => {
      if (c.method === 'boom') throw new Error('nope');
      if (c.method === 'later') {
        const f = new CompletableFuture<string>();
        w.at(w.nowUs + 100, 'complete', () => f.complete('done'));
        return f;
      }
      if (c.method === 'laterFail') return CompletableFuture.failed(new Error('bad'));
      return c.args[0];
    });
    const env = jm();
    const out: string[] = [];
    const main = env.executors.get('main');
    for (const m of ['echo', 'later', 'boom', 'laterFail']) {
      env.rpc.ask<string>(JM, TE, 'control', m, ['x'], 10_000_000).whenComplete((v, e) => {
        out.push(`${m}:${v ?? (e as Error).message}`);
        expect(main.alive).toBe(true);
      });
    }
    w.run();
    expect(out.sort()).toEqual(['boom:nope', 'echo:x', 'later:done', 'laterFail:bad']);
  });

  test('ask times out; a later answer is dropped; unknown endpoints fail', () => {
    const { w, jm } = setup({ rpc: { defaultLatency: { minUs: 1000, medianUs: 1000, maxUs: 1000 } } });
    const env = jm();
    const errors: unknown[] = [];
    env.rpc.ask(JM, TE, 'control', 'slow', [1], 1500).whenComplete((_v, e) => errors.push(e));
    env.rpc.ask(JM, rpcAddress('nobody'), 'control', 'x', [], 100_000).whenComplete((_v, e) => errors.push(e));
    env.rpc.tell(JM, rpcAddress('nobody'), 'control', 'y', []);
    w.run();
    expect(errors[0]).toBeInstanceOf(RpcTimeoutError);
    expect(errors[1]).toBeInstanceOf(RpcEndpointNotFoundError);
    expect(w.trace.events.some((e) => e.type === 'rpc.drop' && e.attrs['reason'] === 'late-answer')).toBe(true);
    expect(() => env.rpc.ask(JM, TE, 'control', 'x', [], 0)).toThrow(AssertionError);
    expect(() => env.rpc.startEndpoint(JM, env.executors.get('main'), () => 0)).toThrow(AssertionError);
  });

  test('injected loss applies per kind and only before the heal time', () => {
    const { w, received, jm } = setup({
      healTimeUs: 1_000_000,
      rpc: { defaultLatency: WIDE, lossByKind: { ack: 0.5, trigger: 1 } },
    });
    const env = jm();
    const main = env.executors.get('main');
    for (let i = 0; i < 100; i++) main.execute('s', () => env.rpc.tell(JM, TE, 'ack', 'ack', [i]), 10);
    main.execute('t', () => env.rpc.tell(JM, TE, 'trigger', 'trig', [0]));
    main.schedule('after-heal', 1_000_000, () => {
      for (let i = 0; i < 10; i++) env.rpc.tell(JM, TE, 'trigger', 'late', [i]);
    });
    w.run();
    const acks = received.filter((r) => r.startsWith('ack')).length;
    expect(acks).toBeGreaterThan(20);
    expect(acks).toBeLessThan(80);
    expect(received.filter((r) => r.startsWith('trig'))).toEqual([]);
    expect(received.filter((r) => r.startsWith('late'))).toHaveLength(10);
    expect(w.marks.get('rpc-lost')).toBe(101 - acks);
  });

  test('partitions drop messages sent across them and those in flight; one-way cuts one way', () => {
    const { w, received, jm } = setup({ rpc: { defaultLatency: { minUs: 100, medianUs: 100, maxUs: 100 } } });
    const env = jm();
    const main = env.executors.get('main');
    env.rpc.tell(JM, TE, 'control', 'inflight', [0]);
    w.at(50, 'cut', () => w.partition('jobmanager', 'taskmanager-1'));
    main.schedule('during', 60, () => env.rpc.tell(JM, TE, 'control', 'during', [0]));
    w.at(500, 'heal', () => w.healPartition('jobmanager', 'taskmanager-1'));
    main.schedule('after', 600, () => env.rpc.tell(JM, TE, 'control', 'after', [0]));
    w.at(1000, 'oneway', () => w.partition('taskmanager-1', 'jobmanager', { oneWay: true }));
    const answers: unknown[] = [];
    main.schedule('ask', 1100, () => {
      env.rpc.ask(JM, TE, 'control', 'ask', [1], 5000).whenComplete((v, e) => answers.push(v ?? e));
    });
    w.at(9000, 'healAll', () => w.healAllPartitions());
    main.schedule('final', 9100, () => env.rpc.tell(JM, TE, 'control', 'final', [0]));
    w.run();
    expect(received).toEqual(['after:0', 'ask:1', 'final:0']);
    expect(answers[0]).toBeInstanceOf(RpcTimeoutError);
    expect(w.marks.get('partition')).toBe(2);
  });

  test('a crash drops messages to the host; messages it already sent may still arrive', () => {
    const got: string[] = [];
    const w = new World({
      seed: 'crash', rpc: { defaultLatency: { minUs: 100, medianUs: 100, maxUs: 100 }, lateDeliveryProbability: 1 },
    });
    w.addHost('jobmanager', (env) => {
      env.rpc.startEndpoint(JM, env.executors.get('main'), (c) => got.push(`jm:${c.method}`));
    });
    w.addHost('taskmanager-1', (env) => {
      env.rpc.startEndpoint(TE, env.executors.get('main'), (c) => got.push(`te:${c.method}`));
      env.rpc.tell(TE, JM, 'ack', 'lateAck', []);
    });
    w.env('jobmanager').rpc.tell(JM, TE, 'trigger', 'toDead', []);
    w.at(50, 'crash', () => w.crash('taskmanager-1'));
    w.run();
    expect(got).toEqual(['jm:lateAck']);
    expect(w.trace.events.some((e) => e.type === 'rpc.drop' && e.attrs['reason'] === 'endpoint-down')).toBe(true);
  });

  test('stopped endpoints drop messages; dead incarnations cannot send', () => {
    const { w, received, jm } = setup();
    const tmEnv = w.env('taskmanager-1');
    tmEnv.rpc.stopEndpoint(TE);
    jm().rpc.tell(JM, TE, 'control', 'x', [1]);
    w.crash('taskmanager-1');
    tmEnv.rpc.tell(TE, JM, 'control', 'ghost', []);
    tmEnv.rpc.startEndpoint(TE, tmEnv.executors.get('main'), () => 0);
    tmEnv.rpc.stopEndpoint(TE);
    const f = tmEnv.rpc.ask(TE, JM, 'control', 'ghost', [], 10);
    w.run();
    expect(received).toEqual([]);
    expect(f.isDone()).toBe(false);
  });
});
