import { checkpoint, crash, defineScenario, expect, restoreFrom } from '../index.ts';

export default defineScenario({
  name: 'region-failover-aborts-pending-checkpoint',
  protects: 'A region failover while checkpoint 3 is pending aborts it with CHECKPOINT_COORDINATOR_SUSPEND (the job leaves RUNNING, which stops the checkpoint scheduler), and the restore uses the last completed checkpoint, 2.',
  source: 'mirrors Flink FailoverStrategyCheckpointCoordinatorTest#testAbortPendingCheckpointsWithTriggerValidation (CheckpointCoordinatorDeActivator)',
  steps: [
    { at: checkpoint(3).triggered(), do: crash('taskmanager-2') },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.failovers({ atLeast: 1 }),
    expect.restoredFrom(2, { nth: 1 }),
    expect.at(restoreFrom(2), expect.checkpointsCompleted({ exactly: 2 })),
    expect.jobStatus('FINISHED'),
  ],
});
