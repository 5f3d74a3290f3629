import { checkpoint, defineScenario, expect, hold } from '../index.ts';

export default defineScenario({
  name: 'late-ack-after-expiry-discards-state',
  protects: 'An acknowledgement of checkpoint 3 held past the checkpoint timeout arrives after the checkpoint expired (CHECKPOINT_EXPIRED): the coordinator recognises it as a late ack of a recently expired checkpoint and discards the state it carries, so no file of it is left behind, and the job goes on without a failover.',
  source: 'mirrors Flink CheckpointCoordinatorTest#testStateCleanupForLateOrUnknownMessages',
  config: {
    // The timeout is short and the heartbeat and RPC timeouts long, so the held ack (and the
    // heartbeats and split requests queued behind it on the TaskManager's link, which keeps its
    // order) outlives the checkpoint but not the TaskManager or the source's coordinator events.
    checkpoint: { tolerableFailures: 1, timeoutMs: 40 },
    heartbeat: { intervalMs: 5, timeoutMs: 100 },
    network: { rpcTimeoutMs: 100 },
  },
  steps: [
    { at: checkpoint(3).triggered(), do: hold('acknowledgeCheckpoint', 60).of(3).from('v1#0') },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_EXPIRED'),
    // The standing protocol invariant `late-ack-discarded` then demands the discard of that
    // ack's state (checkpoint.subtaskStateDiscarded), and the storage oracle that no file lingers.
    expect.markReached('late-ack-discarded'),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
