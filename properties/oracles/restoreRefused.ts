/**
 * A history whose latest job run was refused at its submission: its snapshot could not be
 * restored into the new job (`jm.restoreFailed`: Flink fails the submission, for example a
 * StateAssignmentError "Can not restore vertex ... which contain mixed operator finished state"
 * when a rescale changes the chaining of operators that were partly finished). A documented Flink
 * outcome, not a harness failure: the history ends where the run before it ended (its
 * stop-with-savepoint, or its cancel), and the oracles judge it there. Read from the trace only.
 */
import { jobRunOf } from '../../engine/index.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';

/** The refusal of the latest job run's restore (its reason and the rescale that submitted it), if any. */
export function restoreRefused(result: RunResult): { readonly reason: string; readonly action: number | undefined } | undefined {
  const latest = result.jobRuns.length;
  if (latest <= 1) return undefined;
  const e = result.trace.find((x) => x.type === 'jm.restoreFailed' && jobRunOf(x.attrs) === latest);
  if (e === undefined) return undefined;
  return { reason: String(e.attrs['reason']), action: result.jobRuns[latest - 1]?.action };
}
