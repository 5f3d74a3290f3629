import { checkpoint, defineScenario, expect, rescale } from '../index.ts';

export default defineScenario({
  name: 'no-claim-restore-first-checkpoint-full',
  protects: 'A restore into a new job run in NO_CLAIM mode (Flink\'s default): the run never deletes the savepoint it was restored from, and its first checkpoint (id savepoint + 1) is forced FULL, and the history commits every flight exactly once.',
  source: 'mirrors Flink CheckpointCoordinator.restoreSavepoint (RecoveryClaimMode.NO_CLAIM: forUnclaimedSnapshot, forceFullSnapshot) and CheckpointCoordinatorTest#testRestoreFromNoClaimForcesFullCheckpoint-like behaviour',
  steps: [
    // Checkpoint 2 completes, the stop's synchronous savepoint is 3: run 2 starts at id 4.
    { at: checkpoint(2).completed(), do: rescale(2) },
  ],
  expect: [
    expect.jobRun(2, { parallelism: 2, restoredFrom: 'savepoint', claimMode: 'NO_CLAIM' }),
    expect.markReached('restored-no-claim'),
    expect.fullCheckpoint(4, { jobRun: 2 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
