/**
 * The JobManager side of the checkpoint protocol: triggers checkpoints through Flink's pipeline
 * and thread hops (decider on the caller's thread or the timer; plan on the JobMaster main
 * thread; id on the ioExecutor; PendingCheckpoint and its timeout canceller on the timer;
 * storage location on io; OperatorCoordinator snapshots on main, acknowledged on the timer; master
 * hooks; trigger RPCs to the tasks to trigger), takes acks and declines (on the ioExecutor),
 * expires, completes (metadata write, then the store, then subsumption and notifications) and
 * aborts checkpoints, and restores the latest one on failover.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (reference 1.2 to 1.12, 5.1, 5.2)
 * Invariants: every PendingCheckpoint in the map is undisposed and the map's ids increase; at
 * most maxConcurrent checkpoints (non-savepoints) are pending; after shutdown nothing is pending.
 * Planted bugs (CheckpointPlantedBugs.ts): `fm-success-before-store`, `decline-any-attempt`,
 * `failover-keeps-pending`, `late-ack-state-leak`, `dispose-clears-before-discard`.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import type { TraceAttrs } from '../api/Tracer.ts';
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { CheckpointOptions } from './CheckpointBarrier.ts';
import {
  isPeriodicCheckpointingConfigured, type CheckpointCoordinatorConfiguration,
} from './CheckpointCoordinatorConfiguration.ts';
import type { CheckpointCoordinatorContext } from './CheckpointCoordinatorContext.ts';
import { CheckpointCoordinatorDeActivator } from './CheckpointCoordinatorDeActivator.ts';
import { CheckpointException, type CheckpointFailureReason } from './CheckpointFailureReason.ts';
import {
  CheckpointFailureManager, getCheckpointException, UNKNOWN_CHECKPOINT_ID,
} from './CheckpointFailureManager.ts';
import { CheckpointIDCounter } from './CheckpointIDCounter.ts';
import { subtaskOfAttemptId, type CheckpointPlan, type SubtaskRef } from './CheckpointPlan.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import { CheckpointProperties } from './CheckpointProperties.ts';
import { CheckpointRequestDecider } from './CheckpointRequestDecider.ts';
import { CheckpointRestorer, type CheckpointRestoreResult } from './CheckpointRestorer.ts';
import { CheckpointsCleaner } from './CheckpointsCleaner.ts';
import { CheckpointTriggerRequest } from './CheckpointTriggerRequest.ts';
import { checkpointDirectory, type CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { CompletedCheckpointStore } from './CompletedCheckpointStore.ts';
import { DefaultCheckpointPlanCalculator } from './DefaultCheckpointPlanCalculator.ts';
import { DefaultCompletedCheckpointStore } from './DefaultCompletedCheckpointStore.ts';
import type { MasterTriggerRestoreHook } from './MasterTriggerRestoreHook.ts';
import { PendingCheckpoint } from './PendingCheckpoint.ts';
import { PeriodicCheckpointScheduler } from './PeriodicCheckpointScheduler.ts';
import type { AcknowledgeCheckpoint, DeclineCheckpoint, JobManagerTaskRestore } from './TaskStateSnapshot.ts';

/** How many expired ids are remembered to tell late acks from unknown ones. */
export const NUM_GHOST_CHECKPOINT_IDS = 16;

/** Constructor options of {@link CheckpointCoordinator}. */
export interface CheckpointCoordinatorOptions {
  readonly config: CheckpointCoordinatorConfiguration;
  readonly context: CheckpointCoordinatorContext;
  /** Defaults to a DefaultCompletedCheckpointStore keeping `config.retained`. */
  readonly store?: (cleaner: CheckpointsCleaner) => CompletedCheckpointStore;
}

export class CheckpointCoordinator {
  readonly idCounter: CheckpointIDCounter;
  readonly cleaner: CheckpointsCleaner;
  readonly store: CompletedCheckpointStore;
  readonly failureManager: CheckpointFailureManager;
  private readonly env: EngineEnv;
  private readonly ctx: CheckpointCoordinatorContext;
  private readonly config: CheckpointCoordinatorConfiguration;
  private readonly timer: Executor;
  private readonly main: Executor;
  private readonly io: Executor;
  private readonly decider: CheckpointRequestDecider;
  private readonly planCalculator: DefaultCheckpointPlanCalculator;
  private readonly periodic: PeriodicCheckpointScheduler;
  private readonly restorer: CheckpointRestorer;
  private readonly props: CheckpointProperties;
  private readonly masterHooks: MasterTriggerRestoreHook[] = [];
  private readonly pending = new Map<number, PendingCheckpoint>();
  private readonly recentExpired: number[] = [];
  private triggering = false;
  private shutDown = false;
  private periodicScheduling = false;
  private lastCompletionUs = 0;
  private forceFullSnapshot = false;
  private requestSeq = 0;

  constructor(options: CheckpointCoordinatorOptions) {
    const ctx = options.context;
    this.ctx = ctx;
    this.env = ctx.env;
    this.config = options.config;
    this.timer = ctx.timerExecutor;
    this.main = ctx.mainExecutor;
    this.io = ctx.ioExecutor;
    this.props = CheckpointProperties.forCheckpoint(this.config.retention);
    this.idCounter = new CheckpointIDCounter(this.env);
    this.cleaner = new CheckpointsCleaner(this.env, this.io);
    this.store = options.store?.(this.cleaner) ??
      new DefaultCompletedCheckpointStore(this.env, { retained: this.config.retained, cleaner: this.cleaner });
    this.failureManager = new CheckpointFailureManager(this.env, this.config.tolerableFailures, {
      failJob: (cause) => ctx.failJob(cause),
      failJobDueToTaskFailure: (cause, attemptId) => this.failJobDueToTaskFailure(cause, attemptId),
    });
    this.decider = new CheckpointRequestDecider(this.env, {
      maxConcurrent: this.config.maxConcurrent,
      minPauseUs: this.config.minPauseUs,
      numberOfPendingCheckpoints: () => this.pending.size,
      numberOfCleaningCheckpoints: () => this.cleaner.numberOfCheckpointsToClean(),
      rescheduleTrigger: (delayUs) => this.periodic.rescheduleTrigger(delayUs),
    });
    this.planCalculator = new DefaultCheckpointPlanCalculator(ctx, this.env,
      this.config.checkpointsAfterTasksFinish);
    this.periodic = new PeriodicCheckpointScheduler(this.env, this.timer, this.config.intervalUs,
      this.config.minPauseUs, () => this.triggerCheckpoint(true));
    this.restorer = new CheckpointRestorer(ctx, this.store, this.masterHooks);
    this.env.invariants.register('checkpoint-coordinator', () => this.checkInvariants());
  }

  // ---- public state -------------------------------------------------------------------------

  get numberOfPendingCheckpoints(): number {
    return this.pending.size;
  }

  /** The pending checkpoints, oldest first. */
  getPendingCheckpoints(): PendingCheckpoint[] {
    return [...this.pending.values()];
  }

  get numQueuedRequests(): number {
    return this.decider.numQueuedRequests;
  }

  /** True from the start of a trigger until its RPCs were sent (or it failed). */
  get isTriggering(): boolean {
    return this.triggering;
  }

  get isShutdown(): boolean {
    return this.shutDown;
  }

  get isPeriodicCheckpointingStarted(): boolean {
    return this.periodicScheduling;
  }

  /** When the latest checkpoint completed, µs (0 before any). */
  get lastCheckpointCompletionUs(): number {
    return this.lastCompletionUs;
  }

  /** A job status listener that starts and stops the periodic scheduler. */
  createActivatorDeactivator(): CheckpointCoordinatorDeActivator {
    return new CheckpointCoordinatorDeActivator(this);
  }

  /** Adds a master hook; false (and nothing changes) when its identifier is taken. */
  addMasterHook(hook: MasterTriggerRestoreHook): boolean {
    if (this.masterHooks.some((h) => h.identifier === hook.identifier)) return false;
    this.masterHooks.push(hook);
    return true;
  }

  // ---- scheduler ----------------------------------------------------------------------------

  /** Starts periodic checkpoints (restarting them if running); no-op without an interval. */
  startCheckpointScheduler(): void {
    if (this.shutDown || !isPeriodicCheckpointingConfigured(this.config)) return;
    if (this.periodicScheduling) this.stopCheckpointScheduler();
    this.periodicScheduling = true;
    this.periodic.start();
  }

  /** Stops periodic checkpoints and aborts queued and pending ones (CHECKPOINT_COORDINATOR_SUSPEND). */
  stopCheckpointScheduler(): void {
    this.periodicScheduling = false;
    this.periodic.stop();
    const exception = new CheckpointException('CHECKPOINT_COORDINATOR_SUSPEND');
    this.decider.abortAll(exception);
    this.abortPendingCheckpoints('CHECKPOINT_COORDINATOR_SUSPEND');
  }

  /**
   * Shuts the coordinator down for good: closes the hooks, aborts everything
   * (CHECKPOINT_COORDINATOR_SHUTDOWN) and shuts the store down at `jobStatus`. Later messages
   * are ignored.
   */
  shutdown(jobStatus: JobStatus): void {
    if (this.shutDown) return;
    this.stopCheckpointScheduler();
    this.shutDown = true;
    for (const h of this.masterHooks) h.close();
    this.decider.abortAll(new CheckpointException('CHECKPOINT_COORDINATOR_SHUTDOWN'));
    this.abortPendingCheckpoints('CHECKPOINT_COORDINATOR_SHUTDOWN');
    this.store.shutdown(jobStatus, () => undefined);
  }

  // ---- triggering ---------------------------------------------------------------------------

  /**
   * Requests a checkpoint (periodic when `isPeriodic`). The request is queued and run when the
   * decider allows. @returns a future of the CompletedCheckpoint, failing with a
   * CheckpointException.
   */
  triggerCheckpoint(isPeriodic = false): CompletableFuture<CompletedCheckpoint> {
    const request = new CheckpointTriggerRequest(this.props, isPeriodic, this.env.clock.nowUs(), this.requestSeq++);
    if (this.shutDown) {
      request.future.completeExceptionally(new CheckpointException('CHECKPOINT_COORDINATOR_SHUTDOWN'));
      return request.future;
    }
    const chosen = this.decider.chooseRequestToExecute(request, this.triggering, this.lastCompletionUs);
    if (chosen !== undefined) this.startTriggeringCheckpoint(chosen);
    return request.future;
  }

  private preCheckGlobalState(isPeriodic: boolean): void {
    if (this.shutDown) throw new CheckpointException('CHECKPOINT_COORDINATOR_SHUTDOWN');
    if (isPeriodic && !this.periodicScheduling) throw new CheckpointException('PERIODIC_SCHEDULER_SHUTDOWN');
  }

  private startTriggeringCheckpoint(request: CheckpointTriggerRequest): void {
    try {
      this.preCheckGlobalState(request.isPeriodic);
    } catch (e) {
      this.onTriggerFailure(undefined, request, e);
      return;
    }
    assert(!this.triggering, 'two triggers in flight');
    this.triggering = true;
    const timestampUs = this.env.clock.nowUs();
    const pendingFuture = CompletableFuture.completed(undefined)
      .thenApplyAsync(this.main, 'checkpoint-plan', () => this.planCalculator.calculateCheckpointPlan())
      .thenApplyAsync(this.io, 'checkpoint-id', (plan) => ({ plan, id: this.idCounter.getAndIncrement() as number }))
      .thenApplyAsync(this.timer, 'checkpoint-create-pending',
        ({ plan, id }) => this.createPendingCheckpoint(request, plan, id, timestampUs));
    const triggered = pendingFuture
      // Initialise the storage location (chk-<id>): a hop to the ioExecutor, nothing to create.
      .thenApplyAsync(this.io, 'checkpoint-init-location', (pc) => pc)
      .thenComposeAsync(this.timer, 'checkpoint-coordinators', (pc) => this.triggerCoordinators(pc))
      .thenComposeAsync(this.timer, 'checkpoint-master-hooks', (pc) => this.snapshotMasterState(pc, timestampUs));
    pendingFuture.whenComplete((pc, error) => {
      if (pc === undefined) {
        this.timer.execute('checkpoint-trigger-failed', () => this.onTriggerFailure(undefined, request, error));
        return;
      }
      triggered.whenComplete((_v, e) => {
        if (e === undefined) pc.masterTriggerCompletionPromise.complete(undefined);
        else pc.masterTriggerCompletionPromise.completeExceptionally(e);
      });
      pc.masterTriggerCompletionPromise.whenCompleteAsync(this.timer, 'checkpoint-trigger-tasks', (_v, e) => {
        if (e !== undefined) this.onTriggerFailure(pc, request, e);
        else this.triggerCheckpointRequest(request, timestampUs, pc);
      });
    });
  }

  private createPendingCheckpoint(request: CheckpointTriggerRequest, plan: CheckpointPlan, id: number,
    timestampUs: number): PendingCheckpoint {
    this.preCheckGlobalState(request.isPeriodic);
    const pc = new PendingCheckpoint({
      checkpointId: id,
      triggerTimestampUs: timestampUs,
      plan,
      props: request.props,
      coordinatorUids: this.ctx.coordinators.map((c) => c.operatorUid),
      masterHookIds: this.masterHooks.map((h) => h.identifier),
      matchAnyAttempt: this.env.bugs.has(PLANTED_BUGS.failoverKeepsPending),
    });
    this.pending.set(id, pc);
    pc.completionFuture.whenComplete((cp, err) => {
      if (cp !== undefined) request.future.complete(cp);
      else request.future.completeExceptionally(err);
    });
    pc.setCancellerHandle(this.timer.schedule('checkpoint-timeout', this.config.timeoutUs, () => {
      if (pc.isDisposed()) return;
      this.env.tracer.mark('checkpoint-expired', { checkpointId: id });
      this.abortPendingCheckpoint(pc, new CheckpointException('CHECKPOINT_EXPIRED'), undefined);
    }));
    this.env.tracer.event('checkpoint.plan', { checkpointId: id,
      waitFor: plan.tasksToWaitFor.map((t) => t.attemptId).join(','),
      finished: plan.finishedTasks.map((t) => t.attemptId).join(',') });
    this.env.tracer.event('checkpoint.triggered', { checkpointId: id, timestampUs });
    return pc;
  }

  /** Snapshots every coordinator together on main; acknowledges their states on the timer. */
  private triggerCoordinators(pc: PendingCheckpoint): CompletableFuture<PendingCheckpoint> {
    const result = new CompletableFuture<PendingCheckpoint>();
    const coordinators = this.ctx.coordinators;
    this.main.execute('checkpoint-coordinators-trigger', () => {
      const futures = coordinators.map((c) => {
        try {
          return c.checkpointCoordinator(pc.checkpointId);
        } catch (e) {
          return CompletableFuture.failed<unknown>(e);
        }
      });
      CompletableFuture.allOf(futures).whenCompleteAsync(this.timer, 'checkpoint-coordinators-ack', (states, err) => {
        if (err !== undefined || states === undefined) {
          result.completeExceptionally(getCheckpointException(err));
          return;
        }
        if (!pc.isDisposed()) {
          for (let i = 0; i < coordinators.length; i++) {
            const uid = (coordinators[i] as { operatorUid: string }).operatorUid;
            if (pc.acknowledgeCoordinatorState(uid, states[i]) !== 'SUCCESS') {
              result.completeExceptionally(new CheckpointException('TRIGGER_CHECKPOINT_FAILURE',
                `coordinator state of ${uid} not accepted`));
              return;
            }
          }
        }
        this.env.tracer.event('checkpoint.coordinatorsSnapshotted', { checkpointId: pc.checkpointId });
        result.complete(pc);
      });
    });
    return result;
  }

  /** Triggers the master hooks after the coordinators; any failure is TRIGGER_CHECKPOINT_FAILURE. */
  private snapshotMasterState(pc: PendingCheckpoint, timestampUs: number): CompletableFuture<void> {
    if (this.masterHooks.length === 0 || pc.isDisposed()) return CompletableFuture.completed<void>(undefined);
    const hooks = [...this.masterHooks];
    const futures = hooks.map((h) => {
      try {
        return h.triggerCheckpoint(pc.checkpointId, timestampUs, this.io) ?? CompletableFuture.completed<unknown>(null);
      } catch (e) {
        return CompletableFuture.failed<unknown>(e);
      }
    });
    const result = new CompletableFuture<void>();
    CompletableFuture.allOf(futures).whenCompleteAsync(this.timer, 'checkpoint-master-ack', (states, err) => {
      if (err !== undefined || states === undefined) {
        result.completeExceptionally(new CheckpointException('TRIGGER_CHECKPOINT_FAILURE',
          `master hook failed: ${err instanceof Error ? err.message : String(err)}`));
        return;
      }
      hooks.forEach((h, i) => pc.acknowledgeMasterState(h.identifier, states[i]));
      result.complete(undefined);
    });
    return result;
  }

  /** Step 9: the trigger RPCs to the tasks to trigger, on the timer thread. */
  private triggerCheckpointRequest(request: CheckpointTriggerRequest, timestampUs: number,
    pc: PendingCheckpoint): void {
    if (pc.isDisposed()) {
      this.onTriggerFailure(pc, request, new CheckpointException('TRIGGER_CHECKPOINT_FAILURE',
        `checkpoint ${pc.checkpointId} was disposed while triggering`));
      return;
    }
    const options = this.checkpointOptions();
    const acks = pc.plan.tasksToTrigger.map((t) => {
      this.env.tracer.event('checkpoint.triggerSent', { checkpointId: pc.checkpointId, task: t.attemptId });
      return this.ctx.triggerCheckpoint(t, pc.checkpointId, timestampUs, options);
    });
    CompletableFuture.allOf(acks).whenCompleteAsync(this.timer, 'checkpoint-trigger-result', (_v, err) => {
      if (err !== undefined && !pc.isDisposed()) {
        this.abortPendingCheckpoint(pc, getCheckpointException(err), undefined);
      }
    });
    if (pc.isFullyAcknowledged() && !pc.isFinalizing) this.completePendingCheckpoint(pc);
    this.triggering = false;
    this.executeQueuedRequest();
  }

  private checkpointOptions(): CheckpointOptions {
    const c = this.config;
    const snapshotType = this.forceFullSnapshot ? 'FULL_CHECKPOINT' : 'CHECKPOINT';
    if (c.mode !== 'EXACTLY_ONCE') return { snapshotType, alignment: 'AT_LEAST_ONCE', alignedCheckpointTimeoutUs: 0 };
    if (!c.unaligned) return { snapshotType, alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0 };
    if (c.alignedCheckpointTimeoutUs === 0) return { snapshotType, alignment: 'UNALIGNED', alignedCheckpointTimeoutUs: 0 };
    return { snapshotType, alignment: 'ALIGNED', alignedCheckpointTimeoutUs: c.alignedCheckpointTimeoutUs };
  }

  /**
   * A trigger failed before its RPCs went out. A pending checkpoint still live is aborted (and
   * reported); one already disposed was reported when it was aborted, so it is not reported again
   * (Flink reports it twice; the second report could fail the job a second time).
   */
  private onTriggerFailure(pc: PendingCheckpoint | undefined, request: CheckpointTriggerRequest, error: unknown): void {
    const exception = getCheckpointException(error);
    try {
      if (pc !== undefined) this.main.execute('checkpoint-abort-triggering', () => {
        for (const c of this.ctx.coordinators) c.abortCurrentTriggering();
      });
      if (pc !== undefined && !pc.isDisposed()) this.abortPendingCheckpoint(pc, exception, undefined);
      else if (pc === undefined) {
        this.env.tracer.event('checkpoint.triggerFailed', {
          checkpointId: UNKNOWN_CHECKPOINT_ID, reason: exception.reason, ...this.failureFacts(request.props, undefined),
        });
        this.failureManager.handleCheckpointException(UNKNOWN_CHECKPOINT_ID, request.props, exception, undefined);
      }
      request.future.completeExceptionally(exception);
    } finally {
      this.triggering = false;
      this.executeQueuedRequest();
    }
  }

  /** Re-examines the queue on the timer thread (after completions, aborts and cleanups). */
  private scheduleTriggerRequest(): void {
    this.timer.execute('checkpoint-queued-request', () => this.executeQueuedRequest());
  }

  private executeQueuedRequest(): void {
    if (this.shutDown) return;
    const chosen = this.decider.chooseQueuedRequestToExecute(this.triggering, this.lastCompletionUs);
    if (chosen !== undefined) this.startTriggeringCheckpoint(chosen);
  }

  // ---- acks and declines (ioExecutor) -------------------------------------------------------

  /**
   * An acknowledgeCheckpoint from a task (reference 1.7). State of unknown attempts, disposed,
   * late and unknown checkpoints, and any ack after shutdown, is discarded asynchronously;
   * duplicates keep theirs.
   * @returns true when the checkpoint is pending or recently expired (a late ack), false for an
   *   unknown checkpoint or after shutdown.
   */
  receiveAcknowledgeMessage(ack: AcknowledgeCheckpoint): boolean {
    if (this.shutDown) {
      // Every checkpoint is disposed once the coordinator shut down (the job ended), so the
      // state of an ack that arrives now belongs to none and would be left behind for good.
      this.discardSubtaskState(ack);
      return false;
    }
    const pc = this.pending.get(ack.checkpointId);
    if (pc !== undefined && !pc.isDisposed()) {
      const result = pc.acknowledgeTask(ack.attemptId, ack.subtaskState);
      this.env.tracer.event('checkpoint.acknowledged', { checkpointId: ack.checkpointId, task: ack.attemptId, result });
      if (result === 'SUCCESS') {
        if (pc.isFullyAcknowledged() && !pc.isFinalizing) this.completePendingCheckpoint(pc);
      } else if (result !== 'DUPLICATE') {
        this.discardSubtaskState(ack);
      }
      return true;
    }
    this.discardSubtaskState(ack);
    const late = this.recentExpired.includes(ack.checkpointId);
    if (late) this.env.tracer.mark('late-ack-discarded', { checkpointId: ack.checkpointId });
    return late;
  }

  private discardSubtaskState(ack: AcknowledgeCheckpoint): void {
    if (this.env.bugs.has(PLANTED_BUGS.lateAckStateLeak)) return;
    const files = ack.subtaskState === null ? [] : ack.subtaskState.operators.map((o) => o.handle.path);
    this.cleaner.discardSubtaskState(ack.checkpointId, files);
  }

  /** A declineCheckpoint: aborts the checkpoint if pending (a task-level failure), else ignored. */
  receiveDeclineMessage(decline: DeclineCheckpoint): void {
    if (this.shutDown) return;
    const pc = this.pending.get(decline.checkpointId);
    this.env.tracer.event('checkpoint.declined', {
      checkpointId: decline.checkpointId, task: decline.attemptId, reason: decline.reason, pending: pc !== undefined,
    });
    if (pc === undefined || pc.isDisposed()) return;
    this.env.tracer.mark('checkpoint-declined', { checkpointId: decline.checkpointId });
    this.abortPendingCheckpoint(pc, new CheckpointException(decline.reason, decline.message), decline.attemptId);
  }

  private failJobDueToTaskFailure(cause: Error, attemptId: ExecutionAttemptId): void {
    if (this.env.bugs.has(PLANTED_BUGS.declineAnyAttempt)) {
      this.ctx.failJob(cause);
      return;
    }
    // Only a still current, running attempt may fail the job (FLINK-13593).
    const ref = subtaskOfAttemptId(attemptId);
    const current = ref === undefined ? undefined : this.ctx.currentAttempt(ref.vertexId, ref.subtask);
    if (current === undefined || current.attemptId !== attemptId || current.state !== 'RUNNING') return;
    this.ctx.failJobDueToTaskFailure(cause, attemptId);
  }

  // ---- completion ---------------------------------------------------------------------------

  /**
   * Finalises a fully acknowledged checkpoint: writes `chk-<id>/_metadata`, then (unless it was
   * aborted meanwhile) adds it to the store, reports success, subsumes older pending checkpoints
   * and notifies the tasks to commit to and the coordinators (reference 1.9).
   */
  private completePendingCheckpoint(pc: PendingCheckpoint): void {
    pc.startFinalizing();
    const successFirst = this.env.bugs.has(PLANTED_BUGS.fmSuccessBeforeStore);
    if (successFirst) this.failureManager.handleCheckpointSuccess(pc.checkpointId);
    let completed: CompletedCheckpoint;
    try {
      completed = pc.createCompletedCheckpoint(this.env.clock.nowUs());
    } catch (e) {
      this.abortPendingCheckpoint(pc, getCheckpointException(e, 'FINALIZE_CHECKPOINT_FAILURE'), undefined);
      return;
    }
    let written: CompletableFuture<void>;
    try {
      written = this.env.objectStore.put(completed.metadataPath, completed.metadata(), completed.metadataSizeBytes(), this.io);
    } catch (e) {
      written = CompletableFuture.failed<void>(e);
    }
    written.whenComplete((_v, err) => {
      if (pc.isDisposed()) {
        // Aborted while the metadata was being written (a timeout, a failover): it never completes.
        this.cleaner.discardSubtaskState(pc.checkpointId, [completed.metadataPath]);
        return;
      }
      const failure = err !== undefined ? err : this.addToStore(completed);
      if (failure !== undefined) {
        this.abortPendingCheckpoint(pc, new CheckpointException('FINALIZE_CHECKPOINT_FAILURE',
          failure instanceof Error ? failure.message : String(failure)), undefined, !successFirst);
        return;
      }
      this.afterCompletion(pc, completed, successFirst);
    });
  }

  private lastSubsumedId = -1;

  /** Adds to the store; returns the failure, if any. */
  private addToStore(completed: CompletedCheckpoint): unknown {
    try {
      this.lastSubsumedId = this.store.addCheckpointAndSubsumeOldestOne(completed,
        () => this.scheduleTriggerRequest()).lastSubsumedId;
      return undefined;
    } catch (e) {
      return e ?? new Error('store failure');
    }
  }

  private afterCompletion(pc: PendingCheckpoint, completed: CompletedCheckpoint, successReported: boolean): void {
    const id = pc.checkpointId;
    pc.finalizeCheckpoint(completed);
    this.forceFullSnapshot = false;
    if (!successReported) this.failureManager.handleCheckpointSuccess(id);
    this.pending.delete(id);
    this.scheduleTriggerRequest();
    this.lastCompletionUs = this.env.clock.nowUs();
    this.env.tracer.event('checkpoint.completed', { checkpointId: id });
    for (const other of [...this.pending.values()]) {
      if (other.checkpointId < id && other.canBeSubsumed() && !other.isDisposed()) {
        this.env.tracer.mark('checkpoint-subsumed', { checkpointId: other.checkpointId });
        this.abortPendingCheckpoint(other, new CheckpointException('CHECKPOINT_SUBSUMED'), undefined);
      }
    }
    for (const ref of pc.plan.tasksToCommitTo) {
      const attempt = this.ctx.currentAttempt(ref.vertexId, ref.subtask);
      if (attempt !== undefined) {
        this.ctx.notifyCheckpointComplete(attempt, id, completed.triggerTimestampUs, this.lastSubsumedId);
      }
    }
    this.main.execute('checkpoint-notify-coordinators-complete', () => {
      for (const c of this.ctx.coordinators) c.notifyCheckpointComplete(id);
    });
    this.env.tracer.event('checkpoint.notifiedComplete', { checkpointId: id });
  }

  // ---- abort --------------------------------------------------------------------------------

  /**
   * Aborts every pending checkpoint with `reason` (failover: JOB_FAILOVER_REGION; stop:
   * CHECKPOINT_COORDINATOR_SUSPEND; shutdown: CHECKPOINT_COORDINATOR_SHUTDOWN), savepoints too.
   */
  abortPendingCheckpoints(reason: CheckpointFailureReason): void {
    if (reason === 'JOB_FAILOVER_REGION' && this.env.bugs.has(PLANTED_BUGS.failoverKeepsPending)) return;
    for (const pc of [...this.pending.values()]) {
      this.abortPendingCheckpoint(pc, new CheckpointException(reason), undefined);
    }
  }

  private abortPendingCheckpoint(pc: PendingCheckpoint, exception: CheckpointException,
    attemptId: ExecutionAttemptId | undefined, report = true): void {
    if (pc.isDisposed()) return;
    const id = pc.checkpointId;
    const clear = this.env.bugs.has(PLANTED_BUGS.disposeClearsBeforeDiscard);
    const files = pc.abort(exception.reason, exception, clear);
    this.env.tracer.event('checkpoint.aborted', {
      checkpointId: id, reason: exception.reason, ...this.failureFacts(pc.props, attemptId),
    });
    if (!clear) this.cleaner.cleanCheckpoint(id, files, checkpointDirectory(id), () => this.scheduleTriggerRequest());
    try {
      if (report) this.failureManager.handleCheckpointException(id, pc.props, exception, attemptId);
    } finally {
      this.sendAbortedMessages(pc);
      this.pending.delete(id);
      if (exception.reason === 'CHECKPOINT_EXPIRED') {
        this.recentExpired.push(id);
        if (this.recentExpired.length > NUM_GHOST_CHECKPOINT_IDS) this.recentExpired.shift();
      }
      this.scheduleTriggerRequest();
    }
  }

  /**
   * What the trace records of a failure besides its id and reason, for the failure-handling
   * oracle: a savepoint's kind, and for a task-level failure the failing attempt and what the
   * ExecutionGraph says of it now (its state when it is still its subtask's current attempt,
   * `SUPERSEDED` otherwise). Failures are rare, so the lookup costs nothing that matters.
   */
  private failureFacts(props: CheckpointProperties, attemptId: ExecutionAttemptId | undefined): TraceAttrs {
    const savepoint = props.isSavepoint ? { savepoint: true, synchronous: props.isSynchronous } : {};
    if (attemptId === undefined) return savepoint;
    const ref = subtaskOfAttemptId(attemptId);
    const current = ref === undefined ? undefined : this.ctx.currentAttempt(ref.vertexId, ref.subtask);
    const taskState = current !== undefined && current.attemptId === attemptId ? current.state : 'SUPERSEDED';
    return { ...savepoint, task: attemptId, taskState };
  }

  private sendAbortedMessages(pc: PendingCheckpoint): void {
    const latestCompleted = this.store.getLatestCheckpointId();
    const id = pc.checkpointId;
    this.io.execute('checkpoint-send-aborted', () => {
      for (const ref of pc.plan.tasksToCommitTo) {
        const attempt = this.ctx.currentAttempt(ref.vertexId, ref.subtask);
        if (attempt !== undefined) this.ctx.notifyCheckpointAborted(attempt, id, latestCompleted, pc.triggerTimestampUs);
      }
    });
    this.main.execute('checkpoint-notify-coordinators-aborted', () => {
      for (const c of this.ctx.coordinators) c.notifyCheckpointAborted(id);
    });
  }

  // ---- restore ------------------------------------------------------------------------------

  /** Global restore of `subtasks` from the latest checkpoint; coordinators reset to it (5.1). */
  restoreLatestCheckpointedStateToAll(subtasks: readonly SubtaskRef[]): CheckpointRestoreResult {
    return this.restorer.restore(subtasks, true);
  }

  /** Regional restore: state for `subtasks`, master hooks restored, coordinators subtaskReset. */
  restoreLatestCheckpointedStateToSubtasks(subtasks: readonly SubtaskRef[]): CheckpointRestoreResult {
    return this.restorer.restore(subtasks, false);
  }

  checkInvariants(): void {
    let previous = 0;
    let checkpoints = 0;
    for (const [id, pc] of this.pending) {
      assert(id > previous, 'pending ids not increasing');
      previous = id;
      assert(!pc.isDisposed(), () => `disposed checkpoint ${id} still pending`);
      if (!pc.props.isSavepoint) checkpoints++;
      pc.checkInvariants();
    }
    if (!this.env.bugs.has(PLANTED_BUGS.failoverKeepsPending)) {
      assert(checkpoints <= this.config.maxConcurrent, 'more pending checkpoints than maxConcurrent');
    }
    if (this.shutDown) assert(this.pending.size === 0 && !this.periodicScheduling, 'shut down but active');
    assert(this.lastCompletionUs <= this.env.clock.nowUs(), 'completion in the future');
  }
}

export type { CheckpointRestoreResult, JobManagerTaskRestore };
