import { checkpoint, defineScenario, expect, lose } from '../index.ts';

export default defineScenario({
  name: 'lost-confirm-two-phase-commit-commits-on-next',
  protects: 'A lost completion notification (confirmCheckpoint) of checkpoint 3 to the sink task leaves its transaction pre-committed; the notification of checkpoint 4 commits both pending transactions, without a failover, and the output is exactly once.',
  source: 'mirrors Flink TwoPhaseCommitSinkFunctionTest#testNotifyOfCompletedCheckpoint (a notification commits every pending transaction up to its id)',
  steps: [
    { at: checkpoint(3).triggered(), do: lose('confirmCheckpoint').of(3).to('v1#0') },
  ],
  expect: [
    expect.checkpointCompleted(3),
    // When v1#0 hears of checkpoint 4 it never heard of 3, which it performed: the sink then
    // commits the transactions of 3 and 4 (trace sink.committed with notified 4). Without the
    // commit of 3 (planted sink-commits-only-notified) the exactly-once oracle finds records missing.
    expect.at(checkpoint(4).notified('v1#0'), expect.markReached('notify-complete-skipped')),
    expect.failovers({ exactly: 0 }),
    expect.restores({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
