/**
 * The RunSpec checks of message faults and of the protocol points of issue 13 (restore, job,
 * ack-received, notified): each bad input is refused with one line naming the field path.
 */
import { describe, expect, test } from 'vitest';
import { SimInputError } from '../SimInputError.ts';
import { RUN_SPEC_VERSION, type RunSpec } from './RunSpec.ts';
import { simulate } from './simulate.ts';
import { validateRunSpec } from './validateRunSpec.ts';

/** Flights 0..200 at parallelism 2 (one TaskManager: `jobmanager`, `taskmanager-1`), with `faults`. */
function withFaults(...faults: unknown[]): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'v', job: { kind: 'flights', selection: { from: 0, to: 200 } }, parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 }, faults: faults as RunSpec['faults'], healTimeMs: 100,
    budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
  };
}

/** The one-line message `spec` is refused with (by validation, or by simulate for job tasks). */
function rejection(spec: RunSpec, run = false): string {
  try {
    if (run) simulate(spec);
    else validateRunSpec(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(SimInputError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/\n/);
    return message;
  }
  throw new Error('expected a SimInputError');
}

const lose = (o: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ type: 'message', action: 'lose', method: 'confirmCheckpoint', ...o });
const pauseAt = (at: unknown): Record<string, unknown> =>
  ({ type: 'pause', host: 'taskmanager-1', durationMs: 1, when: { at } });

describe('message fault validation', () => {
  test('accepts every action, the alias of confirmCheckpoint, hosts and tasks as ends, and a trigger', () => {
    expect(() => validateRunSpec(withFaults(
      lose({ method: 'notifyCheckpointComplete', checkpoint: 3, to: 'v1#0', nth: 2, jobRun: 1 }),
      { type: 'message', action: 'delay', method: 'acknowledgeCheckpoint', from: 'v0#1', to: 'jobmanager', delayMs: 0.5 },
      { type: 'message', action: 'hold', method: 'requestHeartbeat', from: 'jobmanager', to: 'taskmanager-1' },
      { type: 'message', action: 'hold', method: 'declineCheckpoint', durationMs: 30,
        when: { at: { kind: 'restore', nth: 1 } } },
    ))).not.toThrow();
  });

  test.each([
    ['an unknown method', lose({ method: 'gossip' }),
      'faults[0].method: unknown RPC method "gossip" (methods: updateTaskExecutionState, offerSlots, '
      + 'heartbeatFromTaskManager, sendOperatorEventToCoordinator, acknowledgeCheckpoint, declineCheckpoint, '
      + 'submitTask, cancelTask, requestSlot, freeSlot, disconnectJobManager, disconnectResourceManager, '
      + 'requestHeartbeat, sendOperatorEventToTask, triggerCheckpoint, confirmCheckpoint, abortCheckpoint, '
      + 'registerTaskExecutor, declareRequiredSlots, notifySlotFree; also notifyCheckpointComplete for confirmCheckpoint)'],
    ['an RPC kind for a method', lose({ method: 'notifyComplete' }), /^faults\[0\]\.method: unknown RPC method "notifyComplete" /],
    ['an unknown action', lose({ action: 'drop' }), 'faults[0].action: must be one of lose, delay, hold, got "drop"'],
    ['an unknown field', lose({ latencyMs: 3 }),
      'faults[0]: unknown field "latencyMs" (fields: type, action, method, checkpoint, from, to, jobRun, nth, delayMs, '
      + 'durationMs, when)'],
    ['an unknown host', lose({ from: 'taskmanager-9' }),
      'faults[0].from: must be a host (jobmanager, taskmanager-1) or a task <vertex>#<subtask> (e.g. v1#0), got "taskmanager-9"'],
    ['an attempt id as a task', lose({ to: 'v1#0@0' }),
      'faults[0].to: must be a host (jobmanager, taskmanager-1) or a task <vertex>#<subtask> (e.g. v1#0), got "v1#0@0"'],
    ['a sending task of a method that names its receiving one', lose({ from: 'v1#0' }),
      'faults[0].from: confirmCheckpoint RPCs name their receiving task only, so from v1#0 would match none'],
    ['a receiving task of an ack', lose({ method: 'acknowledgeCheckpoint', to: 'v1#0' }),
      'faults[0].to: acknowledgeCheckpoint RPCs name their sending task only, so to v1#0 would match none'],
    ['a task of a method that names none', lose({ method: 'requestHeartbeat', to: 'v1#0' }),
      'faults[0].to: requestHeartbeat RPCs name no task, so to v1#0 would match none'],
    ['a checkpoint of a method about none', lose({ method: 'requestHeartbeat', checkpoint: 2 }),
      'faults[0].checkpoint: requestHeartbeat RPCs are about no checkpoint, so none would match (methods with a '
      + 'checkpoint: triggerCheckpoint, acknowledgeCheckpoint, declineCheckpoint, confirmCheckpoint, abortCheckpoint)'],
    ['checkpoint 0', lose({ checkpoint: 0 }), 'faults[0].checkpoint: must be an integer >= 1, got 0'],
    ['nth 0', lose({ nth: 0 }), 'faults[0].nth: must be an integer >= 1, got 0'],
    ['a fractional nth', lose({ nth: 1.5 }), 'faults[0].nth: must be an integer >= 1, got 1.5'],
    ['jobRun 0', lose({ jobRun: 0 }), 'faults[0].jobRun: must be an integer >= 1, got 0'],
    ['a delay without delayMs', lose({ action: 'delay' }), 'faults[0].delayMs: is required for action delay'],
    ['a delay of 0', lose({ action: 'delay', delayMs: 0 }), 'faults[0].delayMs: must be a number of ms above 0, got 0'],
    ['a negative delay', lose({ action: 'delay', delayMs: -1 }), 'faults[0].delayMs: must be a number of ms above 0, got -1'],
    ['delayMs on a lose', lose({ delayMs: 5 }), 'faults[0].delayMs: only for action delay, got action lose'],
    ['durationMs on a delay', lose({ action: 'delay', delayMs: 5, durationMs: 5 }),
      'faults[0].durationMs: only for action hold, got action delay'],
    ['a trigger at the heal time', lose({ when: { atMs: 100 } }),
      'faults[0].when.atMs: must be before healTimeMs (100), got 100: faults stop at the heal time'],
  ])('refuses %s with one line', (_what, fault, message) => {
    const got = rejection(withFaults(fault));
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });

  test('a task the job does not have is refused before the run, naming the tasks', () => {
    expect(rejection(withFaults(lose({ to: 'v7#0' })), true))
      .toBe('faults[0].to: no task v7#0 in this job (tasks: v0#0, v0#1, v1#0, v1#1)');
    expect(rejection(withFaults({ type: 'message', action: 'lose', method: 'acknowledgeCheckpoint', from: 'v1#2' }), true))
      .toBe('faults[0].from: no task v1#2 in this job (tasks: v0#0, v0#1, v1#0, v1#1)');
  });
});

describe('protocol point validation (restore, job, ack-received, notified)', () => {
  test('accepts the new points', () => {
    expect(() => validateRunSpec(withFaults(
      pauseAt({ kind: 'restore' }), pauseAt({ kind: 'restore', nth: 2, checkpoint: 3 }),
      pauseAt({ kind: 'job', status: 'RUNNING', nth: 2 }), pauseAt({ kind: 'job', status: 'FINISHED' }),
      pauseAt({ kind: 'task', checkpoint: 2, phase: 'ack-received', task: 'v1#0' }),
      pauseAt({ kind: 'task', checkpoint: 2, phase: 'notified' }),
    ))).not.toThrow();
  });

  test.each([
    ['an unknown point kind', { kind: 'savepoint' },
      'faults[0].when.at.kind: must be one of task, jobmaster, sink, restore, job, execution, got "savepoint"'],
    ['restore nth 0', { kind: 'restore', nth: 0 }, 'faults[0].when.at.nth: must be an integer >= 1, got 0'],
    ['a restore from checkpoint 0', { kind: 'restore', checkpoint: 0 },
      'faults[0].when.at.checkpoint: must be an integer >= 1, got 0'],
    ['a restore point with a task', { kind: 'restore', task: 'v1#0' },
      'faults[0].when.at: unknown field "task" (fields: kind, nth, checkpoint, jobRun)'],
    ['an unknown JobStatus', { kind: 'job', status: 'running' },
      'faults[0].when.at.status: unknown JobStatus "running" (statuses: RUNNING, RESTARTING, CANCELLING, CANCELED, FAILED, FINISHED)'],
    ['a job point without status', { kind: 'job' },
      'faults[0].when.at.status: missing'],
    ['a JobStatus this model never enters', { kind: 'job', status: 'SUSPENDED' },
      'faults[0].when.at.status: the job never enters SUSPENDED in this model (statuses it enters: RUNNING, '
      + 'RESTARTING, CANCELLING, CANCELED, FAILED, FINISHED)'],
    ['a job point nth 0', { kind: 'job', status: 'RUNNING', nth: 0 }, 'faults[0].when.at.nth: must be an integer >= 1, got 0'],
    ['a job point with a checkpoint', { kind: 'job', status: 'RUNNING', checkpoint: 1 },
      'faults[0].when.at: unknown field "checkpoint" (fields: kind, status, nth, jobRun)'],
  ])('refuses %s with one line', (_what, point, message) => {
    expect(rejection(withFaults(pauseAt(point)))).toBe(message);
  });
});
