import { checkpoint, defineScenario, expect, lose } from '../index.ts';

export default defineScenario({
  name: 'lost-trigger-rpc-fails-checkpoint',
  protects: 'A lost triggerCheckpoint RPC to source task v0#0 fails checkpoint 3 when the RPC times out (20 ms, before the 200 ms checkpoint timeout): the coordinator aborts it with TRIGGER_CHECKPOINT_FAILURE, which the failure manager does not count, so there is no failover; the other source\'s barrier of 3 is subsumed by 4\'s downstream, and checkpoint 4 completes.',
  source: 'models Flink CheckpointCoordinator#triggerCheckpointRequest (a failed trigger RPC aborts the pending checkpoint with TRIGGER_CHECKPOINT_FAILURE)',
  steps: [
    // Armed when 2 completes: the fault acts on the trigger of 3 to v0#0 only.
    { at: checkpoint(2).completed(), do: lose('triggerCheckpoint').of(3).to('v0#0') },
  ],
  expect: [
    expect.markReached('message-lost'),
    expect.checkpointAborted(3, 'TRIGGER_CHECKPOINT_FAILURE'),
    expect.at(checkpoint(4).triggered(), expect.checkpointAborted(3, 'TRIGGER_CHECKPOINT_FAILURE')),
    // v1 received 3's barrier from v0#1 only; 4's barrier aborts that alignment.
    expect.markReached('alignment-aborted'),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
