import { checkpoint, defineScenario, expect, savepoint, stopWithSavepoint } from '../index.ts';

export default defineScenario({
  name: 'stop-with-savepoint-drain-finishes',
  protects: 'Stop-with-savepoint with drain: periodic checkpoints stop, the sources end their data and every operator\'s input ends and it finishes before the snapshot, every task performs the synchronous savepoint, is notified of it (the sinks commit its transaction) and finishes; the job is FINISHED with exactly the output of the input read up to the savepoint.',
  source: 'mirrors Flink SchedulerBase.stopWithSavepoint, StopWithSavepointTerminationHandlerImpl (testHappyPath) and '
    + 'SourceOperatorStreamTask.triggerStopWithSavepointAsync (SavepointType.terminate: MAX_WATERMARK, endInput and finish before the snapshot)',
  // Flights' operators do nothing at endInput or finish, so its output and marks are those of the
  // stop without drain; what drain changes on the tasks (endInput and finish before the snapshot)
  // is pinned by sim/run/stopWithSavepoint.test.ts.
  steps: [
    { at: checkpoint(2).completed(), do: stopWithSavepoint({ drain: true }) },
  ],
  expect: [
    expect.savepointCompleted(1),
    // Nothing after the stop: the savepoint is the last snapshot of the job.
    expect.checkpointsCompleted({ exactly: 2 }),
    expect.at(savepoint(1).completed(), expect.failovers({ exactly: 0 })),
    expect.markReached('stop-with-savepoint-finished'),
    expect.markNotReached('stop-with-savepoint-failed'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
