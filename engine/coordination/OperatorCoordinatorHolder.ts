/**
 * Holds one OperatorCoordinator on the JobMaster main thread and connects it to the subtasks:
 * it builds each attempt's SubtaskGateway (events travel as `sendOperatorEventToTask` RPCs; a
 * failed send fails that subtask over), tells the coordinator about attempts becoming ready or
 * failing, and resets it on failover (subtaskReset for a regional restore, resetToCheckpoint for
 * a global one). It runs the coordinator's part of a checkpoint with the exactly-once event
 * valve (reference 1.6): mark every subtask, snapshot the coordinator, close the valves, and
 * complete only once every event sent before the snapshot was received; a subtask's valve opens
 * at its AcknowledgeCheckpointEvent, at completion or abort, or when triggering is aborted.
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
import { createCoordinator } from '../streaming/operators/OperatorFactory.ts';
import { SubtaskEventValve } from './SubtaskEventValve.ts';

/** What the holder needs from the JobMaster. */
export interface HolderServices {
  gateway(taskExecutor: RpcAddress): TaskExecutorGateway;
  failSubtask(vertexId: string, subtask: number, cause: string): void;
}

/** The id a coordinator uses before any checkpoint (OperatorCoordinator.NO_CHECKPOINT). */
export const NO_CHECKPOINT = -1;

export class OperatorCoordinatorHolder {
  private readonly valves = new Map<number, SubtaskEventValve>();
  /** The gateway of each subtask's current attempt. */
  private readonly gateways = new Map<number, { attemptNumber: number; send: (e: unknown) => CompletableFuture<void> }>();
  /**
   * The latest checkpoint the coordinator was asked to snapshot, or the one it was reset to.
   * Notifications for a higher id are for a checkpoint this holder never saw (its trigger was
   * aborted before reaching the coordinator, or the coordinator was reset since) and are ignored.
   */
  private latestAttemptedCheckpointId = NO_CHECKPOINT;

  constructor(
    private readonly env: EngineEnv,
    private readonly main: Executor,
    readonly vertexId: string,
    readonly operatorUid: string,
    readonly coordinator: OperatorCoordinator,
    private readonly services: HolderServices,
    private readonly parallelismOfVertex: number,
  ) {
    env.invariants.register(`OperatorCoordinatorHolder ${operatorUid}`, () => this.checkInvariants());
  }

  /** Creates a holder for every operator of the job that has a coordinator (the sources). */
  static createAll(env: EngineEnv, main: Executor, graph: JobGraph, services: HolderServices): OperatorCoordinatorHolder[] {
    const out: OperatorCoordinatorHolder[] = [];
    for (const v of graph.vertices) {
      for (const op of v.operators) {
        const coordinator = createCoordinator(op, env);
        if (coordinator === undefined) continue;
        out.push(new OperatorCoordinatorHolder(env, main, v.id, op.uid, coordinator, services, v.parallelism));
      }
    }
    return out;
  }

  start(): void {
    this.coordinator.start();
  }

  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void {
    if (isAcknowledgeCheckpointEvent(event)) {
      this.valve(subtask).openGatewayAndUnmarkCheckpoint(event.checkpointId);
      return;
    }
    this.coordinator.handleEventFromOperator(subtask, attemptNumber, event);
  }

  /**
   * The coordinator's part of checkpoint `checkpointId`. The result carries the coordinator's
   * state and completes only after every event sent before the snapshot was received.
   */
  checkpointCoordinator(checkpointId: number): CompletableFuture<unknown> {
    const result = new CompletableFuture<unknown>();
    this.latestAttemptedCheckpointId = checkpointId;
    const parallelism = this.parallelism();
    for (let s = 0; s < parallelism; s++) this.valve(s).markForCheckpoint(checkpointId);
    const snapshot = new CompletableFuture<unknown>();
    snapshot.whenComplete((state, error) => {
      if (error !== undefined) {
        result.completeExceptionally(error);
        return;
      }
      // Closing happens in the same step as the completion: nothing can slip in between.
      const inFlight: CompletableFuture<void[]>[] = [];
      for (const v of this.valves.values()) {
        v.tryCloseGateway(checkpointId);
        inFlight.push(v.eventsInFlightDone());
      }
      CompletableFuture.allOf(inFlight).whenComplete((_x, e) => {
        if (e !== undefined) {
          result.completeExceptionally(new Error('some OperatorEvents before this checkpoint barrier were not received'));
        } else {
          result.complete(state);
        }
      });
    });
    this.coordinator.checkpointCoordinator(checkpointId, snapshot);
    return result;
  }

  /** Opens the valves for `checkpointId` and notifies the coordinator, unless the id is unknown. */
  notifyCheckpointComplete(checkpointId: number): void {
    if (this.isUnknownCheckpointId(checkpointId)) return;
    for (const v of this.valves.values()) v.openGatewayAndUnmarkCheckpoint(checkpointId);
    this.coordinator.notifyCheckpointComplete(checkpointId);
  }

  /** Opens the valves for `checkpointId` and notifies the coordinator, unless the id is unknown. */
  notifyCheckpointAborted(checkpointId: number): void {
    if (this.isUnknownCheckpointId(checkpointId)) return;
    for (const v of this.valves.values()) v.openGatewayAndUnmarkCheckpoint(checkpointId);
    this.coordinator.notifyCheckpointAborted(checkpointId);
  }

  /**
   * A notification for a checkpoint above the latest attempted one: its trigger was aborted
   * before the coordinator step (e.g. by a failover), or the coordinator was reset to an older
   * checkpoint since. Flink's holder ignores these too (isUnknownCheckpointId); opening a valve
   * for an id it never marked would be an error.
   */
  private isUnknownCheckpointId(checkpointId: number): boolean {
    if (checkpointId <= this.latestAttemptedCheckpointId) return false;
    this.env.tracer.event('coordinator.unknownCheckpointNotification', { operator: this.operatorUid, checkpointId });
    return true;
  }

  /** Triggering failed: reopen the latest marked checkpoint everywhere. */
  abortCurrentTriggering(): void {
    for (const v of this.valves.values()) v.openLatest();
  }

  /** Global restore: reopen everything and reset the coordinator to `state`. */
  resetToCheckpoint(checkpointId: number, state: unknown): void {
    for (const v of this.valves.values()) v.reset();
    this.latestAttemptedCheckpointId = checkpointId;
    this.coordinator.resetToCheckpoint(checkpointId, state);
  }

  /** Regional restore of `subtask` to `checkpointId` (-1: none). */
  subtaskReset(subtask: number, checkpointId: number): void {
    this.valves.get(subtask)?.reset();
    this.coordinator.subtaskReset(subtask, checkpointId);
  }

  checkInvariants(): void {
    for (const v of this.valves.values()) v.checkInvariants();
  }

  /** The attempt of `ev` is deployed and initializing: give the coordinator its gateway. */
  attemptReady(ev: ExecutionVertex): void {
    const ex = ev.current;
    const slot = ex.slot;
    if (slot === undefined) return;
    const send = (event: unknown): CompletableFuture<void> => {
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
    };
    this.gateways.set(ev.subtask, { attemptNumber: ex.attemptNumber, send });
    const gateway: SubtaskGateway = {
      subtask: ev.subtask,
      attemptNumber: ex.attemptNumber,
      sendEvent: (event) => this.valve(ev.subtask).sendEvent(event),
    };
    this.coordinator.executionAttemptReady(ev.subtask, ex.attemptNumber, gateway);
  }

  /** The current attempt of `ev` failed (`cause`) or a restart cancels it (`null`). */
  attemptFailed(ev: ExecutionVertex, cause: string | null): void {
    this.coordinator.executionAttemptFailed(ev.subtask, ev.current.attemptNumber, cause);
  }

  /**
   * Before the vertices are redeployed without a checkpoint to restore: reset the coordinator as
   * Flink's restore path does with an empty store.
   */
  beforeRedeploy(vertices: readonly ExecutionVertex[], global: boolean): void {
    if (global) {
      this.resetToCheckpoint(NO_CHECKPOINT, undefined);
      return;
    }
    for (const v of vertices) {
      if (v.jobVertex.id === this.vertexId) this.subtaskReset(v.subtask, NO_CHECKPOINT);
    }
  }

  private parallelism(): number {
    return this.parallelismOfVertex;
  }

  /** The valve of `subtask`; events go to its current attempt's gateway. */
  private valve(subtask: number): SubtaskEventValve {
    let v = this.valves.get(subtask);
    if (v === undefined) {
      v = new SubtaskEventValve(subtask, (event) => {
        const g = this.gateways.get(subtask);
        if (g === undefined) return CompletableFuture.failed(new Error(`subtask ${subtask} has no gateway`));
        return g.send(event);
      }, (checkpointId) => this.env.tracer.mark('event-valve-held', { operator: this.operatorUid, subtask, checkpointId }));
      this.valves.set(subtask, v);
    }
    return v;
  }
}

function isAcknowledgeCheckpointEvent(e: unknown): e is { type: 'AcknowledgeCheckpointEvent'; checkpointId: number } {
  return typeof e === 'object' && e !== null && (e as { type?: unknown }).type === 'AcknowledgeCheckpointEvent';
}
