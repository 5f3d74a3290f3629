import { describe, expect, test } from 'vitest';
import type { CollectedRecord } from '../api/sources.ts';
import { createTestingOperatorContext } from '../operators/testing/TestingOperatorContext.ts';
import { CollectSinkOperator } from './CollectSinkOperator.ts';

describe('CollectSinkOperator', () => {
  test('appends each record with identity, subtask and attempt', () => {
    const target: CollectedRecord[] = [];
    const op = new CollectSinkOperator('c', target,
      createTestingOperatorContext({ subtaskIndex: 1, parallelism: 2, attemptNumber: 3 }));
    op.processElement({ value: 'x', split: 4, offset: 2, tag: '/1' });
    expect(target).toEqual(
      [{ value: 'x', split: 4, offset: 2, tag: '/1', subtask: 1, attempt: 3 }]);
    expect(op.snapshotState(1)).toBeUndefined();
  });
});
