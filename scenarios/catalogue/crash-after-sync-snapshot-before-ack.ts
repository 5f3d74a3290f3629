import { checkpoint, crash, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'crash-after-sync-snapshot-before-ack',
  protects: 'A TaskManager lost after the sink task took its synchronous snapshot of checkpoint 3 (its transaction pre-committed) but before it acknowledged: checkpoint 3 never completes, the job restores from checkpoint 2, and the pre-committed transaction is not committed twice.',
  source: 'mirrors Flink SubtaskCheckpointCoordinatorTest and TwoPhaseCommitSinkFunctionTest#testFailBeforeNotify',
  steps: [
    { at: checkpoint(3).syncDoneOn('v1#0'), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.at(checkpoint(3).syncDoneOn('v1#0'), expect.checkpointsCompleted({ exactly: 2 })),
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(2, { nth: 1 }),
    expect.jobStatus('FINISHED'),
  ],
});
