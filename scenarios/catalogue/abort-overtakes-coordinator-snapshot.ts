import { checkpoint, defineScenario, expect, globalFailure, restore } from '../index.ts';

export default defineScenario({
  name: 'abort-overtakes-coordinator-snapshot',
  protects: 'A global failover the instant checkpoint 3 is created aborts it (CHECKPOINT_COORDINATOR_SUSPEND) before its trigger reached the source coordinator\'s snapshot step: the step is skipped (trigger failure, no gateway marked, so no event valve closes for a dead checkpoint), the coordinator\'s abort notification for the unseen checkpoint is skipped as Flink\'s gateway does, and after the restore from checkpoint 2 the next checkpoints and the output are whole.',
  source: 'mirrors Flink CheckpointCoordinator#triggerCheckpoint (no coordinator checkpoint for a disposed pending checkpoint) and OperatorCoordinatorHolderTest#takeCheckpointAfterAbortedCheckpoint',
  steps: [
    // The failover is a mail on the JobMaster main thread, queued before the trigger's hops
    // (ioExecutor, timer) reach the coordinator step, which runs on that thread too.
    { at: checkpoint(3).triggered(), do: globalFailure() },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.at(restore(1), expect.markReached('coordinator-notify-skipped')),
    expect.restoredFrom(2, { nth: 1 }),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 1 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
