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
 *
 * Independently, one run in five ends with a stop-with-savepoint (drain or not, shrinking toward
 * none): at a time or a protocol point, or as a stop race, the stop asked for when checkpoint n
 * completes with its synchronous savepoint (id n + 1) slowed far past any timeout (it expires) or
 * failing to write its state (a task-level failure, which fails the job over): the two ways a
 * stop fails and the job keeps running. The drawn faults race the others.
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
  /** A savepoint race is drawn: the run needs max concurrent 2. */
  readonly concurrent: boolean;
}

const NONE: ActionPlan = { actions: [], raceFaults: [], concurrent: false };

/** Savepoint actions (and a race's faults) for runs of the cluster `o` describes. */
export function actionPlanArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<ActionPlan> {
  const savepoint: fc.Arbitrary<Action> = fc.record({ type: fc.constant('savepoint' as const), when: triggerArbitrary(o) });
  const plain = fc.array(savepoint, { minLength: 1, maxLength: 2 }).map((actions): ActionPlan => ({ actions, raceFaults: [], concurrent: false }));
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
    concurrent: true,
  }));
  return fc.record({
    on: fc.integer({ min: 0, max: 3 }), plan: fc.oneof(plain, race),
    stopOn: fc.integer({ min: 0, max: 4 }), stop: stopArbitrary(o),
  }).map(({ on, plan, stopOn, stop }) => {
    const drawn = on === 3 ? plan : NONE;
    if (stopOn !== 4) return drawn;
    return { actions: [...drawn.actions, ...stop.actions], raceFaults: [...drawn.raceFaults, ...stop.raceFaults], concurrent: drawn.concurrent };
  });
}

/** A stop-with-savepoint: plain (at a drawn trigger) or a stop race (see the file comment). */
function stopArbitrary(o: FaultArbitraryOptions): fc.Arbitrary<ActionPlan> {
  const plain = fc.record({ drain: fc.boolean(), when: triggerArbitrary(o) }).map(({ drain, when }): ActionPlan => ({
    actions: [{ type: 'stop-with-savepoint', drain, when }], raceFaults: [], concurrent: false,
  }));
  const race = fc.record({
    after: fc.integer({ min: 1, max: 6 }), drain: fc.boolean(), fails: fc.constantFrom('expires', 'write-fails'),
  }).map(({ after, drain, fails }): ActionPlan => ({
    actions: [{ type: 'stop-with-savepoint', drain, when: { at: { kind: 'jobmaster', checkpoint: after, phase: 'completed' } } }],
    raceFaults: [fails === 'expires'
      ? { type: 'slow-store', factor: 1000, checkpoint: after + 1 }
      : { type: 'async-snapshot-failure', probability: 1, checkpoint: after + 1 }],
    // With the drawn max concurrent (1 mostly), checkpoint n + 1 is not pending yet when n
    // completes, so the stop's savepoint takes that id.
    concurrent: false,
  }));
  return fc.oneof(plain, race);
}
