import { describe, expect, test } from 'vitest';
import { AssertionError } from '../engine/api/index.ts';
import type { ConsumerEnd, EngineEnv, NetworkError, ProducerEnd } from '../engine/api/index.ts';
import { World } from './World.ts';

const LAT = { minUs: 10, medianUs: 500, maxUs: 5_000 };

interface Probe {
  readonly events: string[];
  producer?: ProducerEnd;
  consumer?: ConsumerEnd;
}

/**
 * Producer on tm-1 sends `total` numbered buffers as fast as credit allows (priority every 10th);
 * the consumer on tm-2 processes one buffer per `consumeUs` and returns one credit per buffer.
 */
function pipeline(w: World, opts: { total: number; consumeUs: number; credit: number }): Probe {
  const probe: Probe = { events: [] };
  let sentCount = 0;
  w.addHost('tm-1', (env: EngineEnv) => {
    const ex = env.executors.get('producer');
    env.network.serve('p0', ex, (end) => {
      probe.producer = end;
      const pump = (): void => {
        while (sentCount < opts.total && end.credit > 0) {
          const i = sentCount++;
          probe.events.push(`send:${i}@${env.clock.nowUs()}`);
          end.send(i, { sizeBytes: 100 });
          if (i % 10 === 0) end.send(`barrier${i}`, { priority: true, sizeBytes: 1 });
        }
      };
      end.setHandlers({
        onCredit: () => pump(),
        onUpstream: (m) => probe.events.push(`upstream:${String(m)}`),
        onError: (e: NetworkError) => probe.events.push(`producer-error:${e.reason}`),
      });
      pump();
    });
  });
  w.addHost('tm-2', (env: EngineEnv) => {
    const ex = env.executors.get('consumer');
    probe.consumer = env.network.connect({
      key: 'p0', producerHost: w.hostIds[0] as never, executor: ex, initialCredit: opts.credit,
      handlers: {
        onConnected: () => probe.events.push('connected'),
        onPayload: (p, priority) => {
          probe.events.push(`recv:${String(p)}${priority ? '!' : ''}`);
          if (!priority) ex.execute('consume', () => probe.consumer?.grantCredit(1), opts.consumeUs);
        },
        onError: (e: NetworkError) => probe.events.push(`consumer-error:${e.reason}`),
      },
    });
  });
  return probe;
}

describe('data network', () => {
  test('FIFO per channel under random latencies; priority payloads need no credit', () => {
    const w = new World({ seed: 'net', network: { latency: LAT } });
    const probe = pipeline(w, { total: 100, consumeUs: 1, credit: 4 });
    w.run();
    const recv = probe.events.filter((e) => e.startsWith('recv:') && !e.endsWith('!'));
    expect(recv).toEqual(Array.from({ length: 100 }, (_, i) => `recv:${i}`));
    expect(probe.events.filter((e) => e.endsWith('!'))).toHaveLength(10);
    expect(probe.events.indexOf('connected')).toBeLessThan(probe.events.indexOf('recv:0'));
  });

  test('a slow consumer back-pressures its producer through credit', () => {
    const w = new World({ seed: 'bp', network: { latency: { minUs: 10, medianUs: 10, maxUs: 10 } } });
    const probe = pipeline(w, { total: 20, consumeUs: 10_000, credit: 2 });
    let threw: unknown;
    w.at(5_000, 'probe', () => {
      expect(probe.producer?.credit).toBe(0);
      try {
        probe.producer?.send('x', { sizeBytes: 1 });
      } catch (e) {
        threw = e;
      }
    });
    w.run();
    expect(threw).toBeInstanceOf(AssertionError);
    const sendTimes = probe.events.filter((e) => e.startsWith('send:')).map((e) => Number(e.split('@')[1]));
    expect(sendTimes.slice(0, 2)).toEqual([10, 10]);
    expect(sendTimes[19]).toBeGreaterThan(18 * 10_000);
    probe.producer?.close();
    probe.producer?.close();
    expect(() => probe.producer?.send('x', { sizeBytes: 1 })).toThrow(AssertionError);
    expect(probe.producer?.consumerHost).toBe('tm-2');
  });

  test('a crash breaks the connection: the live end gets broken once, nothing more arrives', () => {
    const w = new World({ seed: 'crash', network: { latency: LAT } });
    const probe = pipeline(w, { total: 1000, consumeUs: 100, credit: 4 });
    w.at(20_000, 'crash', () => w.crash('tm-1'));
    w.run();
    const errors = probe.events.filter((e) => e.includes('error'));
    expect(errors).toEqual(['consumer-error:broken']);
    expect(probe.events[probe.events.length - 1]).toBe('consumer-error:broken');
  });

  test('a connection to a crashed producer host breaks caused by the crash, to a cut one by the cut (cause links)', () => {
    for (const fault of ['crash', 'cut'] as const) {
      const w = new World({ seed: 'down', network: { latency: LAT } });
      w.addHost('a', (env) => void env.network.serve('k', env.executors.get('p'), () => {}));
      w.addHost('b', () => {});
      if (fault === 'crash') w.crash('a');
      else w.partition('a', 'b');
      w.at(10, 'connect', () => {
        const env = w.env('b');
        env.network.connect({
          key: 'k', producerHost: w.hostIds[0] as never, executor: env.executors.get('c'), initialCredit: 1,
          handlers: { onConnected: () => {}, onPayload: () => {}, onError: () => {} },
        });
      });
      w.run();
      const broken = w.trace.events.find((e) => e.type === 'net.broken');
      const by = w.trace.events.find((e) => e.type === (fault === 'crash' ? 'host.crash' : 'net.partition'));
      expect(broken?.cause, fault).toBe(by?.seq);
    }
  });

  test('a data item whose latency is overridden to slow is recorded as net.slow', () => {
    const probe = new World({ seed: 'slow', network: { latency: LAT } });
    pipeline(probe, { total: 3, consumeUs: 1, credit: 4 });
    probe.run();
    const decision = probe.choices.log.find((d) => d.label === 'net.latency')?.index ?? -1;
    const w = new World({ seed: 'slow', network: { latency: LAT }, overrides: [{ decision, alternative: 3 }] });
    pipeline(w, { total: 3, consumeUs: 1, credit: 4 });
    w.run();
    const slow = w.trace.events.filter((e) => e.type === 'net.slow');
    expect(slow.map((e) => [e.attrs.kind, e.attrs.latencyUs])).toEqual([['request', 50_000]]);
  });

  test('a partition breaks the connection at both ends', () => {
    const w = new World({ seed: 'part', network: { latency: LAT } });
    const probe = pipeline(w, { total: 1000, consumeUs: 100, credit: 4 });
    w.at(20_000, 'cut', () => w.partition('tm-2', 'tm-1', { oneWay: true }));
    w.run();
    expect(probe.events.filter((e) => e.includes('error')).sort()).toEqual(['consumer-error:broken', 'producer-error:broken']);
  });

  test('connecting to an unserved key or a cut host fails; close reaches the other side', () => {
    const w = new World({ seed: 'nf', network: { latency: LAT } });
    const seen: string[] = [];
    w.addHost('a', (env) => {
      env.network.serve('k', env.executors.get('p'), (end) => {
        end.setHandlers({ onCredit: () => {}, onUpstream: (m) => seen.push(`up:${String(m)}`), onError: (e) => seen.push(`p:${e.reason}`) });
      }).cancel();
      env.network.serve('k2', env.executors.get('p'), (end) => {
        end.setHandlers({ onCredit: (n) => seen.push(`credit:${n}`), onUpstream: (m) => seen.push(`up:${String(m)}`), onError: (e) => seen.push(`p:${e.reason}`) });
      });
    });
    w.addHost('b', (env) => {
      const handlers = (tag: string) => ({
        onConnected: () => seen.push(`${tag}:connected`), onPayload: () => {}, onError: (e: NetworkError) => seen.push(`${tag}:${e.reason}`),
      });
      const ex = env.executors.get('c');
      env.network.connect({ key: 'k', producerHost: w.hostIds[0] as never, executor: ex, initialCredit: 1, handlers: handlers('k') });
      const c2 = env.network.connect({ key: 'k2', producerHost: w.hostIds[0] as never, executor: ex, initialCredit: 0, handlers: handlers('k2') });
      c2.grantCredit(3);
      c2.sendUpstream('resume');
      ex.schedule('close', 100_000, () => c2.close());
    });
    w.at(200_000, 'cut', () => w.partition('a', 'b'));
    w.at(200_001, 'late', () => {
      w.env('b').network.connect({
        key: 'k2', producerHost: w.hostIds[0] as never, executor: w.env('b').executors.get('c'), initialCredit: 0,
        handlers: { onConnected: () => seen.push('cut:connected'), onPayload: () => {}, onError: (e) => seen.push(`cut:${e.reason}`) },
      });
    });
    w.run();
    expect(seen).toContain('k:not-found');
    expect(seen).toContain('k2:connected');
    expect(seen).toContain('credit:3');
    expect(seen).toContain('up:resume');
    expect(seen).toContain('p:closed');
    expect(seen).toContain('cut:broken');
    expect(seen).not.toContain('k2:broken');
  });
});
