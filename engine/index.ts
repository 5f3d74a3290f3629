/**
 * The engine's public surface for sim/ and properties/ (DESIGN.md: they import only this file
 * and engine/api/): the ports, the public job API and the cluster entry points.
 */
export * from './api/index.ts';
export * from './streaming/api/StreamRecord.ts';
export * from './streaming/api/functions.ts';
export * from './streaming/api/sources.ts';
export * from './streaming/api/TwoPhaseCommitSinkFunction.ts';
export * from './streaming/api/StreamGraph.ts';
export * from './streaming/api/StreamExecutionEnvironment.ts';
export * from './cluster/ClusterConfiguration.ts';
export * from './cluster/ClusterEntrypoint.ts';
export type { JobStatus } from './jobmaster/ExecutionGraph.ts';
export {
  assignToKeyGroup, computeDefaultMaxParallelism, computeKeyGroupRangeForOperatorIndex,
  computeOperatorIndexForKeyGroup, javaHashCode,
} from './state/KeyGroupRangeAssignment.ts';
export type { OperatorSnapshot } from './streaming/operators/StreamOperator.ts';
export { decodeKeyedState as decodeOperatorSubtaskKeyedState } from './streaming/operators/OperatorSubtaskState.ts';
export { KeyedProcessOperator } from './streaming/operators/KeyedProcessOperator.ts';
export { SourceOperator } from './streaming/sources/SourceOperator.ts';
export { TwoPhaseCommitSinkOperator } from './streaming/sinks/TwoPhaseCommitSinkOperator.ts';
export type { TaskExecutor } from './taskexecutor/TaskExecutor.ts';
export type { DecodedCheckpoint, OperatorStateInfo } from './checkpoint/CompletedCheckpoint.ts';
export { StateAssignmentError } from './checkpoint/StateAssignmentError.ts';
export type {
  CheckpointStats, CheckpointStatsSnapshot, CheckpointStatsStatus, RestoredCheckpointStats, SubtaskStateStats,
} from './checkpoint/CheckpointStatsTracker.ts';
export type { CheckpointMetrics } from './checkpoint/CheckpointMetrics.ts';
export { CHECKPOINT_FAILURE_REASONS, CheckpointException } from './checkpoint/CheckpointFailureReason.ts';
export { StopWithSavepointStoppingException } from './jobmaster/StopWithSavepointTerminationHandler.ts';
export { FIRST_JOB_RUN, jobRun, jobRunOf, type JobRun } from './jobmaster/JobRun.ts';
export type { JobMaster, SavepointRestoreSettings } from './jobmaster/JobMaster.ts';
export type { RecoveryClaimMode } from './checkpoint/CheckpointCoordinator.ts';
export type { CheckpointFailureReason } from './checkpoint/CheckpointFailureReason.ts';
export type { CheckpointConfig, CheckpointingMode, ExternalizedCheckpointRetention } from './streaming/api/CheckpointConfig.ts';
export * from './plantedBugs.ts';
export { createJobGraph } from './jobgraph/StreamingJobGraphGenerator.ts';
export { attemptIdOf } from './taskexecutor/ExecutionState.ts';
export * from './rpc/RpcMethods.ts';
export { channelEventOf, producerOfSubpartitionKey, type ChannelCheckpointEvent } from './io/channelEventOf.ts';
