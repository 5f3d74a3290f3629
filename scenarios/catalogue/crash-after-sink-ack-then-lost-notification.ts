import { checkpoint, crash, defineScenario, expect, lose, restore } from '../index.ts';

export default defineScenario({
  name: 'crash-after-sink-ack-then-lost-notification',
  protects: 'A TaskManager lost right after the sink task acknowledged checkpoint 3, then the lost completion notification of the first checkpoint after the restore: the two-phase-commit sink still commits every transaction (on the next notification, or at the end) and the output is exactly once.',
  source: 'mirrors Flink TwoPhaseCommitSinkFunctionTest#testFailBeforeNotify and #testSubsumedNotificationOfPreviousCheckpoint',
  steps: [
    { at: checkpoint(3).ackSentBy('v1#0'), do: crash('taskmanager-1') },
    { at: restore(1), do: lose('confirmCheckpoint').to('v1#0') },
  ],
  expect: [
    // The ack was sent, but the TaskManager died with it: checkpoint 3 never completes.
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(2, { nth: 1 }),
    // The lost notification: the sink task's next notification skips a checkpoint it performed
    // (it commits that one's transaction with the next; without the loss the mark is not reached).
    expect.markReached('notify-complete-skipped'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
