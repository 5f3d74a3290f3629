import { checkpoint, crash, defineScenario, expect, savepoint, stopWithSavepoint } from '../index.ts';

export default defineScenario({
  name: 'stop-with-savepoint-crash-after-savepoint',
  protects: 'A TaskManager lost right after the synchronous savepoint of a stop-with-savepoint completed, before its tasks finished: the job ends FAILED (StopWithSavepointStoppingException, no restart), and the committed output plus the transactions the savepoint holds pre-committed are exactly the output of the input up to the savepoint.',
  source: 'mirrors Flink StopWithSavepointTerminationHandlerImpl#terminateExceptionallyWithGlobalFailover '
    + '(testFailedTerminationHandling) and StopWithSavepointStoppingException (a non-recoverable error)',
  steps: [
    { at: checkpoint(2).completed(), do: stopWithSavepoint() },
    { at: savepoint(1).completed(), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.savepointCompleted(1),
    expect.markReached('stop-with-savepoint-job-failed'),
    // The crash's task failures restart their region as usual (a restore may come first); the
    // stop then fails the job for good once the old attempts all ended.
    expect.jobStatus('FAILED'),
  ],
  promise: 'exactly-once',
});
