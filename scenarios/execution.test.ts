/** `execution.reaches`: the point it builds, its notation, the fault phrase, and bad input. */
import { expect, test } from 'vitest';
import { describePoint } from '../properties/describeFault.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import { execution } from './execution.ts';
import { notation } from './notation.ts';

test('the scenario builder, its notation and the fault phrase name the point', () => {
  const point = execution.reaches('FINISHED', { task: 'v0#1', nth: 2 });
  expect(point).toEqual({ kind: 'execution', state: 'FINISHED', task: 'v0#1', nth: 2 });
  expect(execution.reaches('RUNNING')).toEqual({ kind: 'execution', state: 'RUNNING' });
  expect(notation.point(point)).toBe("execution.reaches('FINISHED', { task: 'v0#1', nth: 2 })");
  expect(describePoint(point)).toBe('the 2nd attempt of v0#1 entering FINISHED');
  expect(describePoint({ kind: 'execution', state: 'FINISHED', nth: 2 })).toBe('the 2nd attempt of any task entering FINISHED');
  expect(describePoint({ kind: 'execution', state: 'FINISHED', task: 'v0#1' })).toBe('v0#1 FINISHED');
  expect(describePoint({ kind: 'execution', state: 'FAILED', jobRun: 2 })).toBe('a task FAILED of job run 2');
  expect(execution.reaches('FAILED', { jobRun: 2 })).toEqual({ kind: 'execution', state: 'FAILED', jobRun: 2 });
  expect(notation.point(execution.reaches('FAILED', { task: 'v1#0', jobRun: 2 }))).toBe("execution.reaches('FAILED', { task: 'v1#0', jobRun: 2 })");
  // From untyped code: a state only the JobMaster has, a typo, an unknown option, a bad jobRun.
  const untyped = execution.reaches as (state: string, options?: Record<string, unknown>) => unknown;
  expect(() => untyped('SCHEDULED')).toThrow(new SimInputError('execution.reaches: no task enters SCHEDULED on its TaskExecutor '
    + '(only the JobMaster\'s view of an attempt has it; states: DEPLOYING, INITIALIZING, RUNNING, CANCELING, FINISHED, CANCELED, FAILED)'));
  expect(() => untyped('DONE')).toThrow(/^execution.reaches: unknown ExecutionState "DONE" \(states: DEPLOYING, /);
  expect(() => untyped('FINISHED', { tsak: 'v0#0' })).toThrow(new SimInputError('execution.reaches(FINISHED): unknown option "tsak" (options: task, nth, jobRun)'));
  expect(() => untyped('FINISHED', { jobRun: 0 })).toThrow(/jobRun is an integer >= 1/);
  expect(() => execution.reaches('FINISHED', { task: 'source' })).toThrow(/name a task as <vertex>#<subtask>/);
  expect(() => execution.reaches('FINISHED', { nth: 0 })).toThrow(/nth is an integer >= 1/);
});
