import { checkpoint, defineScenario, expect, lose } from '../index.ts';

export default defineScenario({
  name: 'final-checkpoint-of-bounded-job-lost-notification',
  protects: 'When the completion notification of a sink task\'s final checkpoint (the first after its end of input, here 22) is lost, the task does not finish with its last transaction pre-committed: it waits, the coordinator takes one more checkpoint (23) of the tasks still running, and its notification commits the last transaction, so a bounded job\'s output is exactly once (FLIP-147).',
  source: 'mirrors Flink StreamTask (FLIP-147: a task finishes only once a checkpoint at or after its finalCheckpointMinId is notified) and TwoPhaseCommitSinkFunctionTest#testNoTransactionAfterSinkFunctionFinish',
  steps: [
    // In this run every task ends its input before checkpoint 22 (trace task.endOfInput), so 22
    // is the final checkpoint of every task, and the sink v1#0 never hears of its completion.
    { at: checkpoint(22).triggered(), do: lose('confirmCheckpoint').of(22).to('v1#0') },
  ],
  expect: [
    expect.checkpointCompleted(22),
    // Checkpoint 23 exists only because v1#0 still waits (its plan waits for v1#0 alone; the
    // other tasks finished on 22's notification), and its notification is the one that lets
    // v1#0 commit 22's transaction (sink.committed with notified 23) and finish.
    expect.checkpointCompleted(23),
    expect.at(checkpoint(23).notified('v1#0'), expect.markReached('notify-complete-skipped')),
    expect.checkpointsCompleted({ exactly: 23 }),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
