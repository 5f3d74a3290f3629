import { defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'decline-aborts-only-its-checkpoint',
  protects: 'A task that declines checkpoint 1 (its asynchronous snapshot failed) aborts that checkpoint only: with one tolerable failure there is no failover, and the next checkpoints complete.',
  source: 'mirrors Flink CheckpointCoordinatorTest#testTriggerAndDeclineAsyncCheckpointFailureSimple',
  config: {
    checkpoint: { tolerableFailures: 1 },
    // Every snapshot write fails until the heal time, which comes just after checkpoint 1's
    // snapshots: the only way to make one checkpoint decline (a decline has no trigger of its own).
    faults: [{ type: 'async-snapshot-failure', probability: 1 }],
    healTimeMs: 25,
  },
  steps: [],
  expect: [
    expect.checkpointAborted(1, 'CHECKPOINT_ASYNC_EXCEPTION'),
    expect.markReached('checkpoint-declined'),
    expect.checkpointCompleted(2),
    expect.failovers({ exactly: 0 }),
    expect.restores({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
