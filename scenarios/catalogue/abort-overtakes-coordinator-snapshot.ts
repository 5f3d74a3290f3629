import { checkpoint, defineScenario, expect, globalFailure } from '../index.ts';

export default defineScenario({
  name: 'abort-overtakes-coordinator-snapshot',
  protects: 'A global failover the instant checkpoint 3 is created aborts it (CHECKPOINT_COORDINATOR_SUSPEND) after its coordinator step marked the source coordinator\'s gateways but before its snapshot, queued on the coordinator thread, ran: the snapshot still runs for the dead checkpoint, the abort\'s notification has reopened the gateways by the time the holder would close them, so the coordinators\' part fails ("Cannot close gateway") and nothing is acknowledged, the trigger fails without a second abort, and after the restore from checkpoint 2 the next checkpoints and the output are whole.',
  source: 'mirrors Flink CheckpointCoordinator#startTriggeringCheckpoint (the coordinator step is skipped only for a checkpoint disposed before it) and OperatorCoordinatorHolderTest#takeCheckpointAfterAbortedCheckpoint',
  steps: [
    // The failover is a mail on the main thread. In this run the coordinator step has already
    // marked the gateways there and queued the snapshot on the coordinator thread; the abort's
    // notification reaches the main thread before the snapshot's result does (the trace shows
    // source.coordinator-checkpoint of 3 after checkpoint.aborted of 3). An abort before the step
    // skips the snapshot instead, and the holder's notification finds no marked gateway (mark
    // coordinator-notify-skipped).
    { at: checkpoint(3).triggered(), do: globalFailure() },
  ],
  expect: [
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    // The snapshot came back after the abort had reopened the gateways it would have closed.
    expect.markReached('coordinator-checkpoint-after-abort'),
    expect.markNotReached('coordinator-notify-skipped'),
    expect.restoredFrom(2, { nth: 1 }),
    expect.checkpointCompleted(4),
    expect.failovers({ exactly: 1 }),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
