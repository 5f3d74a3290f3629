import { checkpoint, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'unknown-outcome-object-store-write',
  protects: 'A write of checkpoint 1\'s _metadata that reports an unknown outcome although the file was written is handled as a failed finalization (FINALIZE_CHECKPOINT_FAILURE): the checkpoint is never completed or restored from, its files, the _metadata that may exist included, are deleted, and the next checkpoint completes without a failover.',
  config: {
    // Unknown outcomes are a world setting with no trigger: every write or delete until the heal
    // time reports one with probability 0.12, and a fate decision says whether it happened. This
    // seed's decisions give exactly one: the put of chk-1/_metadata, which did happen.
    seed: 'scenario:unknown-outcome-object-store-write/29',
    checkpoint: { tolerableFailures: 1 },
    faults: [{ type: 'store-unknown-outcome', probability: 0.12 }],
    healTimeMs: 45,
  },
  steps: [],
  expect: [
    expect.markReached('store-unknown-outcome'),
    expect.checkpointAborted(1, 'FINALIZE_CHECKPOINT_FAILURE'),
    expect.at(checkpoint(2).triggered(), expect.checkpointsCompleted({ exactly: 0 })),
    expect.checkpointCompleted(2),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
