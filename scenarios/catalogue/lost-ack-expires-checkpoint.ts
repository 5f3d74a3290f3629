import { checkpoint, defineScenario, expect, lose } from '../index.ts';

export default defineScenario({
  name: 'lost-ack-expires-checkpoint',
  protects: 'A lost acknowledgement of checkpoint 3 leaves it pending until it expires (CHECKPOINT_EXPIRED): with one tolerable failure the job does not fail over, later checkpoints complete, and the expired checkpoint\'s files are cleaned up.',
  source: 'mirrors Flink CheckpointCoordinatorTest#testCheckpointTimeoutIsolated',
  config: { checkpoint: { tolerableFailures: 1 } },
  steps: [
    { at: checkpoint(3).triggered(), do: lose('acknowledgeCheckpoint').of(3) },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_EXPIRED'),
    expect.markReached('checkpoint-expired'),
    expect.at(checkpoint(4).triggered(), expect.checkpointAborted(3, 'CHECKPOINT_EXPIRED')),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
