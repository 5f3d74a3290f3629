import { describe, expect, test } from 'vitest';
import type { EngineEnv } from '../engine/api/index.ts';
import { ChoiceSource } from './ChoiceSource.ts';
import { QueueEntry, type TieCandidates } from './EventQueue.ts';
import { PctScheduler, validatePctOptions } from './PctScheduler.ts';
import { RandomStreams } from './RandomStreams.ts';
import { SimInputError } from './SimInputError.ts';
import { World } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

/** A lane of a given key that never runs (the scheduler only reads keys). */
class Lane extends QueueEntry {
  constructor(private readonly key: string) {
    super();
  }

  fire(): void {}

  laneKey(): string {
    return this.key;
  }
}

const ties = (lanes: readonly Lane[]): TieCandidates => ({ candidate: (j) => lanes[j] as Lane });

/** A stream that returns `draws` in turn (then fails the test: more draws than lanes). */
function stream(draws: readonly number[]): () => number {
  let i = 0;
  return () => {
    const d = draws[i++];
    if (d === undefined) throw new Error('drew more priorities than expected');
    return d;
  };
}

/** One decision among `lanes`: what the schedule proposes (taken as is). */
function decide(pct: PctScheduler, lanes: readonly Lane[]): string {
  const j = pct.propose(lanes.length, ties(lanes));
  pct.taken(lanes[j] as Lane);
  return (lanes[j] as Lane).laneKey();
}

describe('PctScheduler', () => {
  test('the lane of highest priority runs, and keeps its rank from one decision to the next', () => {
    const a = new Lane('a');
    const b = new Lane('b');
    const c = new Lane('c');
    // Priorities by first sight, candidates in seq order: a 0.2, b 0.9, then c 0.5.
    const pct = new PctScheduler(stream([0.2, 0.9, 0.5]), { changePoints: [] });
    expect(decide(pct, [a, b])).toBe('b');
    expect(decide(pct, [b, a])).toBe('b');
    expect(decide(pct, [a, c])).toBe('c');
    expect(decide(pct, [a, c, b])).toBe('b');
    // Each lane drew once: a fourth draw would have thrown.
    expect(pct.report().lanes).toBe(3);
  });

  test('at a change point the lane that ran drops below every other, lanes seen later included', () => {
    const a = new Lane('a');
    const b = new Lane('b');
    const c = new Lane('c');
    const pct = new PctScheduler(stream([0.3, 0.8, 0.01]), { changePoints: [1] });
    expect(decide(pct, [a, b])).toBe('b'); // decision 0
    expect(decide(pct, [a, b])).toBe('b'); // decision 1, a change point: b drops
    expect(decide(pct, [a, b])).toBe('a');
    // c's draw (0.01) is the lowest ever drawn, still above a dropped lane.
    expect(decide(pct, [b, c])).toBe('c');
    expect(pct.report().unusedChangePoints).toEqual([]);
  });

  test('the first change point drops lowest, as PCT lowers the running thread to priority i', () => {
    const a = new Lane('a');
    const b = new Lane('b');
    const c = new Lane('c');
    const pct = new PctScheduler(stream([0.1, 0.5, 0.9]), { changePoints: [0, 1] });
    expect(decide(pct, [a, b, c])).toBe('c'); // change point 0: c to -2
    expect(decide(pct, [a, b, c])).toBe('b'); // change point 1: b to -1
    expect(decide(pct, [a, b, c])).toBe('a');
    expect(decide(pct, [b, c])).toBe('b');
  });

  test('among candidates of one lane the earliest runs; change points never reached are reported', () => {
    const t1 = new Lane('timer:x');
    const t2 = new Lane('timer:x');
    const pct = new PctScheduler(stream([0.4]), { changePoints: [5, 9] });
    expect(pct.propose(2, ties([t1, t2]))).toBe(0);
    pct.taken(t1);
    expect(pct.report().unusedChangePoints).toEqual([5, 9]);
  });

  test('refuses change points that are not ascending, distinct, non-negative integers', () => {
    expect(() => validatePctOptions({ changePoints: [3, 3] })).toThrow(SimInputError);
    expect(() => validatePctOptions({ changePoints: [4, 2] })).toThrow(/ascending/);
    expect(() => validatePctOptions({ changePoints: [-1] })).toThrow(/non-negative/);
    expect(() => validatePctOptions({ changePoints: Array.from({ length: 17 }, (_x, i) => i) })).toThrow(/at most 16/);
    expect(() => validatePctOptions({ changePoints: [0, 7, 100] })).not.toThrow();
  });
});

describe('ChoiceSource with a proposed order', () => {
  const source = (overrides: { decision: number; alternative: number }[] = []) =>
    new ChoiceSource({ streams: new RandomStreams('p'), overrides, nowUs: () => 0 });

  test('the proposal replaces the seeded draw, an override wins over it, and every draw is made', () => {
    const seeded = source();
    const seededValues = Array.from({ length: 6 }, () => seeded.order('order', 4));
    const proposed = source([{ decision: 2, alternative: 1 }]);
    const values = Array.from({ length: 6 }, (_x, i) => proposed.order('order', 4, i === 4 ? undefined : 3));
    // Decision 2 is overridden; decision 4 has no proposal and keeps its seeded draw.
    expect(values).toEqual([3, 3, 1, 3, seededValues[4], 3]);
    expect(proposed.orderCount).toBe(6);
    // Proposals that differ from the seeded draw, counted whether or not an override decided.
    const differing = seededValues.filter((v, i) => i !== 4 && v !== 3).length;
    expect(proposed.orderProposalsDiffering).toBe(differing);
    expect(differing).toBeGreaterThan(0);
  });
});

/**
 * Two threads of one host, each queuing a step at the same instants (a tie every round): the
 * first of each round is logged.
 */
function race(options: WorldOptions, rounds = 12): { first: string[]; world: World } {
  const first: string[] = [];
  const world = new World(options);
  world.addHost('h', (env: EngineEnv) => {
    const x = env.executors.get('x');
    const y = env.executors.get('y');
    let round = 0;
    let seen = 0;
    const step = (name: string) => () => {
      if (seen++ % 2 === 0) first.push(name);
      if (seen % 2 === 1 || ++round >= rounds) return;
      x.execute('step', step('x'), 10);
      y.execute('step', step('y'), 10);
    };
    x.execute('step', step('x'), 10);
    y.execute('step', step('y'), 10);
  });
  world.run();
  return { first, world };
}

describe('a World with a PCT schedule', () => {
  test('one thread wins every tie until the change point, then the other does', () => {
    const { first, world } = race({ seed: 'w', pct: { changePoints: [4] } });
    const winner = first[0] as string;
    const loser = winner === 'x' ? 'y' : 'x';
    expect(first).toEqual([...Array<string>(5).fill(winner), ...Array<string>(7).fill(loser)]);
    expect(world.choices.orderCount).toBe(12);
    expect(world.choices.pct?.unusedChangePoints).toEqual([]);
    // The seeded draws of the same world interleave: PCT is not what the seed alone does.
    expect(race({ seed: 'w' }).first).not.toEqual(first);
  });

  test('an override of an order decision wins over the schedule', () => {
    const base = race({ seed: 'w', pct: { changePoints: [] } }).first;
    const winner = base[0] as string;
    expect(base.every((f) => f === winner)).toBe(true);
    // The decisions are the order ones here (the steps draw nothing else). Of the two
    // alternatives at decision 3 one is the schedule's own choice and the other is not: that one
    // moves round 3, and nothing else, whatever the schedule prefers.
    const moved = [0, 1].map((alternative) => {
      const overridden = race({ seed: 'w', pct: { changePoints: [] }, overrides: [{ decision: 3, alternative }] });
      expect(overridden.world.choices.unusedOverrides).toEqual([]);
      return overridden.first.map((f, i) => (f === base[i] ? '' : String(i))).filter((s) => s !== '');
    });
    expect(moved.map((m) => m.join(',')).sort()).toEqual(['', '3']);
  });

  test('the same options give the same trace hash, another change point another one', () => {
    const a = race({ seed: 'w', pct: { changePoints: [2, 6] } }).world.traceHash;
    expect(race({ seed: 'w', pct: { changePoints: [2, 6] } }).world.traceHash).toBe(a);
    expect(race({ seed: 'w', pct: { changePoints: [3, 6] } }).world.traceHash).not.toBe(a);
  });
});
