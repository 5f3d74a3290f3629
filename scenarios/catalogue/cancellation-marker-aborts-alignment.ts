import { checkpoint, defineScenario, expect, pause } from '../index.ts';

export default defineScenario({
  name: 'cancellation-marker-aborts-alignment',
  protects: 'A checkpoint that expires while the downstream sink task aligns it (one upstream task\'s TaskManager paused) is cancelled there by the CancelCheckpointMarker the other upstream task sends once it learns of the abort, not by the abort RPC: the sink stops aligning, unblocks its channel and declines with CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER, and later checkpoints complete.',
  source: 'mirrors Flink AlignedCheckpointsTest#testAbortOnCanceledBarriers and SubtaskCheckpointCoordinatorImpl#checkpointState (a checkpoint aborted before its barrier arrived sends a CancelCheckpointMarker)',
  config: {
    // The sink runs apart (parallelism 1) so that it aligns the barriers of the two
    // airport-stats tasks: v1#0 on taskmanager-1, v1#1 (with v0#1) on taskmanager-2.
    parallelism: { 'flights-source': 2, 'airport-stats': 2, 'flights-sink': 1 },
    // The pause outlives the checkpoint timeout but not the heartbeat or RPC timeouts.
    checkpoint: { timeoutMs: 30, tolerableFailures: 2 },
    heartbeat: { intervalMs: 5, timeoutMs: 200 },
    network: { rpcTimeoutMs: 200 },
  },
  steps: [
    // v0#1 sends barrier 3, then its TaskManager stops for 50 ms: v1#0 aligns 3 and sends its
    // barrier to the sink v2#0, which waits for v1#1's. Checkpoint 3 expires; the abort RPC
    // reaches v2#0, which keeps aligning (Flink's notifyCheckpointAbortAsync leaves the barrier
    // handler alone), and v1#1, which after the pause gets barrier 3, skips the aborted
    // checkpoint and sends a CancelCheckpointMarker: that ends the sink's alignment.
    { at: checkpoint(3).triggeredOn('v0#1'), do: pause('taskmanager-2', 50) },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_EXPIRED'),
    expect.at(checkpoint(5).completed(), expect.markReached('alignment-aborted')),
    // A newer barrier would abort an alignment too: the marker must have come first.
    expect.markNotReached('barrier-during-alignment'),
    expect.checkpointCompleted(5),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
