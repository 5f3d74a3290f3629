import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Fault } from '../../sim/run/RunSpec.ts';
import { capFaultsPerFamily, FAULT_FAMILIES, faultPlanArbitrary } from './faultArbitrary.ts';

const global = (atMs: number): Fault => ({ type: 'global-failure', when: { atMs } });

describe('capFaultsPerFamily', () => {
  test('keeps each family\'s first fault before any family\'s second, in family order', () => {
    const families = [[global(1), global(2), global(3)], [], [global(10), global(11)], [global(20)]];
    expect(capFaultsPerFamily(families, 4)).toEqual([global(1), global(2), global(10), global(20)]);
    expect(capFaultsPerFamily(families, 3)).toEqual([global(1), global(10), global(20)]);
    expect(capFaultsPerFamily(families, 2)).toEqual([global(1), global(10)]);
    expect(capFaultsPerFamily(families, 10)).toEqual([global(1), global(2), global(3), global(10), global(11), global(20)]);
    expect(capFaultsPerFamily(families, 0)).toEqual([]);
  });
});

describe('faultPlanArbitrary', () => {
  // The plan used to be the families' faults cut after the sixth: a family late in the list
  // (message, channel-event) lost its faults in about half the runs that switched it on.
  test('a family switched on keeps a fault even when many are on, the last one too', () => {
    const o = { taskManagers: 2, healTimeMs: 600, tasks: ['v0#0', 'v1#1'], operators: ['op0'], maxFaults: 6 };
    const plans = fc.sample(faultPlanArbitrary(o), { seed: 21, numRuns: 2000 });
    const last = FAULT_FAMILIES[FAULT_FAMILIES.length - 1];
    const withLast = plans.filter((p) => p.some((f) => f.type === last));
    // A family is on in one plan of five.
    expect(withLast.length).toBeGreaterThan(2000 / 5 * 0.8);
    for (const p of plans) expect(p.length).toBeLessThanOrEqual(6);
    expect(plans.some((p) => p.length === 6 && p.some((f) => f.type === last))).toBe(true);
  });
});
