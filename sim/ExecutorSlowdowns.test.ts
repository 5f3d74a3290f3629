import { describe, expect, test } from 'vitest';
import type { EngineEnv } from '../engine/api/index.ts';
import { SimInputError } from './SimInputError.ts';
import { World } from './World.ts';

/** A host whose `work` executor runs one task of `costUs`; returns when it ran (virtual µs). */
function oneTask(costUs: number, startUs = 0): { world: World; ranAt: () => number | undefined } {
  const world = new World({ seed: 's1' });
  let ranAt: number | undefined;
  world.addHost('taskmanager-1', (env: EngineEnv) => {
    const run = (): void => env.executors.get('work').execute('task', () => { ranAt = env.clock.nowUs(); }, costUs);
    if (startUs === 0) run();
    else env.executors.get('timer').schedule('start', startUs, run);
  });
  return { world, ranAt: () => ranAt };
}

const matchesWork = (name: string): boolean => name.endsWith('/work');

describe('ExecutorSlowdowns: a slow task works at a lower rate while the fault lasts', () => {
  test('a cost paid entirely inside a slowdown takes factor times as long', () => {
    const { world, ranAt } = oneTask(1000);
    world.slowdowns.add(matchesWork, 4);
    world.run();
    expect(ranAt()).toBe(4000);
  });

  test('when the slowdown ends, the rest of the cost is paid at the normal rate', () => {
    const { world, ranAt } = oneTask(1000);
    const end = world.slowdowns.add(matchesWork, 10);
    // 500 µs at a tenth of the rate pay 50 µs of the cost; the other 950 µs follow at full rate.
    world.at(500, 'end slowdown', end);
    world.run();
    expect(ranAt()).toBe(1450);
  });

  test('a slowdown that starts during a cost slows only the rest of it', () => {
    const { world, ranAt } = oneTask(1000);
    // 200 µs at full rate, then 800 µs of cost at a quarter of the rate.
    world.at(200, 'start slowdown', () => { world.slowdowns.add(matchesWork, 4); });
    world.run();
    expect(ranAt()).toBe(200 + 3200);
  });

  test('overlapping slowdowns multiply; ending one leaves the other', () => {
    const { world, ranAt } = oneTask(1000);
    world.slowdowns.add(matchesWork, 2);
    const end = world.slowdowns.add(matchesWork, 5);
    // 100 µs at a tenth pay 10; 990 left at a half take 1980.
    world.at(100, 'end one', end);
    world.run();
    expect(ranAt()).toBe(100 + 1980);
  });

  test('other executors and zero-cost tasks are not slowed; ending twice changes nothing', () => {
    const { world, ranAt } = oneTask(1000);
    const end = world.slowdowns.add((name) => name.endsWith('/other'), 100);
    end();
    end();
    world.run();
    expect(ranAt()).toBe(1000);
    const zero = oneTask(0);
    zero.world.slowdowns.add(matchesWork, 100);
    zero.world.run();
    expect(zero.ranAt()).toBe(0);
  });

  test('a factor below 1 or not finite is refused', () => {
    const world = new World({ seed: 's1' });
    expect(() => world.slowdowns.add(matchesWork, 0.5)).toThrow(SimInputError);
    expect(() => world.slowdowns.add(matchesWork, Number.POSITIVE_INFINITY)).toThrow(SimInputError);
  });
});
