import { checkpoint, defineScenario, expect, lose } from '../index.ts';

export default defineScenario({
  name: 'newer-barrier-subsumes-alignment',
  protects: 'With two concurrent checkpoints, a barrier of checkpoint 4 reaching a task that still aligns checkpoint 3 (one source never got 3\'s trigger) subsumes the alignment: the task aborts 3, releases its blocked channel and declines 3 with CHECKPOINT_DECLINED_SUBSUMED, which aborts 3 without a failover, and 4 completes.',
  source: 'mirrors Flink AlignedCheckpointsTest#testMultiChannelJumpingOverCheckpoint (SingleCheckpointBarrierHandler#checkNewCheckpoint)',
  config: {
    checkpoint: { maxConcurrent: 2 },
    // The lost trigger's RPC fails only after 100 ms (not the default 20), so checkpoint 3 is
    // still pending when checkpoint 4's barriers arrive, and the sink tasks' declines abort it.
    network: { rpcTimeoutMs: 100 },
  },
  steps: [
    // v0#1 never takes checkpoint 3, so its channel to each v1 task brings barrier 4 while the
    // channel from v0#0 is blocked behind barrier 3 (a channel's barriers arrive in order: only a
    // skipped checkpoint lets a newer barrier reach an alignment in progress).
    { at: checkpoint(3).triggered(), do: lose('triggerCheckpoint').of(3).to('v0#1') },
  ],
  expect: [
    expect.at(checkpoint(4).completed(), expect.markReached('barrier-during-alignment')),
    expect.at(checkpoint(4).completed(), expect.markReached('alignment-aborted')),
    expect.at(checkpoint(4).triggered(), expect.checkpointsCompleted({ exactly: 2 })),
    expect.checkpointAborted(3, 'CHECKPOINT_DECLINED_SUBSUMED'),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
