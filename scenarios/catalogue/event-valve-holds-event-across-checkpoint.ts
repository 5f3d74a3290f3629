import { checkpoint, crash, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'event-valve-holds-event-across-checkpoint',
  protects: 'A split assignment the source coordinator sends after its snapshot of a checkpoint is held by the subtask\'s event valve until that subtask took the checkpoint (its AcknowledgeCheckpointEvent), so the split is in exactly one of the enumerator\'s and the reader\'s state of that checkpoint: every checkpoint is a consistent cut, and a restore from one with held events reads each record exactly once.',
  source: 'mirrors Flink OperatorCoordinatorHolderTest#eventsAreBlockedAfterCheckpointFutureCompletes and #acknowledgeCheckpointEventReleasesBlockedEvents',
  // Small splits (20 records each): the readers ask for a split every few ms, so most
  // checkpoints have an assignment sent while the valve is closed (trace: the mark
  // event-valve-held, its checkpointId; checkpoints 2 to 5 here).
  job: { kind: 'flights', selection: { from: 0, to: 2000 }, splits: 100 },
  steps: [
    { at: checkpoint(5).completed(), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.at(checkpoint(5).completed(), expect.markReached('event-valve-held')),
    expect.restoredFrom(5, { nth: 1 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
