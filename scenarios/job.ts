/**
 * `job.reaches(status, { nth })`: the point "the job reached this JobStatus for the nth time"
 * (default the first; trace `job.status`). Statuses are Flink's JobStatus names, those the
 * model's job enters: RUNNING, RESTARTING, FAILED, FINISHED.
 * @throws SimInputError for an unknown status or an nth that is not an integer >= 1.
 */
import { JOB_POINT_STATUSES } from '../sim/run/schema/faultSchema.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

/** The JobStatus names a job point may wait for: the ones the model's job enters (the RunSpec's). */
const STATUSES: readonly string[] = JOB_POINT_STATUSES;

export const job = {
  reaches(status: string, options: { readonly nth?: number } = {}): ScenarioPoint {
    if (!STATUSES.includes(status)) {
      throw new SimInputError(`job.reaches: unknown job status ${JSON.stringify(status)} (statuses: ${STATUSES.join(', ')})`);
    }
    const nth = options.nth ?? 1;
    if (!Number.isSafeInteger(nth) || nth < 1) throw new SimInputError(`job.reaches(${status}, { nth: ${String(nth)} }): nth is an integer >= 1`);
    const known = status as typeof JOB_POINT_STATUSES[number];
    return nth === 1 ? { kind: 'job', status: known } : { kind: 'job', status: known, nth };
  },
};
