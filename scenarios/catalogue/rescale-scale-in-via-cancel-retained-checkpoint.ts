import { checkpoint, defineScenario, expect, rescale } from '../index.ts';

export default defineScenario({
  name: 'rescale-scale-in-via-cancel-retained-checkpoint',
  protects: 'Scale-in 4 -> 2 from a retained checkpoint: the job is cancelled while checkpoint 4 is pending, once the sink of subtask 3 (a subtask the next run removes) has pre-committed its transaction for 4 and acknowledged; RETAIN_ON_CANCELLATION keeps checkpoint 3, and the next run, restored from it in CLAIM mode, merges two old key-group ranges into each new subtask, commits the transactions pending in checkpoint 3 once, whichever subtask gets them (3 % 2 = 1, 2 % 2 = 0), and aborts the lingering ones pre-committed for 4, fencing the removed indices; the output is exactly once.',
  source: 'mirrors Flink RescalingITCase (restore from a retained checkpoint at a lower parallelism), KafkaSink\'s recovery of removed subtasks\' transactions (TransactionAborter) and RecoveryClaimMode.CLAIM',
  config: { parallelism: 4, slotsPerTaskManager: 2, checkpoint: { retention: 'RETAIN_ON_CANCELLATION' } },
  steps: [
    { at: checkpoint(4).ackReceived('v1#3'), do: rescale(2, { via: 'cancel', claimMode: 'CLAIM' }) },
  ],
  expect: [
    expect.checkpointAborted(4, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.jobRun(1, { parallelism: 4, status: 'CANCELED' }),
    expect.jobRun(2, { parallelism: 2, restoredFrom: 'checkpoint', claimMode: 'CLAIM', status: 'FINISHED' }),
    expect.markReached('rescale-down'),
    expect.markReached('lingering-transaction-aborted'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
