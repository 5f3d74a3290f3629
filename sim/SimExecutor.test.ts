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

describe('stored task events say when a task began paying its cost and what it recorded', () => {
  /** The stored task events of executor `work` as { label, startUs, timeUs, lastSeq }. */
  const tasksOf = (world: World) => world.trace.events
    .filter((e) => e.type === 'task' && e.attrs['executor'] === 'taskmanager-1/work')
    .map((e) => ({ label: e.attrs['label'], startUs: e.attrs['startUs'], timeUs: e.timeUs, seq: e.seq, lastSeq: e.attrs['lastSeq'] }));

  test('queued tasks start when the one before them ran; events of a task fall before its lastSeq', () => {
    const world = new World({ seed: 's1', traceTasks: true });
    world.addHost('taskmanager-1', (env: EngineEnv) => {
      const work = env.executors.get('work');
      work.execute('a', () => env.tracer.event('inside.a'), 100);
      work.execute('b', () => {
        env.tracer.event('inside.b');
        env.tracer.event('inside.b');
      }, 50);
    });
    world.at(120, 'between', () => world.trace.record('sim', 'outside'));
    world.run();
    const [a, b] = tasksOf(world);
    expect(a).toMatchObject({ label: 'a', startUs: 0, timeUs: 100 });
    expect(b).toMatchObject({ label: 'b', startUs: 100, timeUs: 150 });
    const seqOf = (type: string) => world.trace.events.filter((e) => e.type === type).map((e) => e.seq);
    expect(a?.lastSeq).toBe(seqOf('inside.a')[0]);
    expect(b?.lastSeq).toBe(Math.max(...seqOf('inside.b')));
    expect(seqOf('outside')[0]).toBeGreaterThan(a?.lastSeq as number);
    expect(seqOf('outside')[0]).toBeLessThan(b?.seq as number);
  });

  test('a pause keeps the start: the task was on the thread all along', () => {
    const world = new World({ seed: 's1', traceTasks: true });
    world.addHost('taskmanager-1', (env: EngineEnv) => {
      env.executors.get('work').execute('a', () => {}, 100);
    });
    world.at(50, 'pause', () => world.pause('taskmanager-1'));
    world.at(300, 'resume', () => world.resume('taskmanager-1'));
    world.run();
    expect(tasksOf(world)).toMatchObject([{ label: 'a', startUs: 0, timeUs: 300 }]);
  });

  test('the task woken out of a block starts paying at the wake, and the block is a marker inside its task', () => {
    const world = new World({ seed: 's1', traceTasks: true });
    world.addHost('taskmanager-1', (env: EngineEnv) => {
      const work = env.executors.get('work');
      work.execute('blocker', () => {
        const waker = work.block('lock');
        env.executors.get('other').schedule('wake', 200, () => waker.execute('woken', () => {}, 10));
      });
    });
    world.run();
    const events = world.trace.events.filter((e) => e.type === 'task' && e.attrs['executor'] === 'taskmanager-1/work');
    expect(events.map((e) => e.attrs)).toEqual([
      { executor: 'taskmanager-1/work', label: 'blocker', startUs: 0, lastSeq: events[1]?.seq },
      { executor: 'taskmanager-1/work', label: 'blocked: lock' },
      { executor: 'taskmanager-1/work', label: 'woken', startUs: 200, lastSeq: expect.any(Number) },
    ]);
    expect(events[2]?.timeUs).toBe(210);
  });

  test('the hash is the same whether tasks are stored or not', () => {
    const run = (traceTasks: boolean) => {
      const world = new World({ seed: 's1', traceTasks });
      world.addHost('taskmanager-1', (env: EngineEnv) => {
        env.executors.get('work').execute('a', () => env.tracer.event('x'), 100);
      });
      world.run();
      return world.traceHash;
    };
    expect(run(true)).toBe(run(false));
  });
});
