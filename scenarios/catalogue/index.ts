/**
 * The scenario catalogue: every scenario that must keep passing (docs/scenarios.md). One file
 * per scenario in this folder, its default export a defineScenario(...); to add one, write the
 * file and add it to CATALOGUE below (kept in alphabetical order). `checkpoint-sim scenario
 * run --all` runs them, and scenarios/catalogue/catalogue.test.ts runs each in `npm test`.
 */
import type { Scenario } from '../Scenario.ts';
import abortOvertakesCoordinatorSnapshot from './abort-overtakes-coordinator-snapshot.ts';
import atLeastOnceDuplicatesAfterRestore from './at-least-once-duplicates-after-restore.ts';
import backpressureDelaysBarriersAligned from './backpressure-delays-barriers-aligned.ts';
import cancellationMarkerAbortsAlignment from './cancellation-marker-aborts-alignment.ts';
import crashAfterSinkAckThenLostNotification from './crash-after-sink-ack-then-lost-notification.ts';
import crashAfterSyncSnapshotBeforeAck from './crash-after-sync-snapshot-before-ack.ts';
import crashBetweenPreCommitAndCommit from './crash-between-pre-commit-and-commit.ts';
import crashDuringAlignment from './crash-during-alignment.ts';
import declineAbortsOnlyItsCheckpoint from './decline-aborts-only-its-checkpoint.ts';
import eventValveHoldsEventAcrossCheckpoint from './event-valve-holds-event-across-checkpoint.ts';
import failedObjectStoreWrite from './failed-object-store-write.ts';
import finalCheckpointOfBoundedJobLostNotification from './final-checkpoint-of-bounded-job-lost-notification.ts';
import generatedTwoKeyedStagesCrash from './generated-two-keyed-stages-crash.ts';
import globalFailureWhileCheckpointPending from './global-failure-while-checkpoint-pending.ts';
import heldJobmasterTrafficDeclaresTaskmanagerLost from './held-jobmaster-traffic-declares-taskmanager-lost.ts';
import jobmasterTaskmanagerPartitionDetectedByHeartbeats from './jobmaster-taskmanager-partition-detected-by-heartbeats.ts';
import lateAckAfterExpiryDiscardsState from './late-ack-after-expiry-discards-state.ts';
import lostAbortNotification from './lost-abort-notification.ts';
import lostAckExpiresCheckpoint from './lost-ack-expires-checkpoint.ts';
import lostConfirmTwoPhaseCommitCommitsOnNext from './lost-confirm-two-phase-commit-commits-on-next.ts';
import lostTriggerRpcFailsCheckpoint from './lost-trigger-rpc-fails-checkpoint.ts';
import minPauseSpacesCheckpoints from './min-pause-spaces-checkpoints.ts';
import newerBarrierSubsumesAlignment from './newer-barrier-subsumes-alignment.ts';
import noClaimRestoreFirstCheckpointFull from './no-claim-restore-first-checkpoint-full.ts';
import pausedTaskmanagerDeclaredLostWhileAlive from './paused-taskmanager-declared-lost-while-alive.ts';
import queueingUnderMaxConcurrent2 from './queueing-under-max-concurrent-2.ts';
import regionFailoverAbortsPendingCheckpoint from './region-failover-aborts-pending-checkpoint.ts';
import rescale423 from './rescale-4-2-3.ts';
import rescaleScaleInViaCancelRetainedCheckpoint from './rescale-scale-in-via-cancel-retained-checkpoint.ts';
import rescaleUnionAndListState from './rescale-union-and-list-state.ts';
import restartStrategyFixedDelayExhausted from './restart-strategy-fixed-delay-exhausted.ts';
import savepointBetweenCheckpointsTwoPhaseCommit from './savepoint-between-checkpoints-two-phase-commit.ts';
import savepointDuringRestartAfterTaskFinished from './savepoint-during-restart-after-task-finished.ts';
import savepointNotSubsumedAndNotNotified from './savepoint-not-subsumed-and-not-notified.ts';
import splitReturnOnFailover from './split-return-on-failover.ts';
import stopWithSavepointCrashAfterSavepoint from './stop-with-savepoint-crash-after-savepoint.ts';
import stopWithSavepointDeclinedByTask from './stop-with-savepoint-declined-by-task.ts';
import stopWithSavepointDrainFinishes from './stop-with-savepoint-drain-finishes.ts';
import stopWithSavepointFinishes from './stop-with-savepoint-finishes.ts';
import stopWithSavepointLostConfirmation from './stop-with-savepoint-lost-confirmation.ts';
import stopWithSavepointSavepointExpires from './stop-with-savepoint-savepoint-expires.ts';
import tolerableFailuresExceededFailsOver from './tolerable-failures-exceeded-fails-over.ts';
import unknownOutcomeObjectStoreWrite from './unknown-outcome-object-store-write.ts';
import wordcountCrashDuringCheckpoint from './wordcount-crash-during-checkpoint.ts';

export const CATALOGUE: readonly Scenario[] = [
  abortOvertakesCoordinatorSnapshot,
  atLeastOnceDuplicatesAfterRestore,
  backpressureDelaysBarriersAligned,
  cancellationMarkerAbortsAlignment,
  crashAfterSinkAckThenLostNotification,
  crashAfterSyncSnapshotBeforeAck,
  crashBetweenPreCommitAndCommit,
  crashDuringAlignment,
  declineAbortsOnlyItsCheckpoint,
  eventValveHoldsEventAcrossCheckpoint,
  failedObjectStoreWrite,
  finalCheckpointOfBoundedJobLostNotification,
  generatedTwoKeyedStagesCrash,
  globalFailureWhileCheckpointPending,
  heldJobmasterTrafficDeclaresTaskmanagerLost,
  jobmasterTaskmanagerPartitionDetectedByHeartbeats,
  lateAckAfterExpiryDiscardsState,
  lostAbortNotification,
  lostAckExpiresCheckpoint,
  lostConfirmTwoPhaseCommitCommitsOnNext,
  lostTriggerRpcFailsCheckpoint,
  minPauseSpacesCheckpoints,
  newerBarrierSubsumesAlignment,
  noClaimRestoreFirstCheckpointFull,
  pausedTaskmanagerDeclaredLostWhileAlive,
  queueingUnderMaxConcurrent2,
  regionFailoverAbortsPendingCheckpoint,
  rescale423,
  rescaleScaleInViaCancelRetainedCheckpoint,
  rescaleUnionAndListState,
  restartStrategyFixedDelayExhausted,
  savepointBetweenCheckpointsTwoPhaseCommit,
  savepointDuringRestartAfterTaskFinished,
  savepointNotSubsumedAndNotNotified,
  splitReturnOnFailover,
  stopWithSavepointCrashAfterSavepoint,
  stopWithSavepointDeclinedByTask,
  stopWithSavepointDrainFinishes,
  stopWithSavepointFinishes,
  stopWithSavepointLostConfirmation,
  stopWithSavepointSavepointExpires,
  tolerableFailuresExceededFailsOver,
  unknownOutcomeObjectStoreWrite,
  wordcountCrashDuringCheckpoint,
];
