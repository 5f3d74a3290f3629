/**
 * Every scenario builder that takes an options object refuses a misspelt option (tsx and vitest do
 * not type-check, so it would otherwise be dropped and the scenario would test something else).
 */
import { expect, test } from 'vitest';
import { SimInputError } from '../sim/SimInputError.ts';
import { checkpoint } from './checkpoint.ts';
import { crash } from './crash.ts';
import { execution } from './execution.ts';
import { expect as scenarioExpect } from './expect.ts';
import { job } from './job.ts';
import { partition } from './partition.ts';
import { rescale } from './rescale.ts';
import { restoreFrom } from './restoreFrom.ts';
import { stopWithSavepoint } from './stopWithSavepoint.ts';
import { triggerSavepoint } from './triggerSavepoint.ts';

type Untyped = (...args: unknown[]) => unknown;
const call = (f: unknown, ...args: unknown[]): unknown => (f as Untyped)(...args);

test.each([
  ['restoreFrom(2)', () => call(restoreFrom, 2, { nht: 1 }), 'nht', 'nth'],
  ['checkpoint(3)', () => call(checkpoint, 3, { jbRun: 2 }), 'jbRun', 'jobRun'],
  ['stopWithSavepoint()', () => call(stopWithSavepoint, { drian: true }), 'drian', 'drain, format'],
  ['triggerSavepoint()', () => call(triggerSavepoint, { fromat: 'native' }), 'fromat', 'format'],
  ['crash("taskmanager-1")', () => call(crash, 'taskmanager-1', { dwnMs: 5 }), 'dwnMs', 'downMs'],
  ['expect.restoredFrom(2)', () => call(scenarioExpect.restoredFrom, 2, { nht: 1 }), 'nht', 'nth'],
  ['job.reaches(RUNNING)', () => call(job.reaches, 'RUNNING', { nht: 1 }), 'nht', 'nth, jobRun'],
  ['rescale(2)', () => call(rescale, 2, { vai: 'cancel' }), 'vai', 'via, claimMode'],
  ['partition("taskmanager-1", "jobmanager")', () => call(partition, 'taskmanager-1', 'jobmanager', { durationMs: 20, oenWay: true }), 'oenWay', 'durationMs, oneWay'],
  ['execution.reaches(FINISHED)', () => call(execution.reaches, 'FINISHED', { tsak: 'v0#0' }), 'tsak', 'task, nth, jobRun'],
])('%s refuses a misspelt option', (name, f, key, options) => {
  expect(f).toThrow(new SimInputError(`${name}: unknown option "${key}" (options: ${options})`));
});

test('null or an array in place of the options object is refused with one line, not a TypeError', () => {
  expect(() => call(job.reaches, 'RUNNING', null)).toThrow(new SimInputError('job.reaches(RUNNING): options must be an object such as { nth: ... }, got null'));
  expect(() => call(stopWithSavepoint, [true])).toThrow(/^stopWithSavepoint\(\): options must be an object such as \{ drain: \.\.\. \}, got an array$/);
  expect(() => call(crash, 'taskmanager-1', 5)).toThrow(/got number$/);
});

test('the spelt options still build what they did', () => {
  expect(restoreFrom(2, { nth: 2 })).toEqual({ kind: 'restore', checkpoint: 2, nth: 2 });
  expect(stopWithSavepoint({ drain: true })).toEqual({ type: 'stop-with-savepoint', drain: true });
  expect(triggerSavepoint({ format: 'native' })).toEqual({ type: 'savepoint', format: 'native' });
  expect(crash('taskmanager-1', { downMs: 5 })).toEqual({ type: 'crash', host: 'taskmanager-1', downMs: 5 });
  expect(rescale(2, { via: 'cancel' })).toEqual({ type: 'rescale', parallelism: 2, via: 'cancel' });
  expect(partition('taskmanager-1', 'jobmanager', { durationMs: 20, oneWay: true }))
    .toEqual({ type: 'partition', a: 'taskmanager-1', b: 'jobmanager', oneWay: true, durationMs: 20 });
  expect(scenarioExpect.restoredFrom(2)).toEqual({ kind: 'restoredFrom', checkpoint: 2 });
  expect(checkpoint(3, { jobRun: 2 }).completed()).toMatchObject({ checkpoint: 3, jobRun: 2 });
});
