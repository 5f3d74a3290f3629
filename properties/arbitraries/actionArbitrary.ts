/**
 * actionPlanArbitrary: the actions explore draws next to its faults (savepoints), and the faults
 * that make a savepoint race worth exploring.
 *
 * Off in three runs out of four (shrinks toward off). On, one or two savepoints, each at a time or
 * at a protocol point (the fault plan's points). Every other draw is a savepoint race instead:
 * a savepoint asked for when checkpoint n completes (so it gets id n + 1, if nothing else
 * triggered meanwhile), whose state files go to a slow target (`slow-store` of checkpoint n + 1)
 * and fail to write (`async-snapshot-failure` of checkpoint n + 1), with max concurrent 2, so the
 * next periodic checkpoint completes while the savepoint is pending and the savepoint then fails
 * task-side with a counted reason: the shape in which Flink once counted a failure older than the
 * latest success (FLINK-18336; the planted `fm-count-past-checkpoints`).
 */
import fc from 'fast-check';
import type { Action, Fault } from '../../sim/run/RunSpec.ts';
import { triggerArbitrary, type FaultArbitraryOptions } from './faultArbitrary.ts';

/** What the action draw adds to a spec. */
export interface ActionPlan {
  readonly actions: Action[];
  /**
   * Faults that belong to a savepoint race, appended to the drawn fault plan; a run with them has
   * max concurrent 2 (with 1, a pending savepoint would hold the next checkpoint back: no race).
   */
  readonly raceFaults: Fault[];
}

const NONE: ActionPlan = { actions: [], raceFaults: [] };

/** Savepoint actions (and a race's faults) for runs of the cluster `o` describes. */
export function actionPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<ActionPlan> {
  const savepoint: fc.Arbitrary<Action> = fc.record({ type: fc.constant('savepoint' as const), when: triggerArbitrary(o) });
  const plain = fc.array(savepoint, { minLength: 1, maxLength: 2 }).map((actions): ActionPlan => ({ actions, raceFaults: [] }));
  const race = fc.record({
    after: fc.integer({ min: 1, max: 6 }),
    probability: fc.constantFrom(1, 0.5),
    factor: fc.constantFrom(20, 50, 10),
  }).map(({ after, probability, factor }): ActionPlan => ({
    actions: [{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: after, phase: 'completed' } } }],
    raceFaults: [
      { type: 'slow-store', factor, checkpoint: after + 1 },
      { type: 'async-snapshot-failure', probability, checkpoint: after + 1 },
    ],
  }));
  return fc.record({ on: fc.integer({ min: 0, max: 3 }), plan: fc.oneof(plain, race) })
    .map(({ on, plan }) => (on === 3 ? plan : NONE));
}
