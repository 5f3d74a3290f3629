import { checkpoint, defineScenario, expect, rescale } from '../index.ts';

export default defineScenario({
  name: 'rescale-scale-in-via-cancel-retained-checkpoint',
  protects: 'Scale-in 4 -> 2 from a retained checkpoint: the job is cancelled right after checkpoint 3 completes (RETAIN_ON_CANCELLATION keeps it), and the next run, restored from it in CLAIM mode, merges two old key-group ranges into each new subtask; the sinks of the removed subtasks 2 and 3 had their transactions pre-committed for checkpoint 3, which the new subtasks (3 % 2 = 1, 2 % 2 = 0) commit exactly once, and their open ones are aborted and their indices fenced; the claimed checkpoint is deleted once subsumed.',
  source: 'mirrors Flink RescalingITCase (restore from a retained checkpoint at a lower parallelism), KafkaSink\'s recovery of removed subtasks\' transactions (TransactionAborter) and RecoveryClaimMode.CLAIM',
  config: { parallelism: 4, slotsPerTaskManager: 2, checkpoint: { retention: 'RETAIN_ON_CANCELLATION' } },
  steps: [
    { at: checkpoint(3).completed(), do: rescale(2, { via: 'cancel', claimMode: 'CLAIM' }) },
  ],
  expect: [
    expect.jobRun(1, { parallelism: 4, status: 'CANCELED' }),
    expect.jobRun(2, { parallelism: 2, restoredFrom: 'checkpoint', claimMode: 'CLAIM', status: 'FINISHED' }),
    expect.markReached('rescale-down'),
    expect.markReached('lingering-transaction-aborted'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
