import { expect, test } from 'vitest';
import { SimInputError } from '../SimInputError.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from './RunSpec.ts';
import { simulate } from './simulate.ts';

const base = (faults: Fault[]): RunSpec => ({
  version: RUN_SPEC_VERSION, seed: 'task-host', job: { kind: 'flights', selection: { from: 0, to: 200 } }, parallelism: 2,
  taskManagers: 2, slotsPerTaskManager: 1, checkpoint: { mode: 'aligned', intervalMs: 20 }, faults, healTimeMs: 150,
  budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
});

/** The host of the latest `task.deploying` of `task` (`<vertex>#<subtask>`) before `timeUs`. */
function deployedOn(trace: ReturnType<typeof simulate>['trace'], task: string, timeUs: number): string | undefined {
  return trace.filter((e) => e.type === 'task.deploying' && e.timeUs <= timeUs && String(e.attrs['task']).startsWith(`${task}@`)).at(-1)?.host;
}

test('a crash naming a task crashes the TaskManager that runs it when the fault fires', () => {
  // With one slot per TaskManager, v1#0 and v1#1 are on different hosts.
  const crashed: string[] = [];
  for (const task of ['v1#0', 'v1#1']) {
    const r = simulate(base([{ type: 'crash', host: task, downMs: 20, when: { at: { kind: 'task', checkpoint: 2, phase: 'acked', task } } }]));
    const crash = r.trace.find((e) => e.type === 'host.crash');
    expect(crash, task).toBeDefined();
    expect(crash?.host).toBe(deployedOn(r.trace, task, crash?.timeUs ?? 0));
    crashed.push(crash?.host ?? '');
    expect(r.faults.map((f) => f.action)).toEqual(['crash', 'restart']);
    expect(r.unfiredFaults).toEqual([]);
    expect(r.jobStatus).toBe('FINISHED');
  }
  expect(new Set(crashed).size).toBe(2);
});

test('a pause naming a task pauses its TaskManager; one fired before the task was deployed does nothing', () => {
  const paused = simulate(base([{ type: 'pause', host: 'v0#1', durationMs: 5, when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } }]));
  const pause = paused.trace.find((e) => e.type === 'host.pause');
  expect(pause?.host).toBe(deployedOn(paused.trace, 'v0#1', pause?.timeUs ?? 0));
  // At time 0 nothing is deployed yet: the crash is skipped and counts as never fired.
  const early = simulate(base([{ type: 'crash', host: 'v0#0', when: { atMs: 0 } }]));
  expect(early.faults.map((f) => f.action)).toEqual(['skipped']);
  expect(early.unfiredFaults).toEqual([0]);
  expect(early.trace.some((e) => e.type === 'host.crash')).toBe(false);
});

test('a crash naming a task the job lacks, or a host that does not exist, is refused with one line', () => {
  expect(() => simulate(base([{ type: 'crash', host: 'v7#0', when: { atMs: 10 } }])))
    .toThrow(new SimInputError('faults[0].host: no task v7#0 in this job (tasks: v0#0, v0#1, v1#0, v1#1)'));
  expect(() => simulate(base([{ type: 'pause', host: 'taskmanager-9', durationMs: 1, when: { atMs: 10 } }])))
    .toThrow('faults[0].host: unknown host "taskmanager-9" (hosts: jobmanager, taskmanager-1, taskmanager-2; or a task');
});
