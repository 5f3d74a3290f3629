/**
 * The operators the reference fold must skip in a run's graph: a job module may turn judging
 * off for operators the fold cannot run (timers, broadcast inputs) and everything only they
 * feed (judgeability.ts). `simulate` records the set for each graph it runs; the fold
 * (properties/referenceFold.ts) reads it when its caller gives none, so every oracle folds the
 * same job the same way without each one being told.
 */
import type { StreamGraph } from '../../engine/index.ts';

const skips = new WeakMap<StreamGraph, ReadonlySet<string>>();

/** Records `uids` (no-op when empty) as the operators F skips in `graph`. */
export function registerFoldSkips(graph: StreamGraph, uids: ReadonlySet<string>): void {
  if (uids.size > 0) skips.set(graph, uids);
}

/** The operators F skips in `graph` (empty unless recorded). */
export function foldSkipsOf(graph: StreamGraph): ReadonlySet<string> | undefined {
  return skips.get(graph);
}
