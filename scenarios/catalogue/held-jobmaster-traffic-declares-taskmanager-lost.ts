import { checkpoint, defineScenario, expect, hold, restore } from '../index.ts';

export default defineScenario({
  name: 'held-jobmaster-traffic-declares-taskmanager-lost',
  protects: 'Holding one JobMaster -> TaskExecutor RPC (checkpoint 3\'s confirmation to taskmanager-1) for 40 ms also holds everything behind it on that link, the JobMaster\'s requestHeartbeat calls and checkpoint 4\'s trigger included: the trigger times out (TRIGGER_CHECKPOINT_FAILURE), both sides time out the heartbeat and the alive TaskManager is declared lost, and the job restores from checkpoint 3, once more when the held disconnect arrives after the new deployment, and still finishes exactly once.',
  steps: [
    // Armed when 2 completes; acts on the first confirmation of 3 sent to taskmanager-1.
    { at: checkpoint(2).completed(), do: hold('confirmCheckpoint', 40).of(3).to('taskmanager-1') },
  ],
  expect: [
    expect.markReached('message-held'),
    // Checkpoint 4's trigger RPC to taskmanager-1 waits behind the held message and times out
    // (20 ms) just before the heartbeat timeout (25 ms after the last heartbeat answered).
    expect.checkpointAborted(4, 'TRIGGER_CHECKPOINT_FAILURE'),
    expect.checkpointAborted(5, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(3, { nth: 1 }),
    expect.at(restore(1), expect.checkpointsCompleted({ exactly: 3 })),
    // The JobMaster's disconnectJobManager (sent when it declared the TaskManager lost) was held
    // on the link too; it reaches taskmanager-1 after the TaskManager had offered its slot again
    // and got the new attempts, and tears that connection down: a second failover, from 3 again.
    expect.failovers({ exactly: 2 }),
    expect.restoredFrom(3, { nth: 2 }),
    expect.checkpointCompleted(6),
    expect.jobStatus('FINISHED'),
  ],
});
