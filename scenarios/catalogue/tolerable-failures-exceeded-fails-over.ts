import { checkpoint, defineScenario, expect, job, lose } from '../index.ts';

export default defineScenario({
  name: 'tolerable-failures-exceeded-fails-over',
  protects: 'With one tolerable checkpoint failure, a first expired checkpoint (3) is tolerated but a second consecutive one (4) exceeds the limit: the CheckpointFailureManager fails the job (checkpoint.tolerableFailuresExceeded), the global failover restores the last completed checkpoint, 2, and the job finishes exactly once.',
  source: 'mirrors Flink CheckpointFailureManagerTest#testContinuousFailure and CheckpointCoordinatorTest#testCheckpointTimeoutIsolated',
  config: { checkpoint: { tolerableFailures: 1, timeoutMs: 50 } },
  steps: [
    // One lost acknowledgement per checkpoint: each stays pending until it expires, a failure
    // the failure manager counts (CHECKPOINT_EXPIRED); no checkpoint completes in between to
    // reset the counter.
    { at: checkpoint(3).triggered(), do: lose('acknowledgeCheckpoint').of(3) },
    { at: checkpoint(4).triggered(), do: lose('acknowledgeCheckpoint').of(4) },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_EXPIRED'),
    // The first failure is tolerated: no failover until checkpoint 4 is triggered ...
    expect.at(checkpoint(4).triggered(), expect.failovers({ exactly: 0 })),
    // ... the second one fails the job over.
    expect.at(job.reaches('RESTARTING'), expect.checkpointAborted(4, 'CHECKPOINT_EXPIRED')),
    expect.failovers({ exactly: 1 }),
    expect.restoredFrom(2, { nth: 1 }),
    expect.checkpointCompleted(5),
    expect.jobStatus('FINISHED'),
  ],
});
