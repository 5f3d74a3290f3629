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
  expect(describePoint(point)).toBe('v0#1 FINISHED the 2nd time');
  expect(describePoint({ kind: 'execution', state: 'FAILED', jobRun: 2 })).toBe('a task FAILED of job run 2');
  expect(() => execution.reaches('SCHEDULED')).toThrow(SimInputError);
  expect(() => execution.reaches('FINISHED', { task: 'source' })).toThrow(/name a task as <vertex>#<subtask>/);
  expect(() => execution.reaches('FINISHED', { nth: 0 })).toThrow(/nth is an integer >= 1/);
});
