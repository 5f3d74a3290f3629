import { checkpoint, defineScenario, expect, globalFailure, restoreFrom } from '../index.ts';

export default defineScenario({
  name: 'global-failure-while-checkpoint-pending',
  protects: 'A global failover right after checkpoint 3 is triggered aborts it with CHECKPOINT_COORDINATOR_SUSPEND (the job leaves RUNNING and the checkpoint scheduler stops), restores every task from checkpoint 2, and the next checkpoint, 4, completes with the new attempts only.',
  source: 'mirrors Flink DefaultSchedulerTest#abortPendingCheckpointsWhenRestartingTasks',
  steps: [
    { at: checkpoint(3).triggered(), do: globalFailure() },
  ],
  expect: [
    expect.markReached('global-failure'),
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.failovers({ exactly: 1 }),
    expect.restoredFrom(2, { nth: 1 }),
    expect.at(restoreFrom(2), expect.checkpointsCompleted({ exactly: 2 })),
    expect.checkpointCompleted(4),
    expect.jobStatus('FINISHED'),
  ],
});
