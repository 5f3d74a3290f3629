/**
 * Holds one OperatorCoordinator on the JobMaster main thread and connects it to the subtasks:
 * it sets up a SubtaskGateway per subtask (events travel as `sendOperatorEventToTask` RPCs to the
 * attempt the gateway was handed to; a failed send fails that subtask over), tells the coordinator
 * about attempts becoming ready or failing, and resets it on failover (subtaskReset for a regional
 * restore, resetToCheckpoint for a global one), each with fresh gateways. It runs the
 * coordinator's part of a checkpoint with the exactly-once event valve (reference 1.6): mark every
 * gateway, snapshot the coordinator, close the gateways, and complete only once every event sent
 * before the snapshot was received; a gateway opens at its subtask's AcknowledgeCheckpointEvent,
 * at completion or abort, when triggering is aborted, or (all of them, releasing everything held)
 * at a global reset.
 *
 * Threads: everything here runs on the main thread, and the coordinator does its work on its own
 * coordinator thread (`<run>/coordinator-<uid>`, which {@link createAll} makes and the coordinator
 * queues onto). The way back is a hop to the main thread too, as in Flink: a gateway's `sendEvent`,
 * called on the coordinator thread, queues the valve's decision on the main thread
 * (SubtaskGatewayImpl.sendEvent), and the coordinator's snapshot future, completed on its thread,
 * is handled on the main thread (checkpointCoordinatorInternal's handleAsync). Both go through the
 * main thread's FIFO, so an event the coordinator sent before its snapshot reaches the valve before
 * the gateways close, and one sent after it is held.
 *
 * A notification for a checkpoint a gateway never marked (its trigger was aborted before the
 * coordinator step ran, or the gateway is fresh since a reset) makes Flink's gateway throw inside
 * the holder's main-thread mail; the RPC layer logs and swallows that, so the gateways after it
 * and the coordinator's own notification are skipped for that checkpoint. This holder does the
 * same (mark `coordinator-notify-skipped`), without failing anything.
 *
 * @see org.apache.flink.runtime.operators.coordination.OperatorCoordinatorHolder, SubtaskGatewayImpl
 * Invariants: one gateway per subtask in subtask order (Flink iterates its HashMap of small
 * integer keys in that order); a gateway is handed to at most one attempt; each gateway's valve
 * invariants.
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

/**
 * Planted bug FLINK-16986 (and FLINK-28606, its wider window): events the coordinator sends after
 * its snapshot of a checkpoint are not held back until the subtask has taken its own snapshot.
 */
export const COORDINATOR_EVENTS_BYPASS_VALVE = 'coordinator-events-bypass-valve';

/** What the holder needs from the JobMaster. */
export interface HolderServices {
  gateway(taskExecutor: RpcAddress): TaskExecutorGateway;
  failSubtask(vertexId: string, subtask: number, cause: string): void;
}

/** The id a coordinator uses before any checkpoint (OperatorCoordinator.NO_CHECKPOINT). */
export const NO_CHECKPOINT = -1;

/** The attempt a gateway was handed to, and how to send it an event. */
interface GatewayAttempt {
  readonly attemptNumber: number;
  readonly send: (event: unknown) => CompletableFuture<void>;
}

/** One subtask's current gateway: its valve and, once an attempt is ready, that attempt. */
interface GatewayEntry {
  readonly valve: SubtaskEventValve;
  attempt: GatewayAttempt | undefined;
}

export class OperatorCoordinatorHolder {
  /** The current gateway of each subtask, in subtask order (Flink's subtaskGatewayMap). */
  private readonly gateways = new Map<number, GatewayEntry>();
  private readonly unregisterInvariants: () => void;

  /**
   * @param coordinatorExecutor the coordinator's own thread (the coordinator queues its work
   *   there; the holder only hands it out, to the fault plan that stalls it).
   */
  constructor(
    private readonly env: EngineEnv,
    private readonly main: Executor,
    readonly vertexId: string,
    readonly operatorUid: string,
    readonly coordinator: OperatorCoordinator,
    private readonly services: HolderServices,
    private readonly parallelismOfVertex: number,
    readonly coordinatorExecutor: Executor = main,
  ) {
    this.setupAllSubtaskGateways();
    this.unregisterInvariants = env.invariants.register(`OperatorCoordinatorHolder ${operatorUid}`,
      () => this.checkInvariants());
  }

  /**
   * Creates a holder for every operator of the job that has a coordinator (the sources), each with
   * its coordinator thread `<executorPrefix>/coordinator-<uid>` on this host (Flink's
   * "SourceCoordinator-<operator name>" thread), which dies with the host.
   */
  static createAll(env: EngineEnv, main: Executor, graph: JobGraph, services: HolderServices,
    executorPrefix = 'jobmaster'): OperatorCoordinatorHolder[] {
    const out: OperatorCoordinatorHolder[] = [];
    for (const v of graph.vertices) {
      for (const op of v.operators) {
        if (op.spec.kind !== 'source') continue;
        const executor = env.executors.get(`${executorPrefix}/coordinator-${op.uid}`);
        const coordinator = createCoordinator(op, env, executor);
        if (coordinator === undefined) continue;
        out.push(new OperatorCoordinatorHolder(env, main, v.id, op.uid, coordinator, services,
          v.parallelism, executor));
      }
    }
    return out;
  }

  start(): void {
    this.coordinator.start();
  }

  /**
   * The JobMaster stops (its job reached a globally terminal state): the coordinator closes, so
   * whatever is still queued on its thread is dropped (OperatorCoordinatorHolder.close).
   */
  close(): void {
    this.coordinator.close();
    this.unregisterInvariants();
  }

  /**
   * An event from a subtask's current attempt. An AcknowledgeCheckpointEvent opens its gateway.
   * @throws AssertionError for an acknowledgement of a checkpoint the gateway never marked: Flink
   *   fails the job globally there, and here it cannot happen (the JobMaster passes on events of
   *   current attempts only, and an attempt snapshots only checkpoints triggered after its
   *   gateway was set up).
   */
  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void {
    if (isAcknowledgeCheckpointEvent(event)) {
      const valve = this.gateway(subtask).valve;
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
   * when no gateway could be closed (the checkpoint was aborted before the snapshot completed).
   */
  checkpointCoordinator(checkpointId: number): CompletableFuture<unknown> {
    const result = new CompletableFuture<unknown>();
    for (const g of this.gateways.values()) g.valve.markForCheckpoint(checkpointId);
    const snapshot = new CompletableFuture<unknown>();
    // The coordinator completes the snapshot on its own thread; closing the gateways is a mail on
    // the main thread, behind the sends the coordinator made before (Flink's handleAsync).
    snapshot.whenCompleteAsync(this.main, 'coordinator-checkpoint-done', (state, error) => {
      if (error !== undefined) {
        result.completeExceptionally(error);
        return;
      }
      if (!this.closeGateways(checkpointId)) {
        // The checkpoint was aborted (or the gateways reset) between the mark and this close.
        this.env.tracer.mark('coordinator-checkpoint-after-abort', { operator: this.operatorUid, checkpointId });
        result.completeExceptionally(new Error('Cannot close gateway'));
        return;
      }
      const inFlight: CompletableFuture<void[]>[] = [];
      for (const g of this.gateways.values()) inFlight.push(g.valve.eventsInFlightDone());
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

  /** Opens every gateway for `checkpointId`, then notifies the coordinator (see the file comment). */
  notifyCheckpointComplete(checkpointId: number): void {
    if (this.openGatewaysAndUnmarkCheckpoint(checkpointId, 'complete')) {
      this.coordinator.notifyCheckpointComplete(checkpointId);
    }
  }

  /** Opens every gateway for `checkpointId`, then notifies the coordinator (see the file comment). */
  notifyCheckpointAborted(checkpointId: number): void {
    if (this.openGatewaysAndUnmarkCheckpoint(checkpointId, 'aborted')) {
      this.coordinator.notifyCheckpointAborted(checkpointId);
    }
  }

  /** Triggering failed: reopen each gateway's latest marked checkpoint. */
  abortCurrentTriggering(): void {
    for (const g of this.gateways.values()) g.valve.openGatewayAndUnmarkLastCheckpointIfAny();
  }

  /**
   * Global restore: every gateway opens for every checkpoint, so the events it held go out to the
   * attempt it belonged to (the old one, which no longer takes them); then every subtask gets a
   * fresh gateway and the coordinator is reset to `state`.
   */
  resetToCheckpoint(checkpointId: number, state: unknown): void {
    for (const g of this.gateways.values()) g.valve.openGatewayAndUnmarkAllCheckpoint();
    this.setupAllSubtaskGateways();
    this.coordinator.resetToCheckpoint(checkpointId, state);
  }

  /**
   * Regional restore of `subtask` to `checkpointId` (-1: none): the subtask gets a fresh gateway
   * first (so the coordinator may already see it), then the coordinator resets the subtask. As in
   * Flink, the old gateway is dropped with its marks and whatever it held: those events are never
   * sent and their futures never complete.
   */
  subtaskReset(subtask: number, checkpointId: number): void {
    this.setupSubtaskGateway(subtask);
    this.coordinator.subtaskReset(subtask, checkpointId);
  }

  checkInvariants(): void {
    let previous = -1;
    for (const [subtask, g] of this.gateways) {
      assert(subtask === previous + 1 && g.valve.subtask === subtask,
        () => `${this.operatorUid}: gateway of subtask ${subtask} out of order`);
      previous = subtask;
      g.valve.checkInvariants();
    }
    assert(previous === this.parallelismOfVertex - 1, () => `${this.operatorUid}: ${previous + 1} gateways`);
  }

  /**
   * The attempt of `ev` is deployed and initializing: hand it the subtask's current gateway (set
   * up at the last reset, or at the start) and tell the coordinator.
   * @throws AssertionError when that gateway was already handed to another attempt (every
   *   redeployment goes through a reset, which sets up a fresh gateway).
   */
  attemptReady(ev: ExecutionVertex): void {
    const ex = ev.current;
    const slot = ex.slot;
    if (slot === undefined) return;
    const entry = this.gateway(ev.subtask);
    const bound = entry.attempt?.attemptNumber;
    assert(bound === undefined || bound === ex.attemptNumber, () =>
      `${this.operatorUid}#${ev.subtask}: gateway of attempt ${String(bound)} reused for ${ex.attemptNumber}`);
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
    entry.attempt = { attemptNumber: ex.attemptNumber, send };
    const gateway: SubtaskGateway = {
      subtask: ev.subtask,
      attemptNumber: ex.attemptNumber,
      // Called on the coordinator thread: the valve decides on the main thread
      // (SubtaskGatewayImpl.sendEvent). Bound to this gateway's valve: after a reset, events sent
      // through it stay with it.
      sendEvent: (event) => {
        const result = new CompletableFuture<void>();
        this.main.execute('operator-event-send', () => {
          entry.valve.sendEvent(event).whenComplete((_v, e) => {
            if (e === undefined) result.complete(undefined);
            else result.completeExceptionally(e);
          });
        });
        return result;
      },
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

  /**
   * Opens every gateway for `checkpointId` in subtask order. Returns false at the first gateway
   * that never marked it, leaving the rest alone: Flink's gateway throws there and the mail ends.
   */
  private openGatewaysAndUnmarkCheckpoint(checkpointId: number,
    notification: 'complete' | 'aborted'): boolean {
    for (const [subtask, g] of this.gateways) {
      if (g.valve.openGatewayAndUnmarkCheckpoint(checkpointId)) continue;
      const attrs = { operator: this.operatorUid, checkpointId, subtask, notification };
      const latestMarked = g.valve.latestAttemptedCheckpointId;
      this.env.tracer.event('coordinator.unseenCheckpoint', { ...attrs, latestMarked });
      this.env.tracer.mark('coordinator-notify-skipped', attrs);
      return false;
    }
    return true;
  }

  /**
   * Closes every gateway for `checkpointId`; false when none was marked for it (aborted since).
   * @throws AssertionError when only some could close: Flink throws there too ("Some subtask
   *   gateway can be closed while others cannot", which its assertNoException turns into a fatal
   *   error). It cannot happen here: a subtask's gateway is replaced only by a restore, which runs
   *   in a restart task on the main thread, queued after the failure's task had already aborted
   *   every pending checkpoint (the job went RESTARTING) and queued the notification mail that
   *   unmarks the other gateways; so by the time this close runs after such a restore, no
   *   gateway is marked for `checkpointId` any more.
   */
  private closeGateways(checkpointId: number): boolean {
    let closed = 0;
    for (const g of this.gateways.values()) if (g.valve.tryCloseGateway(checkpointId)) closed++;
    assert(closed === 0 || closed === this.gateways.size,
      () => `${this.operatorUid}: ${closed} of ${this.gateways.size} gateways closed for ${checkpointId}`);
    return closed > 0;
  }

  private setupAllSubtaskGateways(): void {
    for (let s = 0; s < this.parallelismOfVertex; s++) this.setupSubtaskGateway(s);
  }

  /** A fresh gateway for `subtask`, replacing its current one in place (Map order stays). */
  private setupSubtaskGateway(subtask: number): void {
    const send = (event: unknown): CompletableFuture<void> => {
      const a = entry.attempt;
      if (a === undefined) return CompletableFuture.failed(new Error(`subtask ${subtask} is not ready`));
      return a.send(event);
    };
    const onHeld = (checkpointId: number): void =>
      this.env.tracer.mark('event-valve-held', { operator: this.operatorUid, subtask, checkpointId });
    // Planted FLINK-16986: without the valve's hold, an event sent after the coordinator's snapshot
    // can reach the subtask before its barrier, so the subtask's snapshot has its effect (a split)
    // and the coordinator's does not: after a restore from that checkpoint both hold the split.
    const holds = !this.env.bugs.has(COORDINATOR_EVENTS_BYPASS_VALVE);
    const entry: GatewayEntry = { attempt: undefined, valve: new SubtaskEventValve(subtask, send, onHeld, holds) };
    this.gateways.set(subtask, entry);
  }

  /** The current gateway of `subtask`. @throws AssertionError outside [0, parallelism). */
  private gateway(subtask: number): GatewayEntry {
    const g = this.gateways.get(subtask);
    assert(g !== undefined, () => `${this.operatorUid}: no subtask ${subtask}`);
    return g;
  }
}

function isAcknowledgeCheckpointEvent(e: unknown): e is { type: 'AcknowledgeCheckpointEvent'; checkpointId: number } {
  return typeof e === 'object' && e !== null && (e as { type?: unknown }).type === 'AcknowledgeCheckpointEvent';
}
