/**
 * The pct strategy's schedule (ExploreStrategy.ts): `RunSpec.pct`, 1..3 change points over the
 * order decisions (sim/PctScheduler.ts). The lanes' priorities come from the run's seed, so the
 * change points are all there is to draw.
 *
 * Where they fall: explore's runs make a few hundred to about two thousand order decisions
 * (generated jobs a median of about 560, flights about 1170, both about 2000 at the 90th
 * percentile), so change points are drawn uniformly below {@link PCT_DECISION_RANGE}, as PCT
 * draws them uniformly over a run's steps; one beyond the run's last decision is reported unused
 * (RunResult.schedule.pct.unusedChangePoints). Shrinks toward fewer and earlier change points.
 */
import fc from 'fast-check';
import type { RunSpec } from '../../sim/run/RunSpec.ts';

/** Change points are drawn in 0..PCT_DECISION_RANGE - 1 (order-decision indices). */
export const PCT_DECISION_RANGE = 2048;

/** A PCT schedule with 1..3 change points, ascending. */
export function pctScheduleArbitrary(): fc.Arbitrary<NonNullable<RunSpec['pct']>> {
  return fc.uniqueArray(fc.integer({ min: 0, max: PCT_DECISION_RANGE - 1 }), { minLength: 1, maxLength: 3 })
    .map((cps) => ({ changePoints: [...cps].sort((a, b) => a - b) }));
}
