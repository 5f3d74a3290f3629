/**
 * jobRunsSummary: one line saying the job runs of a history of several (a rescale or a restore
 * into a new run), for `run` and `replay`: each run's parallelism, what it was restored from in
 * which claim mode, and how it ended.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';

/**
 * `job runs: 1 at parallelism 4, FINISHED; 2 at parallelism 2 from savepoint 3 (NO_CLAIM), FINISHED`,
 * or undefined for a history of one run.
 */
export function jobRunsSummary(r: RunResult): string | undefined {
  if (r.jobRuns.length <= 1) return undefined;
  return `job runs: ${r.jobRuns.map((run) => {
    const values = new Set(Object.values(run.parallelism));
    const p = values.size === 1 ? `parallelism ${[...values][0]}` : Object.entries(run.parallelism).map(([u, n]) => `${u} ${n}`).join(', ');
    const from = run.restoredFrom === undefined ? ''
      : ` from ${run.restoredFrom.savepoint ? 'savepoint' : 'checkpoint'} ${run.restoredFrom.checkpointId} of run ${run.restoredFrom.jobRun} (${run.restoredFrom.claimMode})`;
    return `${run.index} at ${p}${from}, ${run.status}`;
  }).join('; ')}`;
}
