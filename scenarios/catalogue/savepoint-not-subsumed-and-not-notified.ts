import { checkpoint, defineScenario, expect, savepoint, triggerSavepoint } from '../index.ts';

export default defineScenario({
  name: 'savepoint-not-subsumed-and-not-notified',
  protects: 'A savepoint still pending while newer checkpoints complete is never subsumed by them: it stays pending and completes, and no task is ever notified of it (a savepoint is no checkpoint the job commits to).',
  source: 'mirrors Flink CheckpointCoordinatorTest#testSavepointsAreNotSubsumed (PendingCheckpoint.canBeSubsumed is false for savepoints; '
    + 'CheckpointCoordinator.cleanupAfterCompletedCheckpoint notifies only checkpoints and synchronous savepoints)',
  // The savepoint, asked for when checkpoint 2 completed, takes id 3; its state files go to a slow
  // target (20 times the store latency), so checkpoints 4 and 5, with max concurrent 2, complete
  // while it is still pending. Were the savepoint not id 3, it would be fast and nothing newer
  // would complete meanwhile: expect.savepointNotSubsumed then fails rather than passes.
  config: {
    checkpoint: { maxConcurrent: 2 },
    faults: [{ type: 'slow-store', factor: 20, checkpoint: 3 }],
  },
  steps: [
    { at: checkpoint(2).completed(), do: triggerSavepoint() },
  ],
  expect: [
    // Newer checkpoints completed while it was pending, and it was not aborted as subsumed ...
    expect.savepointNotSubsumed(1),
    expect.at(savepoint(1).completed(), expect.checkpointsCompleted({ atLeast: 4 })),
    // ... then it completed, and neither the coordinator nor any task handled a notification of it.
    expect.savepointCompleted(1),
    expect.savepointNotNotified(1),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
