/**
 * F over a job's whole input, computed once per StreamGraph object and shared: one judged run
 * needs F(all input) in several oracles (end-to-end, at-least-once, the duplicate count, and
 * consistent cut at every checkpoint whose prefixes are the whole input), and F depends only on
 * the graph. The cache is keyed by graph identity in a WeakMap, so it never outlives the run's
 * RunResult and never iterates (allowed in properties/, not in engine/ or sim/).
 *
 * The shared result must be treated as read-only by every caller (all oracles only read it).
 */
import type { StreamGraph } from '../engine/index.ts';
import { referenceFold, type FoldResult } from './referenceFold.ts';

const folds = new WeakMap<StreamGraph, FoldResult>();

/**
 * `referenceFold(graph)` (no prefixes), computed at most once per graph object.
 * @throws what referenceFold throws (the error is not cached: a second call throws again).
 */
export function sharedReferenceFold(graph: StreamGraph): FoldResult {
  let fold = folds.get(graph);
  if (fold === undefined) {
    fold = referenceFold(graph);
    folds.set(graph, fold);
  }
  return fold;
}
