import { checkpoint, defineScenario, expect, globalFailure } from '../index.ts';

export default defineScenario({
  name: 'abort-overtakes-coordinator-snapshot',
  protects: 'A global failover the instant checkpoint 3 is created aborts it (CHECKPOINT_COORDINATOR_SUSPEND) while the source coordinator\'s snapshot of 3 is still queued on the JobMaster main thread: the snapshot still runs for the dead checkpoint, its state is not acknowledged, the trigger fails without a second abort, and after the restore from checkpoint 2 the next checkpoints and the output are whole.',
  source: 'mirrors Flink CheckpointCoordinator#startTriggeringCheckpoint (the coordinator step is skipped only for a checkpoint disposed before it) and OperatorCoordinatorHolderTest#takeCheckpointAfterAbortedCheckpoint',
  steps: [
    // The failover is a mail on the main thread. In this run the trigger's timer step has
    // already queued the coordinator snapshot there (trace: source.coordinator-checkpoint of 3
    // after checkpoint.aborted of 3, then checkpoint.triggerFailed); an abort before that step
    // skips the snapshot instead and the holder's abort notification finds no marked gateway
    // (mark coordinator-notify-skipped). The global restore opens every gateway, so whether the
    // abort notification reopened the valves the late snapshot closed is not judged here.
    { at: checkpoint(3).triggered(), do: globalFailure() },
  ],
  expect: [
    // The coordinators were snapshotted for 3 after 3 was aborted: the abort overtook the step.
    expect.at(checkpoint(3).coordinatorsSnapshotted(), expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND')),
    expect.markNotReached('coordinator-notify-skipped'),
    expect.restoredFrom(2, { nth: 1 }),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 1 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
