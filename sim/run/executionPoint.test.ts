/**
 * Execution points (`{ kind: 'execution', state, task?, nth?, jobRun? }`): a fault fires right
 * after a task attempt's own ExecutionState change on its TaskExecutor (trace `task.<state>`),
 * before the JobMaster hears of it; nth counts matching attempts across restarts; bad input is
 * refused with one line (scenarios/execution.test.ts has the builder and the phrases).
 */
import { describe, expect, test } from 'vitest';
import { SimInputError } from '../SimInputError.ts';
import type { TraceEvent } from '../Trace.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from './RunSpec.ts';
import { simulate } from './simulate.ts';
import { validateRunSpec } from './validateRunSpec.ts';

const base = (faults: unknown[]): RunSpec => ({
  version: RUN_SPEC_VERSION, seed: 'execution-point', job: { kind: 'flights', selection: { from: 0, to: 200 } },
  parallelism: 2, taskManagers: 2, slotsPerTaskManager: 2, checkpoint: { mode: 'aligned', intervalMs: 20 },
  faults: faults as Fault[], healTimeMs: 400, budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
});

const of = (task: string) => (e: TraceEvent): boolean => String(e.attrs['task']).startsWith(`${task}@`);

test('a pause at a task FINISHED fires right after that task finished, on the TaskManager it ran on', () => {
  const r = simulate(base([{ type: 'pause', host: 'v0#1', durationMs: 5, when: { at: { kind: 'execution', state: 'FINISHED', task: 'v0#1' } } }]));
  const finished = r.trace.findIndex((e) => e.type === 'task.finished' && of('v0#1')(e));
  const pause = r.trace.findIndex((e) => e.type === 'host.pause');
  expect(finished).toBeGreaterThanOrEqual(0);
  // Right after the task that recorded task.finished: in between only that task's own events
  // (its report of FINISHED leaving for the JobMaster), at the same instant, on the same host.
  const deployed = r.trace.filter((e) => e.type === 'task.deploying' && of('v0#1')(e)).at(-1);
  const between = r.trace.slice(finished + 1, pause).filter((e) => e.host !== 'sim');
  expect(between.map((e) => [e.type, e.host, e.timeUs]))
    .toEqual([['rpc.send', deployed?.host, r.trace[finished]?.timeUs]]);
  expect(between[0]?.attrs['method']).toBe('updateTaskExecutionState');
  expect(r.trace[pause]?.timeUs).toBe(r.trace[finished]?.timeUs);
  expect(r.trace[pause]?.host).toBe(deployed?.host);
  expect(r.unfiredFaults).toEqual([]);
});

test('nth counts attempts across a restart: RUNNING the 2nd time is after the failover', () => {
  const r = simulate(base([
    { type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } },
    { type: 'pause', host: 'taskmanager-1', durationMs: 1, when: { at: { kind: 'execution', state: 'RUNNING', task: 'v1#0', nth: 2 } } },
  ]));
  const running = r.trace.filter((e) => e.type === 'task.running' && of('v1#0')(e));
  expect(running.length).toBeGreaterThanOrEqual(2);
  const pause = r.trace.find((e) => e.type === 'host.pause');
  expect(pause?.timeUs).toBe(running[1]?.timeUs);
  expect(String(running[1]?.attrs['task'])).not.toBe(String(running[0]?.attrs['task']));
  // A point that no attempt reaches (a third RUNNING without a third deployment) never fires.
  const never = simulate(base([{ type: 'pause', host: 'taskmanager-1', durationMs: 1,
    when: { at: { kind: 'execution', state: 'RUNNING', task: 'v1#0', nth: 2 } } }]));
  expect(never.unfiredFaults).toEqual([0]);
});

describe('bad execution points are refused with one line', () => {
  const pauseAt = (at: unknown): unknown => ({ type: 'pause', host: 'taskmanager-1', durationMs: 1, when: { at } });
  const refusal = (spec: RunSpec, run = false): string => {
    try {
      if (run) simulate(spec);
      else validateRunSpec(spec);
    } catch (e) {
      expect(e).toBeInstanceOf(SimInputError);
      return (e as Error).message;
    }
    throw new Error('expected a SimInputError');
  };
  test.each([
    ['an unknown state', { kind: 'execution', state: 'DONE' },
      'faults[0].when.at.state: unknown ExecutionState "DONE" (states: DEPLOYING, INITIALIZING, RUNNING, CANCELING, FINISHED, CANCELED, FAILED)'],
    ['a state only the JobMaster has', { kind: 'execution', state: 'SCHEDULED' },
      'faults[0].when.at.state: no task enters SCHEDULED on its TaskExecutor (only the JobMaster\'s view of an attempt has it; '
      + 'states: DEPLOYING, INITIALIZING, RUNNING, CANCELING, FINISHED, CANCELED, FAILED)'],
    ['an attempt id as the task', { kind: 'execution', state: 'FINISHED', task: 'v1#0@0' },
      'faults[0].when.at.task: must name a task as <vertex>#<subtask> (e.g. v1#0), got "v1#0@0"'],
    ['nth 0', { kind: 'execution', state: 'FINISHED', nth: 0 }, 'faults[0].when.at.nth: must be an integer >= 1, got 0'],
  ])('%s', (_name, at, message) => {
    expect(refusal(base([pauseAt(at)]))).toBe(message);
  });
  test('a task the job does not have', () => {
    expect(refusal(base([pauseAt({ kind: 'execution', state: 'FINISHED', task: 'v9#0' })]), true))
      .toBe('faults[0].when.at.task: no task v9#0 in this job (tasks: v0#0, v0#1, v1#0, v1#1)');
  });
});
