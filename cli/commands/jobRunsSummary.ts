/**
 * jobRunsSummary: one line saying the job runs of a history of several (a rescale or a restore
 * into a new run), for `run`, `replay` and `scenario run`: each run's parallelism, what it was
 * restored from in which claim mode, and how it ended.
 */
import { describeParallelism } from '../../properties/describeFault.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';

/** What the line needs of a job run (RunResult.jobRuns, ScenarioResult.jobRuns). */
export interface JobRunLine {
  readonly index: number;
  readonly parallelism: Readonly<Record<string, number>>;
  readonly status: string;
  readonly restoredFrom?: { readonly jobRun: number; readonly checkpointId: number; readonly claimMode: string; readonly savepoint: boolean };
}

/**
 * `job runs: 1 at parallelism 4, FINISHED; 2 at parallelism 2 from savepoint 3 of run 1 (NO_CLAIM), FINISHED`,
 * or undefined for a history of one run.
 */
export function jobRunsSummary(r: RunResult): string | undefined {
  return formatJobRuns(r.jobRuns);
}

/** {@link jobRunsSummary} of a list of job runs; undefined for fewer than two. */
export function formatJobRuns(runs: readonly JobRunLine[] | undefined): string | undefined {
  if (runs === undefined || runs.length <= 1) return undefined;
  return `job runs: ${runs.map((run) => {
    const p = describeParallelism(run.parallelism);
    const from = run.restoredFrom === undefined ? ''
      : ` from ${run.restoredFrom.savepoint ? 'savepoint' : 'checkpoint'} ${run.restoredFrom.checkpointId} of run ${run.restoredFrom.jobRun} (${run.restoredFrom.claimMode})`;
    return `${run.index} at ${p}${from}, ${run.status}`;
  }).join('; ')}`;
}
