/**
 * The search strategies of explore: how each run's faults and schedule are drawn.
 *
 * - `uniform`, the baseline: 0..maxFaults faults, each from the union of every fault family
 *   (uniformFaultPlanArbitrary.ts), no family switched on or off per run.
 * - `swarm`: per run, whole fault families on or off, the ones on pushed hard
 *   (faultPlanArbitrary, FoundationDB's swarm testing); what explore drew before strategies.
 * - `pct`: swarm's faults, and a PCT schedule of the order decisions (`RunSpec.pct`,
 *   sim/PctScheduler.ts): each lane keeps a priority until one of 1..3 change points.
 * - `targeted`: one fault, sometimes two or three, exactly at a protocol point of a chosen
 *   checkpoint, the first few or the last few of the run (targetedFaultArbitrary.ts).
 * - `mixed`, the default: per run one of the four, weighted by {@link MIXED_WEIGHTS}.
 *
 * Every strategy draws the rest of the run (job, parallelism, checkpointing, overrides,
 * savepoints, stops, rescales) alike.
 */

/** The strategies one run is drawn by. */
export const RUN_STRATEGIES = ['uniform', 'swarm', 'pct', 'targeted'] as const;
export type RunStrategy = (typeof RUN_STRATEGIES)[number];

/** What `explore --strategy` takes: one run strategy for every run, or `mixed`. */
export const EXPLORE_STRATEGIES = ['mixed', ...RUN_STRATEGIES] as const;
export type ExploreStrategy = (typeof EXPLORE_STRATEGIES)[number];

/** explore's strategy when none is given. */
export const DEFAULT_EXPLORE_STRATEGY: ExploreStrategy = 'mixed';

/**
 * How often `mixed` draws each strategy (relative weights). Measured on the planted bugs (runs to
 * the first violation per bug and strategy, docs/strategies.md): swarm finds most of them
 * soonest and stays the backbone; targeted catches the bugs that need one fault at one step of
 * one checkpoint in a handful of runs where swarm needs hundreds; pct adds orders the seeded
 * draws rarely make; uniform, the baseline, finds nothing the others miss.
 */
export const MIXED_WEIGHTS: Readonly<Record<RunStrategy, number>> = {
  uniform: 1, swarm: 4, pct: 2, targeted: 3,
};

/** One line per strategy, for `explore --help`. */
export const STRATEGY_HELP: Readonly<Record<ExploreStrategy, string>> = {
  mixed: `per run one of the others, weighted ${RUN_STRATEGIES.map((s) => `${s} ${MIXED_WEIGHTS[s]}`).join(', ')} (default)`,
  uniform: 'up to 6 faults, each from every fault family alike (the baseline)',
  swarm: 'per run whole fault families on or off, the ones on pushed hard',
  pct: 'swarm\'s faults and a PCT schedule: lanes ranked by priority, 1 to 3 change points',
  targeted: 'one fault (sometimes 2 or 3) exactly at a protocol point of one of the first or last checkpoints',
};

/** Whether `s` names an explore strategy. */
export function isExploreStrategy(s: unknown): s is ExploreStrategy {
  return typeof s === 'string' && (EXPLORE_STRATEGIES as readonly string[]).includes(s);
}
