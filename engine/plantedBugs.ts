/**
 * Every planted bug the engine has (mutants.md: real Flink bugs re-created as switches), by the
 * id a RunSpec's `mutations` and `explore --mutant` use. A bug is on only when a run names it;
 * code checks `env.bugs.has(id)`. Input validation rejects ids not listed here.
 */
import { PLANTED_BUGS } from './checkpoint/CheckpointPlantedBugs.ts';
import { COORDINATOR_EVENTS_BYPASS_VALVE } from './coordination/OperatorCoordinatorHolder.ts';
import { SPLITS_RETURNED_AT_FAILURE } from './coordination/SourceCoordinator.ts';
import { TRACKER_RECREATES_ABORTED } from './io/checkpointing/CheckpointBarrierTracker.ts';
import { ALIGNED_RESUME_IMMEDIATELY } from './io/checkpointing/SingleCheckpointBarrierHandler.ts';
import { RESTORE_HANDLE_REPLACES } from './state/HeapKeyedStateBackend.ts';
import { SINK_COMMITS_ONLY_NOTIFIED } from './streaming/sinks/TwoPhaseCommitSinkOperator.ts';
import { SINK_REQUIRES_NOTIFIED_PENDING } from './streaming/sinks/TwoPhaseCommitSinkOperator.ts';
import { SINK_COMMITS_IN_SNAPSHOT } from './streaming/sinks/TwoPhaseCommitSinkOperator.ts';
import { ASYNC_SNAPSHOT_READS_LIVE } from './streaming/operators/StreamOperator.ts';
import { ACK_BEFORE_DURABLE } from './streaming/runtime/AsyncCheckpointRunnable.ts';

/** The ids of every planted bug, sorted. */
export const PLANTED_BUG_IDS: readonly string[] = Object.freeze([
  ALIGNED_RESUME_IMMEDIATELY, RESTORE_HANDLE_REPLACES, SINK_COMMITS_ONLY_NOTIFIED, TRACKER_RECREATES_ABORTED,
  SINK_REQUIRES_NOTIFIED_PENDING, ASYNC_SNAPSHOT_READS_LIVE, ACK_BEFORE_DURABLE, SINK_COMMITS_IN_SNAPSHOT,
  SPLITS_RETURNED_AT_FAILURE, COORDINATOR_EVENTS_BYPASS_VALVE,
  ...Object.values(PLANTED_BUGS),
].sort());
