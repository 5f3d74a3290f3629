/**
 * Everything the CheckpointCoordinator needs from outside, in one port that the JobMaster
 * implements: the environment and the three JobManager threads, the job topology and the current
 * execution attempts (for the checkpoint plan and for notifications), the RPCs to tasks, the
 * OperatorCoordinators, and the two ways to fail the job.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (its constructor arguments),
 *      org.apache.flink.runtime.checkpoint.CheckpointPlanCalculatorContext,
 *      org.apache.flink.runtime.checkpoint.OperatorCoordinatorCheckpointContext
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import type { ExecutionState } from '../taskexecutor/ExecutionState.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { CheckpointOptions } from './CheckpointBarrier.ts';

/** A job vertex as the checkpoint plan and the state assignment see it. */
export interface CheckpointJobVertex {
  readonly id: string;
  readonly parallelism: number;
  /** True for vertices without inputs (they are triggered by RPC). */
  readonly isSource: boolean;
  /** The uids of the vertex's chained operators, head first. */
  readonly operatorUids: readonly string[];
  /**
   * The vertex's current max parallelism, its number of key groups (ExecutionJobVertex
   * .getMaxParallelism): the JobGraph's, or the one a restore adopted from the state.
   */
  readonly maxParallelism: number;
  /** The job set the max parallelism (false: derived from the parallelism, so it may be adopted). */
  readonly maxParallelismConfigured: boolean;
  /**
   * Adopts `maxParallelism` from restored state (ExecutionJobVertex.setMaxParallelism); later
   * deployments of the vertex use it. @throws Error when the max parallelism was configured.
   */
  setMaxParallelism(maxParallelism: number): void;
}

/** A job edge: ALL_TO_ALL (hash, rebalance, broadcast) or POINTWISE (forward). */
export interface CheckpointJobEdge {
  readonly source: string;
  readonly target: string;
  readonly pattern: 'ALL_TO_ALL' | 'POINTWISE';
}

/** The current execution attempt of one subtask. */
export interface CheckpointTaskAttempt {
  readonly attemptId: ExecutionAttemptId;
  readonly vertexId: string;
  readonly subtask: number;
  readonly state: ExecutionState;
}

/**
 * What the coordinator needs of an OperatorCoordinatorHolder. Every method is called on the
 * JobMaster main thread.
 * @see org.apache.flink.runtime.checkpoint.OperatorCoordinatorCheckpointContext
 */
export interface OperatorCoordinatorCheckpointContext {
  /** The coordinated operator's uid; coordinator states are keyed by it. */
  readonly operatorUid: string;
  /** The job vertex the operator runs in. */
  readonly vertexId: string;
  /** Snapshots the coordinator (with the event valve closed after it); completes with its state. */
  checkpointCoordinator(checkpointId: number): CompletableFuture<unknown>;
  /** The trigger of the current checkpoint failed: reopen the event valve. */
  abortCurrentTriggering(): void;
  notifyCheckpointComplete(checkpointId: number): void;
  notifyCheckpointAborted(checkpointId: number): void;
  /** Global restore: go back to `state` of `checkpointId` (-1 and undefined: initial state). */
  resetToCheckpoint(checkpointId: number, state: unknown): void;
  /** Regional restore of `subtask` to `checkpointId` (-1: no checkpoint). */
  subtaskReset(subtask: number, checkpointId: number): void;
}

/** The coordinator's port to the JobMaster; see the file comment. */
export interface CheckpointCoordinatorContext {
  readonly env: EngineEnv;
  /** The coordinator's single-threaded timer ('jobmaster/checkpoint-timer'). */
  readonly timerExecutor: Executor;
  /** The JobMaster main thread ('jobmaster/main'). */
  readonly mainExecutor: Executor;
  /** The JobMaster ioExecutor ('jobmaster/io'). */
  readonly ioExecutor: Executor;
  /** Job vertices in topological order (sources first). Read on the main thread. */
  jobVertices(): readonly CheckpointJobVertex[];
  /** Job edges. */
  jobEdges(): readonly CheckpointJobEdge[];
  /** The current attempt of (vertex, subtask); undefined when none exists yet. */
  currentAttempt(vertexId: string, subtask: number): CheckpointTaskAttempt | undefined;
  /**
   * The `triggerCheckpoint` RPC (kind 'trigger') to `attempt`'s TaskExecutor. The future fails
   * (a CheckpointException with its reason, or any other error) when the task cannot take it.
   */
  triggerCheckpoint(attempt: CheckpointTaskAttempt, checkpointId: number, timestampUs: number,
    options: CheckpointOptions): CompletableFuture<void>;
  /** Fire-and-forget `notifyCheckpointComplete` (kind 'notifyComplete'); -1: nothing subsumed. */
  notifyCheckpointComplete(attempt: CheckpointTaskAttempt, checkpointId: number,
    timestampUs: number, lastSubsumedId: number): void;
  /** Fire-and-forget `notifyCheckpointAborted` (kind 'notifyAborted'). */
  notifyCheckpointAborted(attempt: CheckpointTaskAttempt, checkpointId: number,
    latestCompletedId: number, timestampUs: number): void;
  /** The job's OperatorCoordinators (holders), in a fixed order. */
  readonly coordinators: readonly OperatorCoordinatorCheckpointContext[];
  /** A global failover (failGlobal), as a mail on the JobMaster main thread. */
  failJob(cause: Error): void;
  /**
   * A global failover on behalf of a task, as a mail on the JobMaster main thread, which acts
   * only if `attemptId` is then still the current attempt of its subtask and RUNNING or
   * INITIALIZING (DefaultExecutionGraph.failGlobalIfExecutionIsStillRunning).
   */
  failJobDueToTaskFailure(cause: Error, attemptId: ExecutionAttemptId): void;
}
