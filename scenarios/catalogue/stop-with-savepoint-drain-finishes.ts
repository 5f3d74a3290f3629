import { checkpoint, defineScenario, stopWithSavepoint } from '../index.ts';
import { FINISHED_STOP } from './stop-with-savepoint-finishes.ts';

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
  expect: FINISHED_STOP,
  promise: 'exactly-once',
});
