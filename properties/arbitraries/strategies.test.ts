/**
 * The search strategies' draws (ExploreStrategy.ts): what each puts in a run, told apart by
 * what they are for: uniform draws faults independently of one another, swarm in families,
 * targeted one fault at a step of one of the first or last checkpoints, pct a schedule, mixed
 * each of them about as often as its weight says; swarm is what runSpecArbitrary drew before
 * strategies existed.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { drawnRunArbitrary } from './drawnRunArbitrary.ts';
import { MIXED_WEIGHTS, RUN_STRATEGIES, type RunStrategy } from './ExploreStrategy.ts';
import { FAULT_FAMILIES, faultPlanArbitrary, type FaultArbitraryOptions } from './faultArbitrary.ts';
import { PCT_DECISION_RANGE, pctScheduleArbitrary } from './pctScheduleArbitrary.ts';
import { runSpecArbitrary } from './runSpecArbitrary.ts';
import { expectedLastCheckpoint } from './sourcePacing.ts';
import { TARGETABLE_FAULTS, targetCheckpoint, targetedFaults, targetedPlanArbitrary } from './targetedFaultArbitrary.ts';
import { uniformFaultPlanArbitrary } from './uniformFaultPlanArbitrary.ts';

const FAULT_OPTIONS: FaultArbitraryOptions = {
  taskManagers: 2, healTimeMs: 600, tasks: ['v0#0', 'v1#0', 'v0#1', 'v1#1'], operators: ['op0', 'op1'], maxFaults: 6,
};

/** Among runs of two faults or more, the share of pairs of faults of one run that are of one type. */
function sameTypeShare(plans: readonly (readonly Fault[])[]): number {
  let pairs = 0;
  let same = 0;
  for (const faults of plans) {
    for (let i = 0; i < faults.length; i++) {
      for (let j = i + 1; j < faults.length; j++) {
        pairs++;
        if (faults[i]?.type === faults[j]?.type) same++;
      }
    }
  }
  return same / pairs;
}

describe('uniform', () => {
  test('0 to 6 faults, each family alike and independent of the others (no family switched on per run)', () => {
    const plans = fc.sample(uniformFaultPlanArbitrary(FAULT_OPTIONS), { seed: 1, numRuns: 600 });
    const lengths = new Set(plans.map((p) => p.length));
    expect([...lengths].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const types = new Map<string, number>();
    for (const f of plans.flat()) types.set(f.type, (types.get(f.type) ?? 0) + 1);
    // Every family, each about 1/15 of the faults: the late families too (a coordinator stall; a
    // crash at completion is a crash and a slow store, types the others have).
    expect(types.size).toBe(FAULT_FAMILIES.length + 1);
    expect(types.has('coordinator-stall')).toBe(true);
    const total = plans.flat().length;
    for (const [type, n] of types) expect(n / total, type).toBeGreaterThan(0.04);
    // Two faults of one uniform run share a family about as often as two random faults do (about 1/14);
    // swarm's share, whose runs push a few families hard, is several times that.
    const uniformShare = sameTypeShare(plans);
    const swarmShare = sameTypeShare(fc.sample(faultPlanArbitrary(FAULT_OPTIONS), { seed: 1, numRuns: 600 }));
    expect(uniformShare).toBeLessThan(0.15);
    expect(swarmShare).toBeGreaterThan(2 * uniformShare);
  });
});

describe('targeted', () => {
  test('a checkpoint among the first four, or from one past the expected last down to two before it', () => {
    expect([0, 1, 2, 3].map((offset) => targetCheckpoint({ end: 'first', offset }, 9))).toEqual([1, 2, 3, 4]);
    expect([0, 1, 2, 3].map((offset) => targetCheckpoint({ end: 'last', offset }, 9))).toEqual([10, 9, 8, 7]);
    expect([0, 1, 2, 3].map((offset) => targetCheckpoint({ end: 'last', offset }, 1))).toEqual([2, 1, 1, 1]);
  });

  test('one fault in most runs, two or three in some, of every kind of the registry, aimed at one checkpoint', () => {
    const plans = fc.sample(targetedPlanArbitrary(FAULT_OPTIONS), { seed: 2, numRuns: 800 });
    const sizes = plans.map((p) => p.length);
    const ones = sizes.filter((n) => n === 1).length / sizes.length;
    expect(ones).toBeGreaterThan(0.65);
    expect(ones).toBeLessThan(0.85);
    expect(Math.max(...sizes)).toBe(3);
    expect(new Set(plans.flat().map((d) => d.kind)).size).toBe(TARGETABLE_FAULTS.length);
    // Each kind's fault names the checkpoint it is aimed at (a point of it, or a filter on it).
    for (const [kind, entry] of TARGETABLE_FAULTS.entries()) {
      const draw = plans.flat().find((d) => d.kind === kind);
      if (draw === undefined) throw new Error(`no draw of ${entry.kind}`);
      const [fault] = targetedFaults([draw], 7);
      expect(checkpointOf(fault as Fault), entry.kind).toBe(targetCheckpoint(draw, 7));
    }
  });

  test('runs it draws are valid and aim at the checkpoints around the expected last, healing after them', () => {
    const drawn = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', strategy: 'targeted', maxRecords: 200 }),
      { seed: 3, numRuns: 60 });
    for (const spec of drawn) {
      expect(() => validateRunSpec(spec)).not.toThrow();
      const last = expectedLastCheckpoint(spec);
      expect(spec.healTimeMs).toBeGreaterThanOrEqual((last + 2) * spec.checkpoint.intervalMs);
      const aimed = spec.faults.map(checkpointOf).filter((c): c is number => c !== undefined);
      // The savepoint and stop races' faults aim at n + 1 after a drawn n; the targeted ones are first.
      for (const c of aimed.slice(0, 1)) expect(c <= 4 || (c >= last - 2 && c <= last + 1), `${c} of ${last}`).toBe(true);
    }
  });

  test('the expected last checkpoint is the run\'s true last, or a little short of it, in most runs without faults', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', maxFaults: 0, savepoints: false, rescales: false }),
      { seed: 11, numRuns: 30 });
    const close = specs.filter((spec) => {
      const last = Math.max(0, ...simulate(spec).checkpoints.completed.map((c) => c.checkpointId));
      const expected = expectedLastCheckpoint(spec);
      return last >= expected - 1 && last <= expected + 3;
    });
    expect(close.length / specs.length).toBeGreaterThan(0.8);
  });

  test('most of its faults fire (a point a run reaches, before it heals)', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', strategy: 'targeted', maxRecords: 400, savepoints: false, rescales: false }),
      { seed: 4, numRuns: 25 });
    let faults = 0;
    let unfired = 0;
    for (const spec of specs) {
      faults += spec.faults.length;
      unfired += simulate(spec).unfiredFaults.length;
    }
    expect(faults).toBeGreaterThanOrEqual(25);
    expect(unfired / faults).toBeLessThan(0.4);
  });
});

describe('pct', () => {
  test('1 to 3 ascending change points below the range, shrinking toward one at decision 0', () => {
    const drawn = fc.sample(pctScheduleArbitrary(), { seed: 5, numRuns: 300 });
    for (const { changePoints } of drawn) {
      expect(changePoints.length).toBeGreaterThanOrEqual(1);
      expect(changePoints.length).toBeLessThanOrEqual(3);
      expect([...changePoints].sort((a, b) => a - b)).toEqual(changePoints);
      expect(new Set(changePoints).size).toBe(changePoints.length);
      expect(Math.max(...changePoints)).toBeLessThan(PCT_DECISION_RANGE);
    }
    expect(new Set(drawn.map((d) => d.changePoints.length))).toEqual(new Set([1, 2, 3]));
    const shrunk = fc.check(fc.property(pctScheduleArbitrary(), () => false), { seed: 5 }).counterexample?.[0];
    expect(shrunk).toEqual({ changePoints: [0] });
  });

  test('only pct runs have a schedule, and they have swarm\'s faults', () => {
    const pct = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', strategy: 'pct' }), { seed: 6, numRuns: 20 });
    expect(pct.every((s) => s.pct !== undefined)).toBe(true);
    const swarm = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', strategy: 'swarm' }), { seed: 6, numRuns: 20 });
    expect(swarm.every((s) => s.pct === undefined)).toBe(true);
    expect(pct.map((s) => s.faults)).toEqual(swarm.map((s) => s.faults));
  });
});

describe('swarm and mixed', () => {
  test('swarm draws exactly what runSpecArbitrary drew before strategies (its default)', () => {
    const o = { job: 'generated', mode: 'at-least-once', maxRecords: 100 } as const;
    const before = fc.sample(runSpecArbitrary(o), { seed: 8, numRuns: 30 });
    const drawn = fc.sample(drawnRunArbitrary({ ...o, strategy: 'swarm' }), { seed: 8, numRuns: 30 });
    expect(drawn.map((d) => d.spec)).toEqual(before);
    expect(drawn.every((d) => d.strategy === 'swarm')).toBe(true);
  });

  test('mixed draws each strategy about as often as its weight says, each run tagged with the one that drew it', () => {
    const drawn = fc.sample(drawnRunArbitrary({ job: 'wordcount', mode: 'aligned', strategy: 'mixed' }), { seed: 9, numRuns: 1000 });
    const total = RUN_STRATEGIES.reduce((n, s) => n + MIXED_WEIGHTS[s], 0);
    for (const s of RUN_STRATEGIES) {
      const share = drawn.filter((d) => d.strategy === s).length / drawn.length;
      expect(Math.abs(share - MIXED_WEIGHTS[s] / total), s).toBeLessThan(0.05);
    }
    const tagged = (s: RunStrategy, spec: RunSpec): boolean => (s === 'pct') === (spec.pct !== undefined);
    expect(drawn.every((d) => tagged(d.strategy, d.spec))).toBe(true);
  });
});

/** The checkpoint a fault is aimed at: its point's, or its filter's; undefined for neither. */
function checkpointOf(f: Fault): number | undefined {
  if ('checkpoint' in f && f.checkpoint !== undefined) return f.checkpoint;
  if ('when' in f && f.when !== undefined && 'at' in f.when && 'checkpoint' in f.when.at) return f.when.at.checkpoint;
  return undefined;
}
