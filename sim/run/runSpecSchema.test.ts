/**
 * The building blocks runSpecSchema.ts exports for the schemas built on it (scenario files):
 * each parses what it should, and refuses with one line naming the field.
 */
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { SimInputError } from '../SimInputError.ts';
import {
  faultActionSchema, jobPointSchema, messageActionSchema, messageFaultSchema, parseWithSchema, protocolPointSchema,
  restorePointSchema, runSpecConfigSchema,
} from './runSpecSchema.ts';

function refusal(schema: z.ZodType, value: unknown, root = 'value'): string {
  try {
    parseWithSchema(schema, value, root);
  } catch (e) {
    expect(e).toBeInstanceOf(SimInputError);
    expect((e as Error).message).not.toContain('\n');
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('schema building blocks', () => {
  test('a fault action is a fault without when', () => {
    expect(parseWithSchema(faultActionSchema, { type: 'crash', host: 'taskmanager-1', downMs: 5 }, 'do'))
      .toEqual({ type: 'crash', host: 'taskmanager-1', downMs: 5 });
    expect(refusal(faultActionSchema, { type: 'crash', host: 'taskmanager-1', when: { atMs: 1 } }, 'do'))
      .toBe('do: unknown field "when" (fields: type, host, downMs)');
    expect(refusal(faultActionSchema, { type: 'meteor' }, 'do')).toMatch(/^type: must be one of crash, global-failure, /);
  });

  test('message faults: a method, an action, and delayMs only and always for delay', () => {
    const lose = { type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 4, to: 'v2#0' };
    expect(parseWithSchema(messageFaultSchema, lose, 'fault')).toEqual(lose);
    expect(parseWithSchema(messageActionSchema, { ...lose, action: 'delay', delayMs: 3 }, 'do')).toMatchObject({ delayMs: 3 });
    expect(refusal(messageFaultSchema, { ...lose, method: 'confirm' }, 'fault'))
      .toMatch(/^method: unknown RPC method "confirm" \(methods: updateTaskExecutionState, /);
    expect(refusal(messageFaultSchema, { ...lose, action: 'delay' }, 'fault'))
      .toBe('delayMs: is required for action delay');
    expect(refusal(messageFaultSchema, { ...lose, delayMs: 2 }, 'fault')).toBe('delayMs: only for action delay, got action lose');
    expect(refusal(messageFaultSchema, { ...lose, durationMs: 2 }, 'fault')).toBe('durationMs: only for action hold, got action lose');
    expect(refusal(messageFaultSchema, { ...lose, jobRun: 0 }, 'fault')).toBe('jobRun: must be an integer >= 1, got 0');
    expect(refusal(messageActionSchema, { ...lose, when: { atMs: 1 } }, 'do')).toMatch(/^do: unknown field "when"/);
  });

  test('restore and job points', () => {
    expect(parseWithSchema(restorePointSchema, { kind: 'restore', checkpoint: 3 }, 'at')).toEqual({ kind: 'restore', checkpoint: 3 });
    expect(parseWithSchema(jobPointSchema, { kind: 'job', status: 'RUNNING', nth: 2 }, 'at')).toMatchObject({ nth: 2 });
    expect(refusal(jobPointSchema, { kind: 'job', status: 'running' }, 'at'))
      .toBe('status: unknown JobStatus "running" (statuses: RUNNING, RESTARTING, CANCELLING, CANCELED, FAILED, FINISHED)');
    expect(refusal(protocolPointSchema, { kind: 'task', checkpoint: 0, phase: 'acked' }, 'at'))
      .toBe('checkpoint: must be an integer >= 1, got 0');
  });

  test('a scenario config sets any RunSpec field but version and job, checkpoint and budgets partly', () => {
    const config = { parallelism: 2, checkpoint: { intervalMs: 50 }, budgets: { maxTimeMs: 100 } };
    expect(parseWithSchema(runSpecConfigSchema, config, 'config')).toEqual(config);
    expect(refusal(runSpecConfigSchema, { version: 3 }, 'config')).toMatch(/^config: unknown field "version" \(fields: seed, /);
    expect(refusal(runSpecConfigSchema, { checkpoint: { intervalMs: 5 } }, 'config'))
      .toBe('checkpoint.intervalMs: must be a number of ms >= 10, got 5');
  });
});
