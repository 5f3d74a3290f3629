import { describe, expect, test } from 'vitest';
import type { EngineEnv, PreemptibleTask } from '../engine/api/index.ts';
import { World } from './World.ts';

/**
 * A host whose `work` executor pays `units` parts of `unitCostUs` in one preemptible task,
 * submitted at time 0 (behind a task of `aheadCostUs` when given); `preemptAtUs` preempts it.
 */
function preemptible(o: { unitCostUs: number; units: number; preemptAtUs?: number; aheadCostUs?: number }) {
  const world = new World({ seed: 's1' });
  const ran: { atUs: number; parts: number }[] = [];
  let handle: PreemptibleTask | undefined;
  world.addHost('taskmanager-1', (env: EngineEnv) => {
    const work = env.executors.get('work');
    if (o.aheadCostUs !== undefined) work.execute('ahead', () => {}, o.aheadCostUs);
    handle = work.executePreemptible('batch', o.unitCostUs, o.units, (parts) => {
      ran.push({ atUs: env.clock.nowUs(), parts });
    });
  });
  const preempt = (): void => handle?.preempt();
  if (o.preemptAtUs !== undefined) world.at(o.preemptAtUs, 'preempt', preempt);
  return { world, ran, preempt };
}

const matchesWork = (name: string): boolean => name.endsWith('/work');

describe('SimExecutor.executePreemptible: a cost paid part by part, cut short on request', () => {
  test('never preempted, it runs once every part is paid', () => {
    const { world, ran } = preemptible({ unitCostUs: 100, units: 5 });
    world.run();
    expect(ran).toEqual([{ atUs: 500, parts: 5 }]);
  });

  test('preempted during a part, it runs at the end of that part', () => {
    const { world, ran } = preemptible({ unitCostUs: 100, units: 5, preemptAtUs: 250 });
    world.run();
    expect(ran).toEqual([{ atUs: 300, parts: 3 }]);
  });

  test('preempted just as a part ends, it runs at once with the parts paid', () => {
    const { world, ran } = preemptible({ unitCostUs: 100, units: 5, preemptAtUs: 200 });
    world.run();
    expect(ran).toEqual([{ atUs: 200, parts: 2 }]);
  });

  test('preempted before it started paying, it pays its first part only', () => {
    const { world, ran } = preemptible({ unitCostUs: 100, units: 5, aheadCostUs: 1000, preemptAtUs: 400 });
    world.run();
    expect(ran).toEqual([{ atUs: 1100, parts: 1 }]);
  });

  test('preempted under a slowdown, it runs at the end of the part in progress at the slow rate', () => {
    const { world, ran } = preemptible({ unitCostUs: 100, units: 5, preemptAtUs: 250 });
    world.slowdowns.add(matchesWork, 2);
    // At 250 µs, 125 µs of cost are paid: part 2 is in progress and ends at 400 µs.
    world.run();
    expect(ran).toEqual([{ atUs: 400, parts: 2 }]);
  });

  test('preempting twice, or after it ran, changes nothing more', () => {
    const { world, ran, preempt } = preemptible({ unitCostUs: 100, units: 5, preemptAtUs: 150 });
    world.at(180, 'preempt again', preempt);
    world.at(300, 'preempt after it ran', preempt);
    world.run();
    expect(ran).toEqual([{ atUs: 200, parts: 2 }]);
  });
});
