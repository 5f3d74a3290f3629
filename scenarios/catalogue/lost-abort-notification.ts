import { checkpoint, defineScenario, expect, lose } from '../index.ts';

export default defineScenario({
  name: 'lost-abort-notification',
  protects: 'A task that never hears that checkpoint 3 was aborted (its abortCheckpoint RPC lost) while it is still aligning 3 is not stuck: the barrier of checkpoint 4 subsumes the alignment, checkpoint 4 completes with no failover, the aborted checkpoint\'s files are deleted and the output stays exactly once.',
  source: 'mirrors Flink AlignedCheckpointsTest#testMultiChannelJumpingOverCheckpoint',
  steps: [
    // The trigger of 3 to v0#0 is lost, so v1 receives 3's barrier from v0#1 only and aligns
    // until the trigger RPC times out and the coordinator aborts 3 (TRIGGER_CHECKPOINT_FAILURE).
    { at: checkpoint(2).completed(), do: lose('triggerCheckpoint').of(3).to('v0#0') },
    // That abort's notification to v1#0 is lost: v1#0 keeps aligning 3.
    { at: checkpoint(2).completed(), do: lose('abortCheckpoint').of(3).to('v1#0') },
  ],
  expect: [
    expect.markReached('message-lost'),
    expect.checkpointAborted(3, 'TRIGGER_CHECKPOINT_FAILURE'),
    // v1#0's alignment of 3 ends when 4's barrier arrives, not before.
    expect.at(checkpoint(4).firstBarrierOn('v1#0'), expect.markReached('alignment-aborted')),
    expect.markReached('barrier-during-alignment'),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
