import { checkpoint, defineScenario, expect, lose, savepoint, stopWithSavepoint } from '../index.ts';

export default defineScenario({
  name: 'stop-with-savepoint-lost-confirmation',
  protects: 'The confirmation of a stop-with-savepoint\'s synchronous savepoint is lost on its way to one task: that task waits for it forever (nothing resends it) and the stop never ends; a known Flink 1.20 outcome, marked stop-with-savepoint-stuck, which liveness counts as known and does not judge; the output is judged at the savepoint (the notified sinks committed, the waiting one holds its transaction pre-committed in it).',
  source: 'mirrors Flink StreamTask.afterInvoke (a synchronous savepoint waits for finalCheckpointCompleted, completed only by '
    + 'its own notifyCheckpointComplete) and CheckpointCoordinator.sendAcknowledgeMessages (sent once)',
  config: {
    // The job never ends: a short budget ends the run.
    budgets: { maxEvents: 3_000_000, maxTimeMs: 1500 },
  },
  steps: [
    { at: checkpoint(2).completed(), do: stopWithSavepoint() },
    // The synchronous savepoint is checkpoint 3 (the point names it; the loss needs its id).
    { at: savepoint(1).triggered(), do: lose('confirmCheckpoint').of(3) },
  ],
  expect: [
    expect.savepointCompleted(1),
    expect.markReached('stop-with-savepoint-stuck'),
    expect.markNotReached('stop-with-savepoint-finished'),
    expect.jobStatus('RUNNING'),
  ],
  promise: 'exactly-once',
});
