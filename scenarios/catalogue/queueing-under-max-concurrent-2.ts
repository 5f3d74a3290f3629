import { checkpoint, defineScenario, expect, slowTask } from '../index.ts';

export default defineScenario({
  name: 'queueing-under-max-concurrent-2',
  protects: 'With at most two concurrent checkpoints, a slow (back-pressured) job has two checkpoints pending at once and a third trigger request waits in the queue until one completes, and every checkpoint still completes in order.',
  source: 'mirrors Flink CheckpointRequestDeciderTest#testEnqueueOnTooManyPending and CheckpointCoordinatorTest#testMaxConcurrentAttempts2',
  config: { checkpoint: { maxConcurrent: 2 } },
  steps: [
    { at: checkpoint(3).completed(), do: slowTask('airport-stats', 20, 150) },
  ],
  expect: [
    expect.at(checkpoint(5).triggered(), expect.checkpointsCompleted({ exactly: 3 })),
    expect.at(checkpoint(6).triggered(), expect.checkpointCompleted(4)),
    expect.at(checkpoint(7).triggered(), expect.checkpointCompleted(5)),
    expect.checkpointsCompleted({ atLeast: 10 }),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
