import { checkpoint, defineScenario, expect, stopWithSavepoint } from '../index.ts';

export default defineScenario({
  name: 'stop-with-savepoint-declined-by-task',
  protects: 'A task declines the synchronous savepoint of a stop-with-savepoint (its state write fails): a task-level failure of a synchronous savepoint fails the job over at once, counted or not, the stop fails and the job runs on from its latest checkpoint, exactly once.',
  source: 'mirrors Flink CheckpointFailureManager.handleTaskLevelCheckpointException (a synchronous savepoint calls failJob) '
    + 'and CheckpointCoordinatorTest#jobFailsIfInFlightSynchronousSavepointIsDiscarded',
  config: {
    faults: [{ type: 'async-snapshot-failure', probability: 1, checkpoint: 3 }],
  },
  steps: [
    { at: checkpoint(2).completed(), do: stopWithSavepoint() },
  ],
  expect: [
    expect.savepointAborted(1, 'CHECKPOINT_ASYNC_EXCEPTION'),
    expect.markReached('stop-with-savepoint-failed'),
    expect.failovers({ atLeast: 1 }),
    expect.restoredFrom(2, { nth: 1 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
