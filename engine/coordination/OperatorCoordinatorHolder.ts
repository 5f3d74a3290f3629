/**
 * Holds one OperatorCoordinator on the JobMaster main thread and connects it to the subtasks:
 * it builds each attempt's SubtaskGateway (events travel as `sendOperatorEventToTask` RPCs; a
 * failed send fails that subtask over), tells the coordinator about attempts becoming ready or
 * failing, and resets it on failover (subtaskReset for a regional restore, resetToCheckpoint for
 * a global one). The checkpoint issue adds the exactly-once event valve here.
 *
 * @see org.apache.flink.runtime.operators.coordination.OperatorCoordinatorHolder, SubtaskGatewayImpl
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { RpcAddress } from '../api/ids.ts';
import type { JobGraph } from '../jobgraph/JobGraph.ts';
import type { ExecutionVertex } from '../jobmaster/ExecutionGraph.ts';
import type { TaskExecutorGateway } from '../rpc/TaskExecutorGateway.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorCoordinator, SubtaskGateway } from './OperatorCoordinator.ts';
import { SourceCoordinator } from './SourceCoordinator.ts';

/** What the holder needs from the JobMaster. */
export interface HolderServices {
  gateway(taskExecutor: RpcAddress): TaskExecutorGateway;
  failSubtask(vertexId: string, subtask: number, cause: string): void;
}

/** The id a coordinator uses before any checkpoint (OperatorCoordinator.NO_CHECKPOINT). */
export const NO_CHECKPOINT = -1;

export class OperatorCoordinatorHolder {
  constructor(
    private readonly env: EngineEnv,
    private readonly main: Executor,
    readonly vertexId: string,
    readonly operatorUid: string,
    readonly coordinator: OperatorCoordinator,
    private readonly services: HolderServices,
  ) {}

  /** Creates a holder for every source operator of the job. */
  static createAll(env: EngineEnv, main: Executor, graph: JobGraph, services: HolderServices): OperatorCoordinatorHolder[] {
    const out: OperatorCoordinatorHolder[] = [];
    for (const v of graph.vertices) {
      for (const op of v.operators) {
        if (op.spec.kind !== 'source') continue;
        const coordinator = new SourceCoordinator({
          env,
          operatorUid: op.uid,
          splitIds: op.spec.source.splits.map((s) => s.id),
          parallelism: op.parallelism,
        });
        out.push(new OperatorCoordinatorHolder(env, main, v.id, op.uid, coordinator, services));
      }
    }
    return out;
  }

  start(): void {
    this.coordinator.start();
  }

  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void {
    this.coordinator.handleEventFromOperator(subtask, attemptNumber, event);
  }

  /** The attempt of `ev` is deployed and initializing: give the coordinator its gateway. */
  attemptReady(ev: ExecutionVertex): void {
    const ex = ev.current;
    const slot = ex.slot;
    if (slot === undefined) return;
    const gateway: SubtaskGateway = {
      subtask: ev.subtask,
      attemptNumber: ex.attemptNumber,
      sendEvent: (event) => {
        const result = new CompletableFuture<void>();
        this.services.gateway(slot.taskExecutor)
          .sendOperatorEventToTask(ex.attemptId, this.operatorUid, event)
          .whenCompleteAsync(this.main, 'operator-event-result', (_v, err) => {
            if (err === undefined) {
              result.complete(undefined);
              return;
            }
            result.completeExceptionally(err);
            if (ev.current === ex) {
              this.env.tracer.event('coordinator.eventSendFailed', { task: ex.attemptId });
              this.services.failSubtask(this.vertexId, ev.subtask, 'operator event could not be delivered');
            }
          });
        return result;
      },
    };
    this.coordinator.executionAttemptReady(ev.subtask, ex.attemptNumber, gateway);
  }

  attemptFailed(ev: ExecutionVertex, cause: string): void {
    this.coordinator.executionAttemptFailed(ev.subtask, ev.current.attemptNumber, cause);
  }

  /** Before the vertices are redeployed: reset the coordinator as Flink's restore path does. */
  beforeRedeploy(vertices: readonly ExecutionVertex[], global: boolean): void {
    if (global) {
      this.coordinator.resetToCheckpoint(NO_CHECKPOINT, undefined);
      return;
    }
    for (const v of vertices) {
      if (v.jobVertex.id === this.vertexId) this.coordinator.subtaskReset(v.subtask, NO_CHECKPOINT);
    }
  }
}
