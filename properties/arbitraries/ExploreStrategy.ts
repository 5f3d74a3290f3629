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
 * How often `mixed` draws each strategy (relative weights), chosen from the planted bugs' kill
 * rates per strategy (the share of a strategy's runs that violate a property with the bug on;
 * docs/strategies.md has the table): the weights that minimise the expected runs to kill the
 * whole catalogue, summed over the bugs. Targeted is alone in reaching fm-count-past-checkpoints
 * and four times as quick as the others on restore-handle-replaces; uniform, whose runs carry
 * the most fault families, is the quickest on the failure manager's and the discard's bugs;
 * swarm reaches what needs one family pushed hard (plan-terminal-as-finished, failover-keeps-
 * pending in generated jobs). pct gets the least: with swarm's faults it killed what swarm
 * killed, no more, on this catalogue, whose bugs need a fault rather than an order; it stays in
 * the mix for the bugs that need an order the seeded draws rarely make.
 */
export const MIXED_WEIGHTS: Readonly<Record<RunStrategy, number>> = {
  uniform: 3, swarm: 2, pct: 1, targeted: 4,
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
