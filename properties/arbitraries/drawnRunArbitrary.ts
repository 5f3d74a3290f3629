/**
 * drawnRunArbitrary: explore's runs under a search strategy (ExploreStrategy.ts), each with the
 * strategy that drew it, which a repro records (under `mixed`, one of the four per run).
 */
import fc from 'fast-check';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { MIXED_WEIGHTS, RUN_STRATEGIES, type ExploreStrategy, type RunStrategy } from './ExploreStrategy.ts';
import { runSpecArbitrary, type RunSpecArbitraryOptions } from './runSpecArbitrary.ts';

/** A generated run and the strategy that drew it. */
export interface DrawnRun {
  readonly strategy: RunStrategy;
  readonly spec: RunSpec;
}

/**
 * Runs drawn by `strategy`: every run by that one, or with `mixed` per run one of them, weighted
 * by MIXED_WEIGHTS. A run shrinks within the strategy that drew it (fast-check's oneof does not
 * shrink across its arbitraries), so a shrunk run is still one its strategy can draw.
 */
export function drawnRunArbitrary(
  o: Omit<RunSpecArbitraryOptions, 'strategy'> & { readonly strategy: ExploreStrategy },
): fc.Arbitrary<DrawnRun> {
  const by = (strategy: RunStrategy): fc.Arbitrary<DrawnRun> =>
    runSpecArbitrary({ ...o, strategy }).map((spec) => ({ strategy, spec }));
  if (o.strategy !== 'mixed') return by(o.strategy);
  return fc.oneof(...RUN_STRATEGIES.map((s) => ({ arbitrary: by(s), weight: MIXED_WEIGHTS[s] })));
}
