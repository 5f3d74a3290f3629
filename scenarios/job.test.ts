/** `job.reaches`: the point it builds, its notation, and bad input (an unknown option is refused, not ignored). */
import { expect, test } from 'vitest';
import { SimInputError } from '../sim/SimInputError.ts';
import { job } from './job.ts';
import { notation } from './notation.ts';

test('job.reaches builds the job point with nth and jobRun, and its notation names both', () => {
  expect(job.reaches('RESTARTING')).toEqual({ kind: 'job', status: 'RESTARTING' });
  const point = job.reaches('RESTARTING', { nth: 2, jobRun: 1 });
  expect(point).toEqual({ kind: 'job', status: 'RESTARTING', nth: 2, jobRun: 1 });
  expect(notation.point(point)).toBe("job.reaches('RESTARTING', { nth: 2, jobRun: 1 })");
  expect(notation.point(job.reaches('FAILED', { jobRun: 2 }))).toBe("job.reaches('FAILED', { jobRun: 2 })");
});

test('job.reaches refuses an unknown status, an unknown option, and an nth or jobRun below 1', () => {
  const untyped = job.reaches as (status: string, options?: Record<string, unknown>) => unknown;
  expect(() => untyped('DONE')).toThrow(/^job.reaches: unknown job status "DONE" \(statuses: /);
  expect(() => untyped('RESTARTING', { nht: 2 })).toThrow(new SimInputError('job.reaches(RESTARTING): unknown option "nht" (options: nth, jobRun)'));
  expect(() => job.reaches('RESTARTING', { nth: 0 })).toThrow(/nth is an integer >= 1/);
  expect(() => job.reaches('RESTARTING', { jobRun: 1.5 })).toThrow(/jobRun is an integer >= 1/);
});
