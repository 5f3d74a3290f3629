import { checkpoint, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'failed-object-store-write',
  protects: 'A failed write of checkpoint 1\'s _metadata (the checkpoint fully acknowledged) aborts that checkpoint with FINALIZE_CHECKPOINT_FAILURE, reports it to the failure manager, deletes its state files, and the next checkpoint completes without a failover.',
  source: 'FLINK-32347; mirrors Flink CheckpointCoordinatorTest#testExceptionInStoringCompletedCheckpointIsReportedToFailureManager',
  config: {
    // Object store failures are a world setting with no trigger: every operation until the heal
    // time fails with probability 0.12. This seed's fate decisions fail exactly one: the put of
    // chk-1/_metadata, after all four tasks' state files were written and acknowledged.
    seed: 'scenario:failed-object-store-write/45',
    checkpoint: { tolerableFailures: 1 },
    faults: [{ type: 'store-failure', probability: 0.12 }],
    healTimeMs: 45,
  },
  steps: [],
  expect: [
    expect.markReached('store-failed'),
    expect.checkpointAborted(1, 'FINALIZE_CHECKPOINT_FAILURE'),
    expect.at(checkpoint(2).triggered(), expect.checkpointsCompleted({ exactly: 0 })),
    expect.checkpointCompleted(2),
    // The tasks performed checkpoint 1 but are never told it completed: the notification of 2
    // covers it (the sink commits 1's transaction with 2's).
    expect.markReached('notify-complete-skipped'),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
