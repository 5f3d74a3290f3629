import { checkpoint, defineScenario, expect, globalFailure, job, restoreFrom } from '../index.ts';

export default defineScenario({
  name: 'restart-strategy-fixed-delay-exhausted',
  protects: 'A fixed-delay restart strategy with one attempt restarts the job once (from checkpoint 3) and, at the second failure, stops restarting and fails the job: it ends FAILED with no further restore, its checkpoints are cleaned up and its open transactions aborted (the output oracles judge only FINISHED jobs, so the committed output is not judged here).',
  source: 'mirrors Flink FixedDelayRestartBackoffTimeStrategyTest#testNumberOfRestarts',
  config: { restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 10 } },
  steps: [
    { at: checkpoint(3).completed(), do: globalFailure() },
    // The second failure, as soon as the only restart restored checkpoint 3.
    { at: restoreFrom(3), do: globalFailure() },
  ],
  expect: [
    expect.markReached('global-failure'),
    expect.restoredFrom(3, { nth: 1 }),
    expect.failovers({ exactly: 1 }),
    expect.restores({ exactly: 1 }),
    expect.at(job.reaches('FAILED'), expect.checkpointsCompleted({ exactly: 3 })),
    expect.jobStatus('FAILED'),
  ],
});
