/**
 * The JobMaster's side of the CheckpointCoordinator's port: the job topology and current
 * attempts from the ExecutionGraph, checkpoint RPCs to the TaskExecutors that run the attempts,
 * the coordinator holders, and the two ways to fail the job.
 *
 * @see org.apache.flink.runtime.executiongraph.DefaultExecutionGraph (enableCheckpointing wiring)
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId, RpcAddress } from '../api/ids.ts';
import type { CheckpointOptions } from '../checkpoint/CheckpointBarrier.ts';
import type {
  CheckpointCoordinatorContext, CheckpointJobEdge, CheckpointJobVertex, CheckpointTaskAttempt,
  OperatorCoordinatorCheckpointContext,
} from '../checkpoint/CheckpointCoordinatorContext.ts';
import type { TaskExecutorGateway } from '../rpc/TaskExecutorGateway.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { Execution, ExecutionGraph } from './ExecutionGraph.ts';

export interface JobMasterCheckpointContextOptions {
  readonly env: EngineEnv;
  /** The JobMaster's ioExecutor (a pool). */
  readonly io: Executor;
  readonly graph: ExecutionGraph;
  readonly coordinators: readonly OperatorCoordinatorCheckpointContext[];
  gateway(taskExecutor: RpcAddress): TaskExecutorGateway;
  failGlobal(cause: string): void;
}

/** Builds the port over the JobMaster's pieces. */
export function createCheckpointCoordinatorContext(o: JobMasterCheckpointContextOptions): CheckpointCoordinatorContext {
  const jg = o.graph.jobGraph;
  const vertices: CheckpointJobVertex[] = jg.vertices.map((v) => ({
    id: v.id, parallelism: v.parallelism, isSource: v.isSource, operatorUids: v.operators.map((op) => op.uid),
  }));
  const edges: CheckpointJobEdge[] = jg.edges.map((e) => ({
    source: e.source, target: e.target, pattern: e.partitioner === 'forward' ? 'POINTWISE' : 'ALL_TO_ALL',
  }));
  const execution = (attempt: CheckpointTaskAttempt): Execution | undefined => {
    const ex = o.graph.vertex(attempt.vertexId, attempt.subtask).current;
    return ex.attemptId === attempt.attemptId ? ex : undefined;
  };
  const gatewayOf = (attempt: CheckpointTaskAttempt): TaskExecutorGateway | undefined => {
    const slot = execution(attempt)?.slot;
    return slot === undefined ? undefined : o.gateway(slot.taskExecutor);
  };
  return {
    env: o.env,
    timerExecutor: o.env.executors.get('jobmaster/checkpoint-timer'),
    mainExecutor: o.env.executors.get('jobmaster/main'),
    ioExecutor: o.io,
    jobVertices: () => vertices,
    jobEdges: () => edges,
    currentAttempt: (vertexId, subtask) => {
      const ex = o.graph.vertex(vertexId, subtask).current;
      return { attemptId: ex.attemptId, vertexId, subtask, state: ex.state };
    },
    triggerCheckpoint: (attempt, checkpointId, timestampUs, options: CheckpointOptions) => {
      // Execution.triggerCheckpoint with no slot assigned acks and does nothing (reference 2.1).
      const g = gatewayOf(attempt);
      if (g === undefined) return CompletableFuture.completed<void>(undefined);
      return g.triggerCheckpoint(attempt.attemptId, checkpointId, timestampUs, options);
    },
    notifyCheckpointComplete: (attempt, checkpointId, timestampUs, lastSubsumedId) => {
      gatewayOf(attempt)?.confirmCheckpoint(attempt.attemptId, checkpointId, timestampUs, lastSubsumedId);
    },
    notifyCheckpointAborted: (attempt, checkpointId, latestCompletedId, timestampUs) => {
      gatewayOf(attempt)?.abortCheckpoint(attempt.attemptId, checkpointId, latestCompletedId, timestampUs);
    },
    coordinators: o.coordinators,
    failJob: (cause) => o.failGlobal(cause.message),
    failJobDueToTaskFailure: (cause, attemptId: ExecutionAttemptId) => {
      const ex = o.graph.currentExecution(attemptId);
      if (ex !== undefined && ex.state === 'RUNNING') o.failGlobal(cause.message);
    },
  };
}
