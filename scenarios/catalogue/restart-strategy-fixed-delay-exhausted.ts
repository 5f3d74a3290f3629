import { checkpoint, crash, defineScenario, expect, job, restoreFrom } from '../index.ts';

export default defineScenario({
  name: 'restart-strategy-fixed-delay-exhausted',
  protects: 'A fixed-delay restart strategy with one attempt restarts the job once after a TaskManager crash (from checkpoint 3, the lost TaskManager\'s slot released before the restart, so the restart deploys only to live TaskManagers and costs no second failover) and, at the second crash, stops restarting and fails the job: it ends FAILED with no further restore, its checkpoints are cleaned up and its open transactions aborted (the output oracles judge only FINISHED jobs, so the committed output is not judged here).',
  source: 'mirrors Flink FixedDelayRestartBackoffTimeStrategyTest#testNumberOfRestarts',
  config: { restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 10 } },
  steps: [
    { at: checkpoint(3).completed(), do: crash('taskmanager-1') },
    // The second failure, once the restarted job completed a checkpoint of its own: 4, the first
    // one triggered after the restore (the crash's failover comes before the next periodic
    // trigger in this schedule).
    { at: checkpoint(4).completed(), do: crash('taskmanager-2') },
  ],
  expect: [
    expect.markReached('taskmanager-lost'),
    expect.restoredFrom(3, { nth: 1 }),
    expect.at(restoreFrom(3), expect.checkpointsCompleted({ exactly: 3 })),
    expect.failovers({ exactly: 1 }),
    expect.restores({ exactly: 1 }),
    expect.at(job.reaches('FAILED'), expect.checkpointsCompleted({ exactly: 4 })),
    expect.jobStatus('FAILED'),
  ],
});
