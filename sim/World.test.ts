import { describe, expect, test } from 'vitest';
import { AssertionError, rpcAddress } from '../engine/api/index.ts';
import type { EngineEnv } from '../engine/api/index.ts';
import { HarnessAssertionError } from './harnessAssert.ts';
import { SimInputError } from './SimInputError.ts';
import { World } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

/** A small fake engine: two workers per host that hop work around with random costs. */
function chatter(log: string[], rounds: number) {
  return (env: EngineEnv): void => {
    const a = env.executors.get('a');
    const b = env.executors.get('b');
    let n = 0;
    const step = (): void => {
      log.push(`${env.host}@${env.clock.nowUs()}:${n}`);
      if (++n >= rounds) return;
      const cost = env.choices.delay('cost', { minUs: 1, medianUs: 5, maxUs: 20 });
      (n % 2 === 0 ? a : b).execute('step', step, cost);
      if (n % 5 === 0) a.schedule('tick', cost, () => env.tracer.event('tick', { n }));
    };
    a.execute('start', step);
  };
}

function run(options: WorldOptions, rounds = 40): { hash: string; log: string[]; world: World } {
  const log: string[] = [];
  const world = new World(options);
  for (const h of ['jobmanager', 'taskmanager-1', 'taskmanager-2']) world.addHost(h, chatter(log, rounds));
  const r = world.run();
  expect(r.reason).toBe('idle');
  return { hash: world.traceHash, log, world };
}

describe('World determinism', () => {
  test('same seed gives the same trace hash; different seeds give different interleavings', () => {
    const a = run({ seed: 's1' });
    const b = run({ seed: 's1' });
    expect(b.hash).toBe(a.hash);
    expect(b.log).toEqual(a.log);
    expect(a.hash).toMatch(/^[0-9a-f]{16}$/);
    const c = run({ seed: 's2' });
    expect(c.hash).not.toBe(a.hash);
    expect(c.log).not.toEqual(a.log);
  });

  test('an override changes its decision and nothing independent of it', () => {
    const log = (overrides: WorldOptions['overrides']) => {
      const w = new World({ seed: 'o', ...(overrides ? { overrides } : {}) });
      w.addHost('h', (env) => {
        env.executors.get('x').execute('t', () => {
          for (let i = 0; i < 20; i++) env.choices.delay('d', { minUs: 0, medianUs: 50, maxUs: 100 });
        });
      });
      w.run();
      return w.choices;
    };
    const base = log(undefined);
    const over = log([{ decision: 7, alternative: 2 }, { decision: 999, alternative: 0 }]);
    expect(over.count).toBe(base.count);
    base.log.forEach((r, i) => {
      if (i === 7) expect(over.log[i]).toMatchObject({ value: 100, overridden: true });
      else expect(over.log[i]).toEqual(r);
    });
    expect(over.unusedOverrides).toEqual([{ decision: 999, alternative: 0 }]);
  });

  test('ties between executors are order decisions, replayable by override', () => {
    const order = (overrides: WorldOptions['overrides']) => {
      const seen: string[] = [];
      const w = new World({ seed: 't', overrides: overrides ?? [] });
      w.addHost('h', (env) => {
        for (const name of ['p', 'q', 'r']) env.executors.get(name).execute('t', () => seen.push(name));
      });
      w.run();
      return { seen, log: w.choices.log };
    };
    const base = order(undefined);
    expect(base.log[0]).toMatchObject({ kind: 'order', alternatives: 3 });
    const forced = order([{ decision: 0, alternative: 2 }, { decision: 1, alternative: 0 }]);
    expect(forced.seen).toEqual(['r', 'p', 'q']);
  });
});

describe('World budgets, faults and input', () => {
  test('a livelock reaches its budget and says so', () => {
    const w = new World({ seed: 'l', budgets: { maxEvents: 1000 } });
    w.addHost('h', (env) => {
      const ex = env.executors.get('spin');
      const spin = (): void => ex.execute('spin', spin);
      spin();
    });
    const r = w.run();
    expect(r).toMatchObject({ reason: 'max-events', events: 1000 });
    expect(r.message).toMatch(/budget of 1000/);
    const t = new World({ seed: 'l', budgets: { maxTimeUs: 5000 } });
    t.addHost('h', (env) => {
      const ex = env.executors.get('spin');
      const spin = (): void => void ex.schedule('spin', 10, spin);
      spin();
    });
    expect(t.run()).toMatchObject({ reason: 'max-time', timeUs: 5000 });
  });

  test('stop() ends the run after the current event', () => {
    const w = new World({ seed: 's' });
    w.addHost('h', (env) => {
      const ex = env.executors.get('e');
      const loop = (): void => ex.execute('x', loop, 1);
      loop();
    });
    w.at(100, 'stop', () => w.stop());
    expect(w.run()).toMatchObject({ reason: 'stopped', timeUs: 100 });
  });

  test('crash kills timers and queued tasks; restart boots a new incarnation; stores survive', () => {
    const fired: string[] = [];
    const w = new World({ seed: 'c' });
    let boots = 0;
    w.addHost('tm', (env) => {
      boots++;
      const ex = env.executors.get('main');
      ex.schedule('late', 1000, () => fired.push(`timer${boots}`));
      ex.execute('slow', () => fired.push(`slow${boots}`), 500);
      env.transactionalStore.initTransactions('sink', 0, boots);
      env.objectStore.put(`f${boots}`, boots, 1, ex);
    });
    const env1 = w.env('tm');
    w.at(100, 'crash', () => w.crash('tm'));
    w.at(2000, 'restart', () => w.restart('tm'));
    w.run();
    expect(fired).toEqual(['slow2', 'timer2']);
    expect(w.isAlive('tm')).toBe(true);
    expect(env1.executors.get('main').alive).toBe(false);
    env1.executors.get('main').execute('ignored', () => fired.push('ghost'));
    expect(w.objectStore.paths()).toEqual(['f1', 'f2']);
    expect(w.marks.get('crash')).toBe(1);
    w.crash('tm');
    w.crash('tm');
    expect(w.marks.get('crash')).toBe(2);
  });

  test('pause holds a host; resume continues with queued work', () => {
    const seen: number[] = [];
    const w = new World({ seed: 'p' });
    w.addHost('h', (env) => {
      const ex = env.executors.get('e');
      ex.execute('busy', () => seen.push(env.clock.nowUs()), 100);
      ex.schedule('t', 50, () => seen.push(env.clock.nowUs()));
    });
    const paused: boolean[] = [];
    w.at(10, 'pause', () => w.pause('h'));
    w.at(500, 'check', () => paused.push(w.isPaused('h')));
    w.at(1000, 'resume', () => w.resume('h'));
    w.run();
    expect(seen).toEqual([1000, 1000]);
    expect([...paused, w.isPaused('h')]).toEqual([true, false]);
    expect(() => w.isPaused('nope')).toThrow(SimInputError);
  });

  test('onTrace with types offers only those events, in subscription order, and unsubscribes', () => {
    const seen: string[] = [];
    const w = new World({ seed: 'x', traceLimit: 0 });
    const offTyped = w.onTrace((e) => e.attrs['n'] !== 2, (e) => seen.push(`typed ${String(e.attrs['n'])}`),
      { types: ['ping'] });
    w.onTrace((e) => e.type === 'ping', (e) => seen.push(`all ${String(e.attrs['n'])}`));
    w.onTrace(() => true, () => seen.push('pong'), { types: ['pong'], once: true });
    w.addHost('h', (env) => {
      env.executors.get('e').execute('t', () => {
        env.tracer.event('ping', { n: 1 });
        env.tracer.event('pong');
        env.tracer.event('ping', { n: 2 });
        env.tracer.event('pong');
      });
      env.executors.get('e').execute('u', () => {
        offTyped();
        offTyped();
        env.tracer.event('ping', { n: 3 });
      });
    });
    w.run();
    expect(seen).toEqual(['typed 1', 'all 1', 'pong', 'all 2', 'all 3']);
    expect(() => w.onTrace(() => true, () => {}, { types: 'ping' as unknown as string[] }))
      .toThrow(SimInputError);
  });

  test('onTrace actions run right after the current task', () => {
    const seen: string[] = [];
    const w = new World({ seed: 'x' });
    w.onTrace((e) => e.type === 'ping', () => seen.push('action'), { once: true });
    w.addHost('h', (env) => {
      env.executors.get('e').execute('t', () => {
        env.tracer.event('ping');
        env.tracer.event('ping');
        seen.push('task');
      });
      env.executors.get('f').execute('u', () => seen.push('other'));
    });
    w.run();
    expect(seen.indexOf('action')).toBe(seen.indexOf('task') + 1);
    expect(seen.filter((s) => s === 'action')).toHaveLength(1);
  });

  test('invariant checks run after each event and vanish with the host', () => {
    let calls = 0;
    const w = new World({ seed: 'i', checkInvariants: true, bugs: ['b1'] });
    let bugOn = false;
    w.addHost('h', (env) => {
      bugOn = env.bugs.has('b1') && !env.bugs.has('b2');
      env.invariants.register('count', () => {
        calls++;
      });
      const unregister = env.invariants.register('bad', () => {
        throw new AssertionError('broken');
      });
      unregister();
      env.executors.get('e').execute('a', () => {}, 1);
      env.executors.get('e').execute('b', () => {}, 1);
    });
    w.run();
    expect(bugOn).toBe(true);
    expect(calls).toBe(2);
    w.crash('h');
    w.at(w.nowUs + 1, 'noop', () => {});
    w.run();
    expect(calls).toBe(2);
  });

  test('bad input gets a clear SimInputError', () => {
    const w = new World({ seed: 'b' });
    w.addHost('h', () => {});
    expect(() => w.crash('nope')).toThrow(/crash: unknown host "nope"/);
    expect(() => w.env('nope')).toThrow(SimInputError);
    expect(() => w.addHost('h', () => {})).toThrow(SimInputError);
    expect(() => w.addHost('', () => {})).toThrow(SimInputError);
    expect(() => w.at(-5, 'x', () => {})).toThrow(SimInputError);
    expect(() => w.at(1.5, 'x', () => {})).toThrow(SimInputError);
    expect(() => w.partition('h', 'h')).toThrow(SimInputError);
    const bad: unknown[] = [
      { seed: 1 }, { seed: 's', overrides: [{ decision: -1, alternative: 0 }] },
      { seed: 's', healTimeUs: -1 }, { seed: 's', budgets: { maxEvents: 1.5 } },
      { seed: 's', rpc: { defaultLatency: { minUs: -1, medianUs: 0, maxUs: 0 } } },
      { seed: 's', rpc: { defaultLatency: { minUs: 1, medianUs: 1, maxUs: 1 }, lossByKind: { ack: 2 } } },
      { seed: 's', rpc: { defaultLatency: { minUs: 1, medianUs: 1, maxUs: 1 }, lossByKind: { nope: 0 } } },
      { seed: 's', rpc: { defaultLatency: { minUs: 1, medianUs: 1, maxUs: 1 }, latencyByKind: { nope: {} } } },
      { seed: 's', rpc: { defaultLatency: { minUs: 1, medianUs: 1, maxUs: 1 }, lateDeliveryProbability: -1 } },
      { seed: 's', objectStore: { latency: { minUs: 1, medianUs: 1, maxUs: 1 }, slowFactor: 0.5 } },
      { seed: 's', objectStore: { latency: { minUs: 1, medianUs: 1, maxUs: 1 }, failProbability: 3 } },
      { seed: 's', objectStore: { latency: { minUs: 1, medianUs: 1, maxUs: 1 }, unknownOutcomeProbability: 3 } },
      { seed: 's', network: { latency: { minUs: 3, medianUs: 1, maxUs: 1 } } },
      { seed: 's', bugs: [1] }, { seed: 's', traceLimit: -1 }, null,
    ];
    for (const o of bad) expect(() => new World(o as WorldOptions)).toThrow(SimInputError);
    const env = w.env('h');
    expect(() => env.executors.get('e').execute('x', () => {}, -1)).toThrow(AssertionError);
    expect(() => env.executors.get('e').schedule('x', 0.5, () => {})).toThrow(AssertionError);
    expect(() => env.rpc.tell(rpcAddress('ghost'), rpcAddress('x'), 'ack', 'm', [])).toThrow(AssertionError);
  });

  test('the sim\'s own bookkeeping fails as a harness assertion, a broken port contract as the engine\'s', () => {
    const w = new World({ seed: 'h' });
    w.addHost('h', () => {});
    // A run started from inside a run: the sim's loop itself is misused (a harness bug).
    w.at(1, 'nested', () => w.run());
    expect(() => w.run()).toThrow(HarnessAssertionError);
    // A negative task cost is what the engine asked of its executor (engine/api/Executor.ts
    // documents the AssertionError): the engine's bug, so not a harness assertion.
    let thrown: unknown;
    try {
      w.env('h').executors.get('e').execute('x', () => {}, -1);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AssertionError);
    expect(thrown).not.toBeInstanceOf(HarnessAssertionError);
  });

  test('the trace can be capped while the hash covers everything; task events are optional', () => {
    const mk = (traceLimit?: number) => {
      const w = new World({ seed: 'cap', traceTasks: true, ...(traceLimit !== undefined ? { traceLimit } : {}) });
      w.addHost('h', (env) => {
        for (let i = 0; i < 10; i++) env.executors.get('e').execute('t', () => env.tracer.mark('m', { i }));
      });
      w.run();
      return w;
    };
    const full = mk();
    const capped = mk(5);
    expect(capped.traceHash).toBe(full.traceHash);
    expect(capped.trace.events).toHaveLength(5);
    expect(full.trace.eventCount).toBe(capped.trace.eventCount);
    expect(full.trace.events.some((e) => e.type === 'task')).toBe(true);
    expect(full.marks.get('m')).toBe(10);
    expect(full.hostIds).toEqual(['h']);
  });
});

describe('World timers and subscriptions', () => {
  test('cancelled timers never fire; cancel is idempotent; unsubscribe stops actions', () => {
    const seen: string[] = [];
    const w = new World({ seed: 'tm' });
    const unsubscribe = w.onTrace((e) => e.type === 'fired', () => seen.push('action'));
    w.addHost('h', (env) => {
      const ex = env.executors.get('e');
      const t = ex.schedule('t', 100, () => seen.push('t'));
      expect(t.pending).toBe(true);
      t.cancel();
      t.cancel();
      expect(t.pending).toBe(false);
      const u = ex.schedule('u', 50, () => {
        seen.push('u');
        env.tracer.event('fired');
        unsubscribe();
        env.tracer.event('fired');
      });
      ex.execute('busy', () => seen.push('busy'), 80);
      expect(u.pending).toBe(true);
    });
    w.run();
    expect(seen).toEqual(['busy', 'u', 'action']);
    w.crash('h');
    expect(w.env('h').executors.get('e').schedule('x', 1, () => {}).pending).toBe(false);
  });
});

describe('World input checks', () => {
  /** The one-line SimInputError message of `f`. */
  function rejection(f: () => unknown): string {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(SimInputError);
      const message = (e as Error).message;
      expect(message).not.toContain('\n');
      return message;
    }
    throw new Error('expected a SimInputError');
  }

  test('at, onTrace and addHost reject callbacks that are not functions', () => {
    const w = new World({ seed: 'in' });
    const notFn = 'crash' as unknown as () => void;
    expect(rejection(() => w.at(5, 'crash', notFn))).toBe('at(crash): fn must be a function, got a string');
    expect(rejection(() => w.at(5, 'crash', undefined as unknown as () => void)))
      .toBe('at(crash): fn must be a function, got undefined');
    expect(rejection(() => w.at(5, 7 as unknown as string, () => {})))
      .toBe('at: label must be a string, got a number');
    expect(rejection(() => w.onTrace(null as unknown as () => boolean, () => {})))
      .toBe('onTrace: predicate must be a function, got null');
    expect(rejection(() => w.onTrace(() => true, {} as unknown as () => void)))
      .toBe('onTrace: action must be a function, got an object');
    expect(rejection(() => w.onTrace(() => true, () => {}, null as unknown as { once?: boolean })))
      .toBe('onTrace: options must be an object like { once: true }');
    expect(rejection(() => w.addHost('h', 42 as unknown as () => void)))
      .toBe('addHost(h): boot must be a function, got a number');
    expect(w.hostIds).toEqual([]);
  });

  test('at still checks its time; partition checks its options', () => {
    const w = new World({ seed: 'in' });
    expect(rejection(() => w.at(-1, 'x', () => {}))).toContain('at(x): timeUs must be a non-negative integer');
    w.addHost('a', () => {});
    w.addHost('b', () => {});
    expect(rejection(() => w.partition('a', 'b', null as unknown as { oneWay?: boolean })))
      .toBe('partition: options must be an object like { oneWay: true }');
    expect(rejection(() => w.crash('c'))).toBe('crash: unknown host "c" (known: a, b)');
  });
});
