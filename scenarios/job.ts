/**
 * `job.reaches(status, { nth, jobRun })`: the point "the job reached this JobStatus for the nth
 * time" (default the first; trace `job.status`), in any job run or only in `jobRun` (1 = the
 * first). Statuses are Flink's JobStatus names, those the model's job enters: RUNNING,
 * RESTARTING, FAILED, FINISHED.
 * @throws SimInputError for an unknown status, an unknown option, or an nth or jobRun that is not
 *   an integer >= 1.
 */
import { checkBuilderOptions } from './builderOptions.ts';
import { JOB_POINT_STATUSES } from '../sim/run/schema/faultSchema.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

/** The JobStatus names a job point may wait for: the ones the model's job enters (the RunSpec's). */
const STATUSES: readonly string[] = JOB_POINT_STATUSES;

const OPTIONS: readonly string[] = ['nth', 'jobRun'];

/** Options of job.reaches. */
export interface JobPointOptions {
  /** Which time the job reaches the status (default 1). */
  readonly nth?: number;
  /** Only in this job run (1 = the first); absent: any run. */
  readonly jobRun?: number;
}

export const job = {
  reaches(status: string, options: JobPointOptions = {}): ScenarioPoint {
    if (!STATUSES.includes(status)) {
      throw new SimInputError(`job.reaches: unknown job status ${JSON.stringify(status)} (statuses: ${STATUSES.join(', ')})`);
    }
    checkBuilderOptions(`job.reaches(${status})`, options, OPTIONS);
    const { nth = 1, jobRun } = options;
    for (const [name, v] of [['nth', nth], ['jobRun', jobRun ?? 1]] as const) {
      if (!Number.isSafeInteger(v) || v < 1) throw new SimInputError(`job.reaches(${status}, { ${name}: ${String(v)} }): ${name} is an integer >= 1`);
    }
    const known = status as typeof JOB_POINT_STATUSES[number];
    return { kind: 'job', status: known, ...(nth === 1 ? {} : { nth }), ...(jobRun === undefined ? {} : { jobRun }) };
  },
};
