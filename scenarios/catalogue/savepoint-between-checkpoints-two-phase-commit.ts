import { checkpoint, defineScenario, expect, savepoint, triggerSavepoint } from '../index.ts';

export default defineScenario({
  name: 'savepoint-between-checkpoints-two-phase-commit',
  protects: 'A savepoint between two checkpoints pre-commits the two-phase-commit sink\'s transaction but, notifying no one, does not commit it; the next checkpoint\'s notification commits it with its own, and the output is exactly once.',
  source: 'mirrors Flink TwoPhaseCommitSinkFunction.notifyCheckpointComplete (commits every pending transaction up to the notified id) '
    + 'and CheckpointCoordinator.cleanupAfterCompletedCheckpoint (no notification for a savepoint)',
  steps: [
    { at: checkpoint(2).completed(), do: triggerSavepoint() },
  ],
  expect: [
    // Between checkpoint 2 and the next one: it completed before any other checkpoint did.
    expect.at(savepoint(1).completed(), expect.checkpointsCompleted({ exactly: 2 })),
    expect.savepointCompleted(1),
    // Its transactions were pre-committed at its snapshot, and its completion commits none of
    // them: no task is notified of a savepoint ...
    expect.savepointNotNotified(1),
    // ... and the next checkpoint's notification commits them on every sink subtask. Under the
    // planted sink-commits-only-notified the sink commits only the notified id's transaction:
    // this fails, and the exactly-once oracle finds the savepoint's records missing.
    expect.savepointTransactionsCommitted(1),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
