/**
 * Performs a task's checkpoints in Flink's order (reference 2.3): guard against out-of-order and
 * already-aborted ids, prepareSnapshotPreBarrier, broadcast the barrier downstream, the
 * synchronous snapshot of every operator (tail to head) followed by AcknowledgeCheckpointEvent to
 * the chain's coordinators, then the asynchronous part on the async snapshot thread. Also the
 * task-side abort paths (2.5): aborts from the barrier handler decline and forward a
 * CancelCheckpointMarker; abort notifications from the JobMaster close a running async part or
 * remember the id so its barrier is skipped later. Subsumption notifications only pass on to the
 * operators while the task runs.
 *
 * @see org.apache.flink.streaming.runtime.tasks.SubtaskCheckpointCoordinatorImpl
 * Invariants: lastCheckpointId never decreases; at most one async part per checkpoint id.
 */
import type { EngineEnv } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { ExecutionAttemptId } from '../../api/ids.ts';
import type { CheckpointBarrier, RuntimeEvent } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointFailureReason } from '../../checkpoint/CheckpointFailureReason.ts';
import { NO_BARRIER_METRICS, type BarrierMetrics } from '../../checkpoint/CheckpointMetrics.ts';
import { checkpointDirectory } from '../../checkpoint/CompletedCheckpoint.ts';
import { assert } from '../../util/assert.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import type { OperatorSnapshot } from '../operators/StreamOperator.ts';
import { AsyncCheckpointRunnable } from './AsyncCheckpointRunnable.ts';
import type { CheckpointResponder } from './CheckpointResponder.ts';
import type { OperatorChain } from './OperatorChain.ts';

/** What the coordinator needs from its task. */
export interface SubtaskCheckpointContext {
  readonly env: EngineEnv;
  readonly attemptId: ExecutionAttemptId;
  readonly asyncExecutor: Executor;
  /** Prefix of the job run's checkpoint directory ('' for a first run, `run-<n>/`). */
  readonly checkpointStoragePrefix: string;
  readonly responder: CheckpointResponder;
  readonly maxConcurrentCheckpoints: number;
  /** Broadcasts an event to every output partition. */
  broadcastEvent(event: RuntimeEvent): void;
  /** Sends AcknowledgeCheckpointEvent(id) to the coordinators of the chain's operators. */
  acknowledgeToCoordinators(checkpointId: number): void;
  isTaskRunning(): boolean;
  /** The task's operators have finished (its snapshots are final-checkpoint snapshots). */
  isTaskFinished(): boolean;
  isTaskDeployedAsFinished(): boolean;
}

/** The event a task sends to its coordinators at the end of its synchronous snapshot. */
export interface AcknowledgeCheckpointEvent {
  readonly type: 'AcknowledgeCheckpointEvent';
  readonly checkpointId: number;
}

export class SubtaskCheckpointCoordinator {
  private lastCheckpointId = -1;
  /** Ids aborted by notification before their barrier came (bounded, LRU). */
  private readonly abortedIds: number[] = [];
  private maxAbortedId = -1;
  private readonly running = new Map<number, AsyncCheckpointRunnable>();

  constructor(private readonly c: SubtaskCheckpointContext) {}

  /** The id of the latest checkpoint this task started or aborted. */
  get latestCheckpointId(): number {
    return this.lastCheckpointId;
  }

  /** Async parts still running, for tests and invariants. */
  get runningCheckpoints(): number[] {
    return [...this.running.keys()];
  }

  /**
   * Checkpoints the chain for `barrier` (2.3). Returns false if it was skipped (out of order or
   * already aborted). A throw from the synchronous part propagates: the task fails. `metrics`
   * (start delay, alignment) go on to the acknowledgement with the sync and async durations.
   */
  checkpointState(barrier: CheckpointBarrier, chain: OperatorChain, metrics: BarrierMetrics = NO_BARRIER_METRICS): boolean {
    const id = barrier.id;
    const { env, attemptId } = this.c;
    if (this.lastCheckpointId >= id) {
      env.tracer.event('checkpoint.skippedOutOfOrder', { checkpointId: id, task: attemptId });
      return false;
    }
    this.lastCheckpointId = id;
    if (this.checkAndClearAbortedStatus(id)) {
      env.tracer.event('checkpoint.skippedAborted', { checkpointId: id, task: attemptId });
      this.c.broadcastEvent({ type: 'cancel-checkpoint', checkpointId: id });
      return false;
    }
    // A task deployed as finished never opened its operators: it forwards the barrier and
    // acknowledges with no operator state (TaskStateSnapshot.FINISHED_ON_RESTORE).
    const deployedAsFinished = this.c.isTaskDeployedAsFinished();
    // Flink's syncDurationMillis spans prepareSnapshotPreBarrier to the end of the sync snapshot.
    const syncStartUs = env.clock.nowUs();
    if (!deployedAsFinished) chain.prepareSnapshotPreBarrier(id);
    this.c.broadcastEvent({ type: 'barrier', barrier });
    env.tracer.event('checkpoint.barrierSent', { checkpointId: id, task: attemptId });
    const snapshots: OperatorSnapshot[] = deployedAsFinished ? [] : chain.snapshotState(id);
    this.c.acknowledgeToCoordinators(id);
    env.tracer.event('checkpoint.syncDone', { checkpointId: id, task: attemptId });
    const runnable = new AsyncCheckpointRunnable({
      env,
      asyncExecutor: this.c.asyncExecutor,
      attemptId,
      checkpointId: id,
      // A savepoint's state goes into its own directory (the barrier's location reference).
      directory: barrier.options.targetLocation ?? `${this.c.checkpointStoragePrefix}${checkpointDirectory(id)}`,
      snapshots,
      metrics: { ...metrics, syncDurationUs: Math.max(0, env.clock.nowUs() - syncStartUs) },
      isTaskFinished: this.c.isTaskFinished(),
      isTaskDeployedAsFinished: deployedAsFinished,
      responder: this.c.responder,
      isTaskRunning: () => this.c.isTaskRunning(),
      onDone: () => this.running.delete(id),
    });
    this.running.set(id, runnable);
    runnable.start();
    return true;
  }

  /** The barrier handler aborted `id` (cancel marker, newer barrier, end of input): 2.5. */
  abortCheckpointOnBarrier(id: number, reason: CheckpointFailureReason): void {
    this.lastCheckpointId = Math.max(this.lastCheckpointId, id);
    while (this.abortedIds.length > 0 && (this.abortedIds[0] ?? 0) <= this.lastCheckpointId - this.c.maxConcurrentCheckpoints) {
      this.abortedIds.shift();
    }
    this.c.responder.declineCheckpoint({ attemptId: this.c.attemptId, checkpointId: id, reason });
    this.c.env.tracer.event('checkpoint.declinedByTask', { checkpointId: id, task: this.c.attemptId, reason });
    this.c.broadcastEvent({ type: 'cancel-checkpoint', checkpointId: id });
  }

  /** The JobMaster aborted `id` (notifyCheckpointAborted): close its async part or remember it. */
  notifyCheckpointAborted(id: number): void {
    const runnable = this.running.get(id);
    if (runnable !== undefined) {
      this.running.delete(id);
      runnable.close();
    } else if (id > this.lastCheckpointId) {
      this.abortedIds.push(id);
      while (this.abortedIds.length > this.c.maxConcurrentCheckpoints) this.abortedIds.shift();
      this.maxAbortedId = Math.max(this.maxAbortedId, id);
    }
  }

  /**
   * The JobMaster subsumed `id` (notifyCheckpointSubsumed): the chain's operators hear of it,
   * tail to head, while the task runs (Flink also tells its file-merging snapshot manager,
   * which is not modelled); ignored otherwise.
   */
  notifyCheckpointSubsumed(id: number, chain: OperatorChain | undefined): void {
    if (!this.c.isTaskRunning() || chain === undefined) return;
    this.c.env.tracer.event('checkpoint.taskSubsumed',
      { checkpointId: id, task: this.c.attemptId });
    chain.notifyCheckpointSubsumed(id);
  }

  /**
   * SubtaskCheckpointCoordinatorImpl.waitForPendingCheckpoints, for a finishing task: a future
   * that completes once every async part registered now has ended (acknowledged, failed or
   * discarded), or undefined when none is (the task's thread then goes on without waiting).
   */
  pendingCheckpointsFinished(): CompletableFuture<void[]> | undefined {
    if (this.running.size === 0) return undefined;
    return CompletableFuture.allOf([...this.running.values()].map((r) => r.finished));
  }

  /** The task stops: every running async part is discarded. */
  close(): void {
    for (const r of this.running.values()) r.close();
    this.running.clear();
  }

  checkInvariants(): void {
    for (const id of this.running.keys()) assert(id <= this.lastCheckpointId, `async part ${id} newer than last ${this.lastCheckpointId}`);
  }

  private checkAndClearAbortedStatus(id: number): boolean {
    const i = this.abortedIds.indexOf(id);
    if (i >= 0) {
      this.abortedIds.splice(i, 1);
      return true;
    }
    return id + this.c.maxConcurrentCheckpoints < this.maxAbortedId;
  }
}
