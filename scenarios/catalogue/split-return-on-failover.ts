import { checkpoint, crash, defineScenario, expect } from '../index.ts';

export default defineScenario({
  name: 'split-return-on-failover',
  protects: 'Source tasks that fail after the enumerator assigned them splits past the restored checkpoint\'s coordinator snapshot give those splits back to the enumerator on the failover (SplitAssignmentTracker), which assigns them again, so every record is read and committed exactly once.',
  source: 'mirrors Flink SourceCoordinatorTest#testSubtaskFailedAndRevertUncompletedAssignments and SplitAssignmentTrackerTest#testGetAndRemoveUncheckpointedAssignment',
  steps: [
    // Splits 2 and 3 were assigned (one to each source subtask) after checkpoint 3's
    // coordinator snapshot: the crash, as checkpoint 4 is triggered, fails the job over to
    // checkpoint 3, whose enumerator state still counts them as assigned.
    { at: checkpoint(4).triggered(), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.restoredFrom(3, { nth: 1 }),
    // The source coordinator's subtaskReset returns them as the region restarts: on its own
    // thread, in a task queued by the restore (so not yet at the restore point itself), before
    // the restarted readers ask for splits.
    expect.markReached('splits-returned'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
