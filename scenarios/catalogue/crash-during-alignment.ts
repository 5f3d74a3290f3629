import { checkpoint, crash, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'crash-during-alignment',
  protects: 'A TaskManager lost while a task aligns checkpoint 3 aborts that checkpoint, and the job restores from checkpoint 2 and still commits every record exactly once.',
  source: 'Flink AlignedCheckpointsTest (barrier alignment), CheckpointCoordinatorTest',
  steps: [
    { at: checkpoint(3).firstBarrierOn('v1#0'), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.checkpointAborted(3),
    expect.restoredFrom(2, { nth: 1 }),
    expect.at(checkpoint(3).triggered(), expect.checkpointsCompleted({ exactly: 2 })),
    expect.jobStatus('FINISHED'),
  ],
});
