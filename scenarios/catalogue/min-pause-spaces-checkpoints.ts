import { defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'min-pause-spaces-checkpoints',
  protects: 'A minimum pause (50 ms) longer than the checkpoint interval (20 ms) spaces the checkpoints: the coordinator triggers each periodic checkpoint no sooner than the pause after the previous completion, so the job takes a third as many checkpoints, and all of them complete.',
  source: 'mirrors Flink CheckpointCoordinatorTest#testMinCheckpointPause and CheckpointRequestDeciderTest#testCheckpointTiming',
  config: { checkpoint: { intervalMs: 20, minPauseMs: 50 } },
  steps: [],
  expect: [
    // Every trigger at least 50 ms after the latest completion is the standing protocol
    // invariant `min-pause` (it reads minPauseMs from the spec and judges each
    // checkpoint.triggered). These bounds say the pause really governed the run: at a 20 ms
    // interval the job (about 450 virtual ms) completes about 22 checkpoints, with the pause 7
    // (each one about 50 ms plus its own duration after the previous).
    expect.checkpointsCompleted({ atLeast: 5, atMost: 9 }),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
