/**
 * What the JobMaster sends to a TaskExecutor to deploy one subtask attempt: the vertex to run,
 * where its inputs come from and where its outputs go. The JobGraph travels by reference (it is
 * immutable and stands for the job jar every TaskManager has).
 *
 * @see org.apache.flink.runtime.deployment.TaskDeploymentDescriptor,
 *      InputGateDeploymentDescriptor, ResultPartitionDeploymentDescriptor
 */
import type { ExecutionAttemptId, HostId, RpcAddress } from '../api/ids.ts';
import type { JobManagerTaskRestore } from '../checkpoint/TaskStateSnapshot.ts';
import type { JobGraph } from '../jobgraph/JobGraph.ts';

/** One input channel: the producer subpartition it reads. */
export interface InputChannelDescriptor {
  readonly partitionId: string;
  readonly subpartition: number;
  readonly producerHost: HostId;
}

/** One input gate, per input edge. */
export interface InputGateDescriptor {
  readonly edgeIndex: number;
  readonly channels: readonly InputChannelDescriptor[];
}

/** One produced result partition, per output edge. */
export interface ResultPartitionDescriptor {
  readonly edgeIndex: number;
  readonly partitionId: string;
  readonly numSubpartitions: number;
  /**
   * The consumer vertex's max parallelism, the key groups a hash partitioner routes by
   * (ResultPartitionDeploymentDescriptor.getMaxParallelism, the partition's numTargetKeyGroups).
   */
  readonly numTargetKeyGroups: number;
}

export interface TaskDeploymentDescriptor {
  readonly jobGraph: JobGraph;
  /** The job run the task belongs to (JobRun.index: 1 for a job's first run). */
  readonly jobRun: number;
  /** The JobMaster of that run, which the task reports to (each run has its own). */
  readonly jobMasterAddress: RpcAddress;
  /**
   * Prefix of the run's checkpoint directory in the object store ('' for run 1, `run-<n>/`):
   * where a checkpoint's task files go when the barrier names no target location (Flink's
   * default CheckpointStorageLocationReference, resolved from the job's checkpoint storage).
   */
  readonly checkpointStoragePrefix: string;
  readonly vertexId: string;
  readonly subtaskIndex: number;
  readonly attemptNumber: number;
  readonly attemptId: ExecutionAttemptId;
  /**
   * The vertex's max parallelism, the number of key groups of its keyed state
   * (TaskInformation.maxNumberOfSubtasks): the JobGraph's, or the one a restore adopted.
   */
  readonly maxParallelism: number;
  readonly slotIndex: number;
  /** The slot's AllocationID: the TaskExecutor refuses the task if the slot holds another one. */
  readonly allocationId: string;
  readonly inputGates: readonly InputGateDescriptor[];
  readonly producedPartitions: readonly ResultPartitionDescriptor[];
  /** Checkpointing on (the sink commits per checkpoint instead of at the end). */
  readonly checkpointingEnabled: boolean;
  /** The task-side checkpoint settings; present when checkpointing is on. */
  readonly checkpointing?: TaskCheckpointingSettings;
  /** State to restore (JobManagerTaskRestore). */
  readonly restore?: JobManagerTaskRestore;
}

/** What a task needs to know of the checkpoint configuration. */
export interface TaskCheckpointingSettings {
  readonly mode: 'EXACTLY_ONCE' | 'AT_LEAST_ONCE';
  readonly maxConcurrent: number;
  readonly checkpointsAfterTasksFinish: boolean;
}

/** The id of the partition attempt `attemptId` produces for edge `edgeIndex`. */
export function partitionIdOf(edgeIndex: number, attemptId: ExecutionAttemptId): string {
  return `e${edgeIndex}:${attemptId}`;
}
