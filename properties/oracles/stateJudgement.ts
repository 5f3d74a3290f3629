/**
 * Whether an output oracle judged a run's final keyed state, and if not, why. An oracle that
 * could not judge the state says so here instead of passing silently (issue 12, "Fidelity"):
 * explore counts such runs per mode and per reason (`stateUnjudged`), and a reader of a verdict
 * can tell "the state matched" from "the state was not looked at".
 *
 * Reasons are short stable codes, so reports can count them across versions; `detail` is a line
 * for people and may change.
 */

/** Why the final keyed state of a run was not judged. */
export type StateUnjudgedReason =
  /**
   * A non-forward edge follows a keyed operator, so the state's duplicates need not be the
   * output's, and the trace holds no evidence of what the keyed stages read (the run did not
   * trace it: ClusterConfiguration.traceKeyedInputs).
   */
  | 'duplicates-after-keyed-state'
  /** The trace's evidence of what the keyed stages read is incomplete or inconsistent. */
  | 'evidence-incomplete'
  /** Duplicates that show only in the state: the search for a set that explains them ran out. */
  | 'hidden-search-inconclusive'
  /** The job did not finish, so no output oracle ran (liveness judges such runs). */
  | 'job-not-finished'
  /** The job's judging (JobJudging.state) says `off` for every keyed operator. */
  | 'judging-off'
  /** The output oracle was left out by the caller (`skip`). */
  | 'oracle-skipped';

/** Every reason, in a fixed order (for reports that list them all). */
export const STATE_UNJUDGED_REASONS: readonly StateUnjudgedReason[] = [
  'duplicates-after-keyed-state', 'evidence-incomplete', 'hidden-search-inconclusive', 'job-not-finished',
  'judging-off', 'oracle-skipped',
];

/** The verdict on the keyed state: judged, or not judged with a reason and a line for people. */
export type StateJudgement =
  | { readonly judged: true }
  | { readonly judged: false; readonly reason: StateUnjudgedReason; readonly detail: string };

/** The judgement of a state that was compared (whether it matched or not). */
export const STATE_JUDGED: StateJudgement = Object.freeze({ judged: true });

/** A state left unjudged for `reason`, explained by `detail`. */
export function stateUnjudged(reason: StateUnjudgedReason, detail: string): StateJudgement {
  return { judged: false, reason, detail };
}
