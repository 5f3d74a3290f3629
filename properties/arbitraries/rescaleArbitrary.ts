/**
 * rescaleArbitrary: the rescales explore draws (docs/runspec.md, "Job runs and rescale"): a
 * history of one job run in three runs out of four (shrinks toward none); otherwise one or two
 * rescales, each ending the job run and restoring the next at a new parallelism (up, down, or the
 * same: a plain restore into a new run), at a time inside the job's expected span or right after
 * one of the first checkpoints completes (racing whatever faults are drawn), via
 * stop-with-savepoint (three in four) or cancel with a retained checkpoint, in a drawn claim mode.
 *
 * Shrinking: fewer rescales, the parallelism moves toward the run's before (a delta shrinking to
 * 0), the claim mode toward NO_CLAIM (Flink's default), the way toward stop-with-savepoint.
 */
import fc from 'fast-check';
import type { Action } from '../../sim/run/RunSpec.ts';

/** One drawn rescale, before it is fitted to a spec's parallelism. */
export interface DrawnRescale {
  readonly when: Action['when'];
  /** Added to the parallelism of the run before, then clamped to 1..the limit. */
  readonly delta: number;
  readonly via: 'stop-with-savepoint' | 'cancel';
  readonly claimMode: 'NO_CLAIM' | 'CLAIM' | 'LEGACY';
}

/** Rescales for a job expected to run about `spanMs`, at most `maxParallelism` per operator. */
export function rescaleArbitrary(o: { readonly spanMs: number; readonly maxParallelism: number }): fc.Arbitrary<DrawnRescale[]> {
  const span = o.spanMs;
  const when: fc.Arbitrary<Action['when']> = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.round(span * 0.15), max: Math.round(span * 0.6) }).map((atMs) => ({ atMs })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((checkpoint) => ({ at: { kind: 'jobmaster' as const, checkpoint, phase: 'completed' as const } })) },
  );
  const one = fc.record({
    when,
    delta: fc.integer({ min: -(o.maxParallelism - 1), max: o.maxParallelism - 1 }),
    via: fc.constantFrom('stop-with-savepoint' as const, 'stop-with-savepoint' as const, 'stop-with-savepoint' as const, 'cancel' as const),
    claimMode: fc.constantFrom('NO_CLAIM' as const, 'CLAIM' as const, 'LEGACY' as const),
  });
  return fc.record({ on: fc.integer({ min: 0, max: 3 }), rescales: fc.array(one, { minLength: 1, maxLength: 2 }) })
    .map(({ on, rescales }) => (on === 3 ? rescales : []));
}

/**
 * The rescale actions of `drawn` for a first run at `parallelism` (one number for every
 * operator), each at most `limit`: a second rescale fires in the run the first started (its point
 * trigger names that run, jobRun 2; a drawn time becomes "when that run is RUNNING").
 */
export function rescaleActions(drawn: readonly DrawnRescale[], parallelism: number, limit: number): Action[] {
  let p = parallelism;
  return drawn.map((r, i): Action => {
    p = Math.min(limit, Math.max(1, p + r.delta));
    let when = r.when;
    if (i > 0) {
      // The second rescale fires in the run the first one started, as a user's second rescale
      // follows the first: when that run is RUNNING, or at its point (a drawn time would be a time of the
      // whole history, and could fire in the first run while its stop or cancel is still under
      // way: two rescales at once, whose cancel restores from a checkpoint older than the other's
      // committed savepoint, duplicates the user caused, not the engine).
      when = 'atMs' in when
        ? { at: { kind: 'job', status: 'RUNNING', jobRun: i + 1 } }
        : { at: { ...when.at, jobRun: i + 1 } as typeof when.at };
    }
    return {
      type: 'rescale', when, parallelism: p,
      ...(r.via === 'cancel' ? { via: 'cancel' as const } : {}),
      ...(r.claimMode === 'NO_CLAIM' ? {} : { claimMode: r.claimMode }),
    };
  });
}
