/**
 * inputRecordsOf: how many input records a RunSpec's job reads, the "records" of a repro's size
 * on the scoreboard (`mutants run`): every split's records, as the job resolves its input (a
 * flights selection, the wordcount lines, a generated job's inline records, a job module's input
 * at its drawn size).
 */
import { resolveJob } from '../../sim/jobs/resolveJob.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';

/** The number of input records of `spec`'s job, over all its splits. */
export function inputRecordsOf(spec: RunSpec): number {
  return resolveJob(spec.job).splits.reduce((n, s) => n + s.records.length, 0);
}
