import { expect, test } from 'vitest';
import { CheckpointException } from '../checkpoint/CheckpointFailureReason.ts';
import { ExpectedError } from './ExpectedError.ts';

test('an expected error is an Error with its name and message but no stack frames', () => {
  const limit = (Error as unknown as { stackTraceLimit: number }).stackTraceLimit;
  const e = new CheckpointException('CHECKPOINT_EXPIRED', 'took too long');
  expect(e).toBeInstanceOf(Error);
  expect(e).toBeInstanceOf(ExpectedError);
  expect(e).toBeInstanceOf(CheckpointException);
  expect(e.name).toBe('CheckpointException');
  expect(e.message).toBe('CHECKPOINT_EXPIRED: took too long');
  expect(e.stack).toBe('CheckpointException: CHECKPOINT_EXPIRED: took too long');
  expect(new ExpectedError('x', { cause: e }).cause).toBe(e);
  // The stack trace setting is restored: other errors keep their stacks.
  expect((Error as unknown as { stackTraceLimit: number }).stackTraceLimit).toBe(limit);
  expect(new Error('bug').stack).toMatch(/\n\s+at /);
});
