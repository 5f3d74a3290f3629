import { checkpoint, defineScenario, expect, savepoint, stopWithSavepoint, type ScenarioExpectation } from '../index.ts';

/** What a stop that finishes after checkpoint 2 leaves (the drain variant expects the same). */
export const FINISHED_STOP: readonly ScenarioExpectation[] = [
  expect.savepointCompleted(1),
  // Nothing after the stop: the savepoint is the last snapshot of the job.
  expect.checkpointsCompleted({ exactly: 2 }),
  expect.at(savepoint(1).completed(), expect.failovers({ exactly: 0 })),
  expect.markReached('stop-with-savepoint-finished'),
  expect.markNotReached('stop-with-savepoint-failed'),
  expect.jobStatus('FINISHED'),
];

export default defineScenario({
  name: 'stop-with-savepoint-finishes',
  protects: 'Stop-with-savepoint without drain: periodic checkpoints stop, the sources stop, every task performs the synchronous savepoint, is notified of it (the sinks commit its transaction) and finishes; the job is FINISHED with exactly the output of the input read up to the savepoint.',
  source: 'mirrors Flink SchedulerBase.stopWithSavepoint, StopWithSavepointTerminationHandlerImpl (testHappyPath) and '
    + 'SourceOperatorStreamTask.triggerStopWithSavepointAsync (SavepointType.suspend: the operators are not finished)',
  steps: [
    { at: checkpoint(2).completed(), do: stopWithSavepoint() },
  ],
  expect: FINISHED_STOP,
  promise: 'exactly-once',
});
