/**
 * The JobMaster's stop-with-savepoint state machine, named after Flink's
 * StopWithSavepointTerminationHandlerImplTest: a stop succeeds only when the savepoint exists and
 * every execution FINISHED; a failed savepoint starts the checkpoint scheduler again and fails
 * the stop without a failover of its own; executions ending otherwise after the savepoint fail
 * the job for good with StopWithSavepointStoppingException.
 */
import { describe, expect, test } from 'vitest';
import { CheckpointException } from '../checkpoint/CheckpointFailureReason.ts';
import type { CompletedCheckpoint } from '../checkpoint/CompletedCheckpoint.ts';
import { TestingTracer } from '../testing/TestingTracer.ts';
import { AssertionError } from '../util/assert.ts';
import { StopWithSavepointStoppingException, StopWithSavepointTerminationHandler } from './StopWithSavepointTerminationHandler.ts';

const savepoint = { checkpointId: 7, metadataPath: 'savepoint-7/_metadata' } as CompletedCheckpoint;

function handler(): {
  h: StopWithSavepointTerminationHandler; tracer: TestingTracer; schedulerStarts: () => number; failures: StopWithSavepointStoppingException[];
} {
  const tracer = new TestingTracer();
  let starts = 0;
  const failures: StopWithSavepointStoppingException[] = [];
  const h = new StopWithSavepointTerminationHandler({
    tracer, startCheckpointScheduler: () => { starts++; }, failJobUnrecoverably: (e) => failures.push(e),
  }, false);
  return { h, tracer, schedulerStarts: () => starts, failures };
}

const outcome = (h: StopWithSavepointTerminationHandler): { path?: string; error?: unknown } => {
  let out: { path?: string; error?: unknown } = {};
  h.savepointPath.whenComplete((path, error) => { out = path === undefined ? { error } : { path }; });
  return out;
};

describe('StopWithSavepointTerminationHandler', () => {
  test('testHappyPath: the savepoint, then every execution FINISHED: the stop returns its path', () => {
    const { h, tracer, schedulerStarts, failures } = handler();
    h.handleSavepointCreation(savepoint, undefined);
    expect(h.savepointPath.isDone()).toBe(false);
    h.handleExecutionsTermination(['FINISHED', 'FINISHED']);
    expect(outcome(h)).toEqual({ path: 'savepoint-7/_metadata' });
    expect(tracer.marks.map((m) => m.type)).toEqual(['stop-with-savepoint-finished']);
    expect([schedulerStarts(), failures.length]).toEqual([0, 0]);
    expect(h.currentState).toBe('Final');
  });

  test.each([
    ['testSavepointCreationFailureWithoutExecutionTermination', undefined],
    ['testSavepointCreationFailureWithFailingExecutions', ['FAILED'] as const],
    ['testSavepointCreationFailureWithFinishingExecutions', ['FINISHED'] as const],
  ])('%s: the stop fails with the savepoint\'s error, checkpoint scheduling starts again, no failover of its own', (_name, terminated) => {
    const { h, tracer, schedulerStarts, failures } = handler();
    h.handleSavepointCreation(undefined, new CheckpointException('CHECKPOINT_EXPIRED'));
    if (terminated !== undefined) h.handleExecutionsTermination(terminated);
    expect((outcome(h).error as CheckpointException).reason).toBe('CHECKPOINT_EXPIRED');
    expect(schedulerStarts()).toBe(1);
    expect(failures).toEqual([]);
    expect(tracer.marks).toEqual([{ type: 'stop-with-savepoint-failed', attrs: { reason: 'CHECKPOINT_EXPIRED', drain: false } }]);
  });

  test('testFailedTerminationHandling: the savepoint, then an execution FAILED: an unrecoverable global failure '
    + 'with StopWithSavepointStoppingException, which names the savepoint (it stays: the user\'s)', () => {
    const { h, tracer, schedulerStarts, failures } = handler();
    h.handleSavepointCreation(savepoint, undefined);
    h.handleExecutionsTermination(['FINISHED', 'FAILED', 'CANCELED']);
    const { error } = outcome(h);
    expect(error).toBeInstanceOf(StopWithSavepointStoppingException);
    expect((error as StopWithSavepointStoppingException).savepointPath).toBe('savepoint-7/_metadata');
    expect(failures).toEqual([error]);
    expect(schedulerStarts()).toBe(0);
    expect(tracer.marks).toEqual([{ type: 'stop-with-savepoint-job-failed', attrs: { checkpointId: 7, states: 'CANCELED,FAILED', drain: false } }]);
  });

  test('testInvalidExecutionTerminationCall: executions terminating before the savepoint\'s outcome is a harness bug; '
    + 'a second savepoint outcome too', () => {
    expect(() => handler().h.handleExecutionsTermination(['FINISHED'])).toThrow(AssertionError);
    const { h } = handler();
    h.handleSavepointCreation(savepoint, undefined);
    expect(() => h.handleSavepointCreation(savepoint, undefined)).toThrow(AssertionError);
  });
});
