import { checkpoint, defineScenario, expect, pause, restoreFrom } from '../index.ts';

export default defineScenario({
  name: 'paused-taskmanager-declared-lost-while-alive',
  protects: 'A TaskManager paused for longer than the heartbeat timeout (80 ms against 25 ms) in the middle of checkpoint 4 is declared lost although it is alive: its tasks fail over to the other TaskManagers, the job restores from checkpoint 3 and completes new checkpoints, and when it resumes the stale messages of its old attempts (the acknowledgement of checkpoint 4, their FAILED states) are rejected, so there is no second failover.',
  source: 'mirrors Flink JobMasterTest#testHeartbeatTimeoutWithTaskManager and CheckpointCoordinatorTest#testStateCleanupForLateOrUnknownMessages',
  // A third TaskManager takes the failed-over tasks while taskmanager-1 is still paused, so the
  // stale messages arrive while the new attempts run and checkpoint.
  config: { taskManagers: 3 },
  steps: [
    // v1#0 runs on taskmanager-1 with v0#0: both took their synchronous snapshot of checkpoint 4,
    // and v0#0's acknowledgement is sent only when the host runs again.
    { at: checkpoint(4).syncDoneOn('v1#0'), do: pause('taskmanager-1', 80) },
  ],
  expect: [
    expect.markReached('pause'),
    expect.checkpointAborted(4, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(3, { nth: 1 }),
    expect.at(restoreFrom(3), expect.checkpointsCompleted({ exactly: 3 })),
    // The new attempts complete checkpoint 5 while taskmanager-1 is still paused.
    expect.checkpointCompleted(5),
    expect.failovers({ exactly: 1 }),
    expect.restores({ exactly: 1 }),
    expect.jobStatus('FINISHED'),
  ],
});
