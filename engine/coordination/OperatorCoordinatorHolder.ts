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
 * A notification for a checkpoint a valve never marked (its trigger was aborted before the
 * coordinator step ran) makes Flink's gateway throw inside the holder's main-thread mail; the RPC
 * layer logs and swallows that, so the valves after it and the coordinator's own notification
 * are skipped for that checkpoint. This holder does the same (mark `coordinator-notify-skipped`),
 * without failing anything.
 *
 * @see org.apache.flink.runtime.operators.coordination.OperatorCoordinatorHolder, SubtaskGatewayImpl
 * Invariants: one valve per subtask, in subtask order (Flink iterates its HashMap of small
 * integer keys in that order); each valve's invariants.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { RpcAddress } from '../api/ids.ts';
import type { JobGraph } from '../jobgraph/JobGraph.ts';
import type { ExecutionVertex } from '../jobmaster/ExecutionGraph.ts';
import type { TaskExecutorGateway } from '../rpc/TaskExecutorGateway.ts';
import { assert } from '../util/assert.ts';
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
  /** Each subtask's valve, in subtask order. */
  private readonly valves = new Map<number, SubtaskEventValve>();
  /** The gateway of each subtask's current attempt. */
  private readonly gateways = new Map<number, { attemptNumber: number; send: (e: unknown) => CompletableFuture<void> }>();

  constructor(
    private readonly env: EngineEnv,
    private readonly main: Executor,
    readonly vertexId: string,
    readonly operatorUid: string,
    readonly coordinator: OperatorCoordinator,
    private readonly services: HolderServices,
    private readonly parallelismOfVertex: number,
  ) {
    for (let s = 0; s < this.parallelismOfVertex; s++) this.valve(s);
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

  /**
   * An event from a subtask's current attempt. An AcknowledgeCheckpointEvent opens its valve.
   * @throws AssertionError for an acknowledgement of a checkpoint the valve never marked: Flink
   *   fails the job globally there, and here it cannot happen (the JobMaster passes on events of
   *   current attempts only, and an attempt snapshots only checkpoints it was triggered for).
   */
  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void {
    if (isAcknowledgeCheckpointEvent(event)) {
      const valve = this.valve(subtask);
      assert(valve.openGatewayAndUnmarkCheckpoint(event.checkpointId), () =>
        `${this.operatorUid}#${subtask}: acknowledgement of checkpoint ${event.checkpointId}, `
        + `above the latest marked ${valve.latestAttemptedCheckpointId}`);
      return;
    }
    this.coordinator.handleEventFromOperator(subtask, attemptNumber, event);
  }

  /**
   * The coordinator's part of checkpoint `checkpointId`. The result carries the coordinator's
   * state and completes only after every event sent before the snapshot was received; it fails
   * when no valve could be closed (the checkpoint was aborted before the snapshot completed).
   */
  checkpointCoordinator(checkpointId: number): CompletableFuture<unknown> {
    const result = new CompletableFuture<unknown>();
    for (const v of this.valves.values()) v.markForCheckpoint(checkpointId);
    const snapshot = new CompletableFuture<unknown>();
    snapshot.whenComplete((state, error) => {
      if (error !== undefined) {
        result.completeExceptionally(error);
        return;
      }
      // Closing happens in the same step as the completion: nothing can slip in between.
      if (!this.closeGateways(checkpointId)) {
        result.completeExceptionally(new Error('Cannot close gateway'));
        return;
      }
      const inFlight: CompletableFuture<void[]>[] = [];
      for (const v of this.valves.values()) inFlight.push(v.eventsInFlightDone());
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

  /** Opens every valve for `checkpointId`, then notifies the coordinator (see the file comment). */
  notifyCheckpointComplete(checkpointId: number): void {
    if (this.openGatewaysAndUnmarkCheckpoint(checkpointId, 'complete')) {
      this.coordinator.notifyCheckpointComplete(checkpointId);
    }
  }

  /** Opens every valve for `checkpointId`, then notifies the coordinator (see the file comment). */
  notifyCheckpointAborted(checkpointId: number): void {
    if (this.openGatewaysAndUnmarkCheckpoint(checkpointId, 'aborted')) {
      this.coordinator.notifyCheckpointAborted(checkpointId);
    }
  }

  /** Triggering failed: reopen the latest marked checkpoint everywhere. */
  abortCurrentTriggering(): void {
    for (const v of this.valves.values()) v.openGatewayAndUnmarkLastCheckpointIfAny();
  }

  /** Global restore: reopen everything and reset the coordinator to `state`. */
  resetToCheckpoint(checkpointId: number, state: unknown): void {
    for (const v of this.valves.values()) v.reset();
    this.coordinator.resetToCheckpoint(checkpointId, state);
  }

  /** Regional restore of `subtask` to `checkpointId` (-1: none). */
  subtaskReset(subtask: number, checkpointId: number): void {
    this.valves.get(subtask)?.reset();
    this.coordinator.subtaskReset(subtask, checkpointId);
  }

  checkInvariants(): void {
    let previous = -1;
    for (const [subtask, v] of this.valves) {
      assert(subtask === previous + 1 && v.subtask === subtask,
        () => `${this.operatorUid}: valve of subtask ${subtask} out of order`);
      previous = subtask;
      v.checkInvariants();
    }
    assert(previous === this.parallelismOfVertex - 1, () => `${this.operatorUid}: ${previous + 1} valves`);
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

  attemptFailed(ev: ExecutionVertex, cause: string): void {
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

  /**
   * Opens every valve for `checkpointId` in subtask order. Returns false at the first valve that
   * never marked it, leaving the rest alone: Flink's gateway throws there and the mail ends.
   */
  private openGatewaysAndUnmarkCheckpoint(checkpointId: number,
    notification: 'complete' | 'aborted'): boolean {
    for (const [subtask, v] of this.valves) {
      if (v.openGatewayAndUnmarkCheckpoint(checkpointId)) continue;
      const attrs = { operator: this.operatorUid, checkpointId, subtask, notification };
      const latestMarked = v.latestAttemptedCheckpointId;
      this.env.tracer.event('coordinator.unseenCheckpoint', { ...attrs, latestMarked });
      this.env.tracer.mark('coordinator-notify-skipped', attrs);
      return false;
    }
    return true;
  }

  /**
   * Closes every valve for `checkpointId`; false when none was marked for it (aborted since).
   * @throws AssertionError when only some could close: Flink throws there too ("Some subtask
   *   gateway can be closed while others cannot"), and here the coordinator snapshots within the
   *   step that marked them, so no reset can come between.
   */
  private closeGateways(checkpointId: number): boolean {
    let closed = 0;
    for (const v of this.valves.values()) if (v.tryCloseGateway(checkpointId)) closed++;
    assert(closed === 0 || closed === this.valves.size,
      () => `${this.operatorUid}: ${closed} of ${this.valves.size} valves closed for ${checkpointId}`);
    return closed > 0;
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
