/**
 * `job.reaches(status, { nth })`: the point "the job reached this JobStatus for the nth time"
 * (default the first; trace `job.status`). Statuses are Flink's JobStatus names: CREATED,
 * RUNNING, FAILING, FAILED, CANCELLING, CANCELED, FINISHED, RESTARTING, SUSPENDED, RECONCILING,
 * INITIALIZING.
 * @throws SimInputError for an unknown status or an nth that is not an integer >= 1.
 */
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

/** Flink's JobStatus names. */
export const JOB_STATUSES: readonly string[] = [
  'INITIALIZING', 'CREATED', 'RUNNING', 'FAILING', 'FAILED', 'CANCELLING', 'CANCELED', 'FINISHED',
  'RESTARTING', 'SUSPENDED', 'RECONCILING',
];

export const job = {
  reaches(status: string, options: { readonly nth?: number } = {}): ScenarioPoint {
    if (!JOB_STATUSES.includes(status)) {
      throw new SimInputError(`job.reaches: unknown job status ${JSON.stringify(status)} (statuses: ${JOB_STATUSES.join(', ')})`);
    }
    const nth = options.nth ?? 1;
    if (!Number.isSafeInteger(nth) || nth < 1) throw new SimInputError(`job.reaches(${status}, { nth: ${String(nth)} }): nth is an integer >= 1`);
    return nth === 1 ? { kind: 'job', status } : { kind: 'job', status, nth };
  },
};
