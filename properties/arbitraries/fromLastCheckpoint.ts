/**
 * Checkpoint ids drawn relative to the end of a run: the last checkpoints of a run are the ones
 * finishing tasks wait for (their final checkpoint, reference 5.7), and losing or holding the
 * notification of the last one before tasks finish is a schedule a draw from the start (1..8, 1..12)
 * rarely makes, because a generated run's length depends on its input and interval (from a few
 * checkpoints to about twenty).
 *
 * A fault is drawn before the run's length is known, so {@link checkpointArbitrary} draws either
 * an id from the start or a placeholder `-k` (k = 0..MAX_BACK: the k-th checkpoint before the
 * last), and {@link resolveFromLast} turns placeholders into ids once the spec's source pacing is
 * set. It also moves the heal time past the last checkpoint when a placeholder was drawn: faults
 * act only before the heal time, and a paced input spans about a second against a heal time of
 * 600 ms, so without it no fault aimed at the end of a long run could ever fire.
 */
import fc from 'fast-check';
import type { Action, Fault, RunSpec } from '../../sim/run/RunSpec.ts';

/** How far back from the last checkpoint a placeholder reaches: -MAX_BACK..0. */
export const MAX_BACK = 2;

/**
 * A checkpoint id: from the start (1..`max`) `fromStart` times in `fromStart + fromLast`, else a
 * placeholder -2..0 counted back from the run's last checkpoint (0: the last), which shrinks
 * toward the last.
 */
export function checkpointArbitrary(max: number, weights: { readonly fromStart: number; readonly fromLast: number }): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: weights.fromStart, arbitrary: fc.integer({ min: 1, max }) },
    { weight: weights.fromLast, arbitrary: fc.integer({ min: -MAX_BACK, max: 0 }) },
  );
}

/** The checkpoint fields a drawn fault or action may hold a placeholder in. */
type WithCheckpoint = { readonly checkpoint?: number };
type WithPoint = { readonly when?: { readonly at?: WithCheckpoint } | { readonly atMs: number } };

const placeholder = (id: number | undefined): boolean => id !== undefined && id <= 0;

function pointOf(x: WithPoint): WithCheckpoint | undefined {
  const when = x.when;
  return when !== undefined && 'at' in when ? when.at : undefined;
}

/** True if `x` (a fault or an action) holds a placeholder in its checkpoint filter or its point. */
function holdsPlaceholder(x: Fault | Action): boolean {
  return placeholder((x as WithCheckpoint).checkpoint) || placeholder(pointOf(x as WithPoint)?.checkpoint);
}

/** `x` with its placeholders replaced by ids counted back from `last` (at least 1). */
function resolved<T extends Fault | Action>(x: T, last: number): T {
  const id = (v: number | undefined): number | undefined => (placeholder(v) ? Math.max(1, last + (v ?? 0)) : v);
  const own = (x as WithCheckpoint).checkpoint;
  const at = pointOf(x as WithPoint);
  return {
    ...x,
    ...(placeholder(own) ? { checkpoint: id(own) } : {}),
    ...(at !== undefined && placeholder(at.checkpoint) ? { when: { at: { ...at, checkpoint: id(at.checkpoint) } } } : {}),
  };
}

/**
 * `spec` with every placeholder of its faults and actions resolved against `lastOf()`, the
 * estimate of its last checkpoint id (asked only when a placeholder is there), and its heal time
 * moved to at least `1.5 * (last + 1)` intervals: one interval after that checkpoint is due in a
 * healthy run, and half as much again, because faults make runs longer (a failover stops the
 * checkpoint scheduler, so later ids come later). Unchanged when it holds none.
 */
export function resolveFromLast(spec: RunSpec, lastOf: () => number): RunSpec {
  const actions = spec.actions ?? [];
  if (!spec.faults.some(holdsPlaceholder) && !actions.some(holdsPlaceholder)) return spec;
  const last = lastOf();
  const healTimeMs = Math.max(spec.healTimeMs, Math.round(1.5 * (last + 1) * spec.checkpoint.intervalMs));
  return {
    ...spec,
    faults: spec.faults.map((f) => resolved(f, last)),
    ...(spec.actions === undefined ? {} : { actions: actions.map((a) => resolved(a, last)) }),
    healTimeMs,
  };
}
