import { checkpoint, defineScenario, expect, partition, restoreFrom } from '../index.ts';

export default defineScenario({
  name: 'jobmaster-taskmanager-partition-detected-by-heartbeats',
  protects: 'A partition between the JobManager and taskmanager-1 that outlasts the heartbeat timeout (40 ms against 25 ms) gets the TaskManager declared lost by the JobMaster\'s heartbeat monitor, before the pending checkpoint\'s trigger RPC times out: checkpoint 4 is aborted by the failover (CHECKPOINT_COORDINATOR_SUSPEND), and the job restores from the latest completed checkpoint, 3.',
  source: 'mirrors Flink JobMasterTest#testHeartbeatTimeoutWithTaskManager',
  steps: [
    // Once the JobMaster has taskmanager-1's acks of checkpoint 3 (v0#1's comes last; taskmanager-2's
    // complete it inside the partition): checkpoint 4's trigger RPC to taskmanager-1 (sent inside
    // the partition) would time out 20 ms later, after the heartbeat timeout has fired. (Cut at
    // checkpoint 3's completion, which comes later in this schedule since the coordinators got
    // their own thread, the trigger RPC timed out first.)
    { at: checkpoint(3).ackReceived('v0#1'), do: partition('jobmanager', 'taskmanager-1', { durationMs: 40 }) },
  ],
  expect: [
    expect.markReached('partition'),
    expect.failovers({ exactly: 1 }),
    // Lost by heartbeat, not by the trigger RPC's timeout (that would be TRIGGER_CHECKPOINT_FAILURE).
    expect.checkpointAborted(4, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(3, { nth: 1 }),
    expect.at(restoreFrom(3), expect.checkpointsCompleted({ exactly: 3 })),
    expect.checkpointCompleted(5),
    expect.jobStatus('FINISHED'),
  ],
});
