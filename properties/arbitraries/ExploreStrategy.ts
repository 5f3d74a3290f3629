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
 *   checkpoint, the first few or the last few of the run (targetedFaultArbitrary.ts); in one run
 *   in four also a restart window: one TaskManager (of a job of forward regions) or all of them
 *   paused after a task FINISHED until the JobMaster loses them, and a savepoint or stop asked
 *   for at RESTARTING (restartWindowArbitrary.ts).
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
 * How often `mixed` draws each strategy (relative weights), chosen from the strategy table of the
 * 24 planted bugs (`mutants run --compare-strategies --seeds 5`, docs/strategies.md): taking
 * 1 / (median runs to kill) as a strategy's per-run kill rate of a bug, these weights minimise
 * the expected runs to kill the whole catalogue, summed over the bugs, among small integer mixes
 * that keep every strategy (about 1,270 runs, against about 1,650 for uniform alone). pct, with
 * swarm's faults and a schedule, was the quickest on most of the catalogue; each of the others
 * keeps a share for the bugs it alone reaches quickly (targeted: fm-count-past-checkpoints and
 * late-ack-state-leak; uniform: fm-success-before-store; swarm: the coordinator-event valve).
 */
export const MIXED_WEIGHTS: Readonly<Record<RunStrategy, number>> = {
  uniform: 1, swarm: 1, pct: 3, targeted: 1,
};

/** One line per strategy, for `explore --help`. */
export const STRATEGY_HELP: Readonly<Record<ExploreStrategy, string>> = {
  mixed: `per run one of the others, weighted ${RUN_STRATEGIES.map((s) => `${s} ${MIXED_WEIGHTS[s]}`).join(', ')} (default)`,
  uniform: 'up to 6 faults, each from every fault family alike (the baseline)',
  swarm: 'per run whole fault families on or off, the ones on pushed hard',
  pct: 'swarm\'s faults and a PCT schedule: lanes ranked by priority, 1 to 3 change points',
  targeted: 'one fault (sometimes 2 or 3) exactly at a protocol point of one of the first or last checkpoints; '
    + 'in 1 run in 4 also a restart window (a savepoint or stop asked for as the job restarts after a task finished)',
};

/** Whether `s` names an explore strategy. */
export function isExploreStrategy(s: unknown): s is ExploreStrategy {
  return typeof s === 'string' && (EXPLORE_STRATEGIES as readonly string[]).includes(s);
}
