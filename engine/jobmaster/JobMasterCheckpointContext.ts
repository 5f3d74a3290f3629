/**
 * The JobMaster's side of the CheckpointCoordinator's port: the job topology and current
 * attempts from the ExecutionGraph, checkpoint RPCs to the TaskExecutors that run the attempts,
 * the coordinator holders, and the two ways to fail the job.
 *
 * The failure manager calls those two on the ioExecutor or the checkpoint timer; each only
 * enqueues a mail on the JobMaster main thread, which fails the job there, as Flink's
 * FailJobCallback does. `failJobDueToTaskFailure` fails it only if the failing attempt is still
 * its subtask's current attempt and RUNNING or INITIALIZING when the mail runs
 * (failGlobalIfExecutionIsStillRunning): by then a failover may have cancelled it. The trace
 * records each callback when it is enqueued (`checkpoint.failJobEnqueued`) and when it runs
 * (`checkpoint.failJobRun`, with the attempt's state then), numbered, for the failure-handling
 * oracle.
 *
 * @see org.apache.flink.runtime.executiongraph.DefaultExecutionGraph (enableCheckpointing wiring,
 *      failGlobalIfExecutionIsStillRunning)
 */
import type { JobRun } from './JobRun.ts';
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
import type { ExecutionState } from '../taskexecutor/ExecutionState.ts';
import type { Execution, ExecutionGraph } from './ExecutionGraph.ts';

/** The attempt states in which a task-level checkpoint failure may still fail the job. */
const STILL_RUNNING: ReadonlySet<ExecutionState> = new Set<ExecutionState>(['RUNNING', 'INITIALIZING']);

export interface JobMasterCheckpointContextOptions {
  readonly env: EngineEnv;
  /** The job run (its JobMaster's thread names). */
  readonly run: JobRun;
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
  const graph = o.graph;
  const vertices: CheckpointJobVertex[] = jg.vertices.map((v) => ({
    id: v.id, parallelism: v.parallelism, isSource: v.isSource, operatorUids: v.operators.map((op) => op.uid),
    // The ExecutionGraph holds the current value: a restore may adopt the state's.
    get maxParallelism() { return graph.maxParallelismOf(v.id); },
    maxParallelismConfigured: v.maxParallelismConfigured,
    setMaxParallelism: (m: number) => graph.setMaxParallelism(v.id, m),
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
  const main = o.env.executors.get(`${o.run.executorPrefix}/main`);
  let callbacks = 0;
  return {
    env: o.env,
    timerExecutor: o.env.executors.get(`${o.run.executorPrefix}/checkpoint-timer`),
    mainExecutor: main,
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
    failJob: (cause) => {
      const callback = ++callbacks;
      o.env.tracer.event('checkpoint.failJobEnqueued', { callback, level: 'job', cause: cause.message });
      main.execute('checkpoint-fail-job', () => {
        o.env.tracer.event('checkpoint.failJobRun', { callback, level: 'job' });
        o.failGlobal(cause.message);
      });
    },
    failJobDueToTaskFailure: (cause, attemptId: ExecutionAttemptId) => {
      const callback = ++callbacks;
      o.env.tracer.event('checkpoint.failJobEnqueued',
        { callback, level: 'task', task: attemptId, cause: cause.message });
      main.execute('checkpoint-fail-job-due-to-task-failure', () => {
        const ex = o.graph.currentExecution(attemptId);
        const taskState = ex === undefined ? 'SUPERSEDED' : ex.state;
        o.env.tracer.event('checkpoint.failJobRun', { callback, level: 'task', task: attemptId, taskState });
        if (ex !== undefined && STILL_RUNNING.has(ex.state)) o.failGlobal(cause.message);
      });
    },
  };
}
