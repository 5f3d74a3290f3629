import { describe, expect, test } from 'vitest';
import type { EngineEnv, Executor } from '../engine/api/index.ts';
import { World } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

function world(boot: (env: EngineEnv, log: string[]) => void, options: Partial<WorldOptions> = {}) {
  const log: string[] = [];
  const w = new World({ seed: 'pool', ...options });
  w.addHost('jobmanager', (env) => boot(env, log));
  return { w, log };
}

describe('A blocked thread (a Java thread waiting on a monitor or in blocking IO)', () => {
  test('starts neither queued nor timer tasks until woken; the wake task runs first', () => {
    const { w, log } = world((env, out) => {
      const t = env.executors.get('t');
      const other = env.executors.get('other');
      t.execute('first', () => {
        out.push(`first@${env.clock.nowUs()}`);
        const waker = t.block('lock');
        t.execute('queued', () => out.push(`queued@${env.clock.nowUs()}`));
        t.schedule('timer', 5, () => out.push(`timer@${env.clock.nowUs()}`));
        other.schedule('release', 100, () => waker.execute('woken', () => out.push(`woken@${env.clock.nowUs()}`)));
      });
    });
    w.run();
    expect(log).toEqual(['first@0', 'woken@100', 'queued@100', 'timer@100']);
  });

  test('a blocked thread is woken by a store operation that completes on its waker (blocking IO)', () => {
    const { w, log } = world((env, out) => {
      const t = env.executors.get('t');
      t.execute('write', () => {
        const waker = t.block('metadata write');
        t.execute('behind', () => out.push(`behind@${env.clock.nowUs()}`));
        env.objectStore.put('x', 1, 1, waker).whenComplete(() => out.push(`written@${env.clock.nowUs()}`));
      });
    }, { objectStore: { latency: { minUs: 40, medianUs: 40, maxUs: 40 } } });
    w.run();
    expect(log).toEqual(['written@40', 'behind@40']);
  });

  test('block outside a task of the executor is refused', () => {
    const { w } = world((env) => {
      env.executors.get('t').execute('x', () => {
        expect(() => env.executors.get('u').block('wrong thread')).toThrow(/outside a task/);
      });
    });
    expect(w.run().reason).toBe('idle');
  });
});

describe('A fixed pool of threads (ThreadPoolExecutor)', () => {
  function order(overrides: WorldOptions['overrides']): string[] {
    const { w, log } = world((env, out) => {
      const io = env.executors.pool('io', 2);
      env.executors.get('rpc').execute('deliver', () => {
        io.execute('ack', () => out.push('ack'));
        io.execute('decline', () => out.push('decline'));
      });
    }, { overrides: overrides ?? [] });
    w.run();
    return log;
  }

  test('two tasks submitted back to back run on two workers, in either order (an order decision)', () => {
    const seeded = order(undefined);
    expect([...seeded].sort()).toEqual(['ack', 'decline']);
    const both = new Set([0, 1].map((alt) => order([{ decision: 0, alternative: alt }]).join(',')));
    expect(both).toEqual(new Set(['ack,decline', 'decline,ack']));
  });

  test('a task waits while every worker is busy or blocked, and goes to the first one that is idle', () => {
    const { w, log } = world((env, out) => {
      const io = env.executors.pool('io', 2);
      let waker: Executor | undefined;
      io.execute('holder', () => {
        out.push(`holder@${env.clock.nowUs()}`);
        waker = io.block('lock');
      });
      io.execute('busy', () => out.push(`busy@${env.clock.nowUs()}`), 30);
      io.execute('third', () => out.push(`third@${env.clock.nowUs()}`));
      env.executors.get('other').schedule('release', 100, () => waker?.execute('woken', () => out.push(`woken@${env.clock.nowUs()}`)));
    });
    w.run();
    // Worker 1 runs `holder` and blocks; worker 2 pays 30 µs for `busy`, then takes `third`
    // (unblocked, worker 1 would have taken it at 0); worker 1 wakes at 100.
    expect(log).toEqual(['holder@0', 'busy@30', 'third@30', 'woken@100']);
  });

  test('a pool dies with its host, and its timers with it', () => {
    const { w, log } = world((env, out) => {
      const io = env.executors.pool('io', 2);
      io.schedule('late', 50, () => out.push('late'));
      io.execute('slow', () => out.push('slow'), 100);
    });
    w.at(10, 'crash', () => w.crash('jobmanager'));
    w.run();
    expect(log).toEqual([]);
  });

  test('asking for a pool of another size is refused', () => {
    const { w } = world((env) => {
      env.executors.pool('io', 2);
      expect(() => env.executors.pool('io', 3)).toThrow(/exists with 2 workers/);
      expect(() => env.executors.pool('x', 0)).toThrow(/positive integer/);
    });
    expect(w.run().reason).toBe('idle');
  });
});
