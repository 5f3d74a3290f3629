import { checkpoint, defineScenario, expect, stopWithSavepoint } from '../index.ts';

export default defineScenario({
  name: 'stop-with-savepoint-savepoint-expires',
  protects: 'A stop-with-savepoint whose synchronous savepoint expires (its state files go to a target far too slow): the stop fails, periodic checkpoints start again, the stopped tasks fail on its abort ("Stop-with-savepoint failed."), the job fails over from its latest checkpoint and reads the rest of its input, exactly once.',
  source: 'mirrors Flink StopWithSavepointTerminationHandlerImpl (testSavepointCreationFailureWithFailingExecutions: checkpoint '
    + 'scheduling starts again) and StreamTask.notifyCheckpointAbortAsync (isCurrentSyncSavepoint: Stop-with-savepoint failed.)',
  config: {
    // The stop's synchronous savepoint takes id 3 (checkpoint 3 is not triggered yet when 2 completes).
    faults: [{ type: 'slow-store', factor: 1000, checkpoint: 3 }],
  },
  steps: [
    { at: checkpoint(2).completed(), do: stopWithSavepoint() },
  ],
  expect: [
    expect.savepointAborted(1, 'CHECKPOINT_EXPIRED'),
    expect.markReached('stop-with-savepoint-failed'),
    expect.restoredFrom(2, { nth: 1 }),
    // Periodic checkpoints run again after the failed stop.
    expect.checkpointCompleted(4),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
