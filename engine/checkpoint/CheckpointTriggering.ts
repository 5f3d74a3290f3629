/**
 * The JobManager's trigger pipeline (reference 1.3, 1.4): a request goes to the decider; the one
 * chosen runs Flink's steps with their thread hops: the plan on the JobMaster main thread, the id
 * on the ioExecutor, the PendingCheckpoint and its timeout canceller on the timer, the storage
 * location on io, the OperatorCoordinator snapshots on main (acknowledged on the timer), the
 * master hooks, and the trigger RPCs to the tasks to trigger. Only one request is triggering at a
 * time; the queue is looked at again after each trigger and whenever an outcome asks for it.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (triggerCheckpoint,
 *      startTriggeringCheckpoint, createPendingCheckpoint, snapshotMasterState,
 *      triggerCheckpointRequest, onTriggerFailure, executeQueuedRequest)
 * Invariants: `state.triggering` is true from the start of a trigger until its RPCs were sent or
 * it failed; a request's future completes exactly once.
 * Planted bug (CheckpointPlantedBugs.ts): `trigger-failure-leaves-pending`.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { CheckpointOptions } from './CheckpointBarrier.ts';
import type { CheckpointCoordinatorConfiguration } from './CheckpointCoordinatorConfiguration.ts';
import type { CheckpointCoordinatorContext } from './CheckpointCoordinatorContext.ts';
import type { CheckpointCoordinatorLock } from './CheckpointCoordinatorLock.ts';
import type { CheckpointCoordinatorState } from './CheckpointCoordinatorState.ts';
import { recordFailureHandled } from './CheckpointFailureHandled.ts';
import { CheckpointException } from './CheckpointFailureReason.ts';
import {
  getCheckpointException, UNKNOWN_CHECKPOINT_ID, type CheckpointFailureManager,
} from './CheckpointFailureManager.ts';
import type { CheckpointIDCounter } from './CheckpointIDCounter.ts';
import type { CheckpointPlan } from './CheckpointPlan.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import type { CheckpointProperties } from './CheckpointProperties.ts';
import type { CheckpointRequestDecider } from './CheckpointRequestDecider.ts';
import { CheckpointTriggerRequest } from './CheckpointTriggerRequest.ts';
import { savepointDirectory, snapshotDirectory, type CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { DefaultCheckpointPlanCalculator } from './DefaultCheckpointPlanCalculator.ts';
import type { MasterTriggerRestoreHook } from './MasterTriggerRestoreHook.ts';
import { PendingCheckpoint } from './PendingCheckpoint.ts';
import { savepointAttrs, type PendingCheckpointOutcomes } from './PendingCheckpointOutcomes.ts';

/** What the trigger pipeline needs of the coordinator. */
export interface CheckpointTriggeringServices {
  readonly env: EngineEnv;
  readonly ctx: CheckpointCoordinatorContext;
  readonly config: CheckpointCoordinatorConfiguration;
  readonly state: CheckpointCoordinatorState;
  /** The coordinator lock: every step on the timer thread runs under it. */
  readonly lock: CheckpointCoordinatorLock;
  readonly decider: CheckpointRequestDecider;
  readonly planCalculator: DefaultCheckpointPlanCalculator;
  readonly idCounter: CheckpointIDCounter;
  readonly failureManager: CheckpointFailureManager;
  /** The coordinator's master hooks (the live list: hooks added later take part). */
  readonly masterHooks: readonly MasterTriggerRestoreHook[];
  readonly outcomes: PendingCheckpointOutcomes;
}

export class CheckpointTriggering {
  private readonly timer: Executor;
  private readonly main: Executor;
  private readonly io: Executor;
  private requestSeq = 0;

  constructor(private readonly s: CheckpointTriggeringServices) {
    this.timer = s.ctx.timerExecutor;
    this.main = s.ctx.mainExecutor;
    this.io = s.ctx.ioExecutor;
  }

  /**
   * Requests a checkpoint with `props` (periodic when `isPeriodic`) from `thread` (the executor
   * the caller runs on: the timer for periodic requests). The request goes to the decider under
   * the coordinator lock, and runs when the decider allows. `origin` (optional) names who asked
   * (CheckpointTriggerRequest.origin); it goes on the `checkpoint.triggered` event of the id the
   * request gets.
   * @returns a future of the CompletedCheckpoint, failing with a CheckpointException.
   */
  triggerCheckpoint(props: CheckpointProperties, isPeriodic: boolean, thread: Executor,
    origin?: string): CompletableFuture<CompletedCheckpoint> {
    const { env, state } = this.s;
    const request = new CheckpointTriggerRequest(props, isPeriodic, env.clock.nowUs(), this.requestSeq++, origin);
    if (state.shutDown) {
      request.future.completeExceptionally(new CheckpointException('CHECKPOINT_COORDINATOR_SHUTDOWN'));
      return request.future;
    }
    this.s.lock.run(thread, 'chooseRequestToExecute', () => {
      const chosen = this.s.decider.chooseRequestToExecute(request, state.triggering, state.lastCompletionUs);
      if (chosen !== undefined) this.startTriggeringCheckpoint(chosen);
    });
    return request.future;
  }

  /** Re-examines the queue on the timer thread (after completions, aborts and cleanups). */
  scheduleTriggerRequest(): void {
    this.timer.execute('checkpoint-queued-request', () => this.onTimer('executeQueuedRequest', () => this.executeQueuedRequest()));
  }

  /** Runs `section` on the timer thread under the coordinator lock (waiting for a holder). */
  private onTimer(what: string, section: () => void): void {
    this.s.lock.run(this.timer, what, section);
  }

  private executeQueuedRequest(): void {
    const { state } = this.s;
    if (state.shutDown) return;
    const chosen = this.s.decider.chooseQueuedRequestToExecute(state.triggering, state.lastCompletionUs);
    if (chosen !== undefined) this.startTriggeringCheckpoint(chosen);
  }

  private preCheckGlobalState(isPeriodic: boolean): void {
    const { state } = this.s;
    if (state.shutDown) throw new CheckpointException('CHECKPOINT_COORDINATOR_SHUTDOWN');
    if (isPeriodic && !state.periodicScheduling) throw new CheckpointException('PERIODIC_SCHEDULER_SHUTDOWN');
  }

  private startTriggeringCheckpoint(request: CheckpointTriggerRequest): void {
    const { env, state } = this.s;
    try {
      this.preCheckGlobalState(request.isPeriodic);
    } catch (e) {
      this.onTriggerFailure(undefined, request, e);
      return;
    }
    assert(!state.triggering, 'two triggers in flight');
    state.triggering = true;
    const timestampUs = env.clock.nowUs();
    const pendingFuture = CompletableFuture.completed(undefined)
      .thenApplyAsync(this.main, 'checkpoint-plan', () => this.s.planCalculator.calculateCheckpointPlan())
      .thenApplyAsync(this.io, 'checkpoint-id', (plan) => ({ plan, id: this.s.idCounter.getAndIncrement() as number }))
      .thenComposeAsync(this.timer, 'checkpoint-create-pending', ({ plan, id }) => {
        const created = new CompletableFuture<PendingCheckpoint>();
        this.onTimer('createPendingCheckpoint', () => {
          try {
            created.complete(this.createPendingCheckpoint(request, plan, id, timestampUs));
          } catch (e) {
            created.completeExceptionally(e);
          }
        });
        return created;
      });
    const triggered = pendingFuture
      // Initialise the storage location (chk-<id>): a hop to the ioExecutor, nothing to create.
      .thenApplyAsync(this.io, 'checkpoint-init-location', (pc) => pc)
      .thenComposeAsync(this.timer, 'checkpoint-coordinators', (pc) => this.triggerCoordinators(pc))
      .thenComposeAsync(this.timer, 'checkpoint-master-hooks', (pc) => this.snapshotMasterState(pc, timestampUs));
    // An abort that overtakes the trigger (an expiry, a failover, a stop) has already failed
    // `masterTriggerCompletionPromise`, so step 9 is never reached; the steps above check
    // `isDisposed()` so that no coordinator or master hook snapshots a dead checkpoint.
    pendingFuture.whenComplete((pc, error) => {
      if (pc === undefined) {
        this.timer.execute('checkpoint-trigger-failed',
          () => this.onTimer('onTriggerFailure', () => this.onTriggerFailure(undefined, request, error)));
        return;
      }
      triggered.whenComplete((_v, e) => {
        if (e === undefined) pc.masterTriggerCompletionPromise.complete(undefined);
        else pc.masterTriggerCompletionPromise.completeExceptionally(e);
      });
      pc.masterTriggerCompletionPromise.whenCompleteAsync(this.timer, 'checkpoint-trigger-tasks', (_v, e) => {
        this.onTimer('triggerCheckpointRequest', () => {
          if (e !== undefined) this.onTriggerFailure(pc, request, e);
          else this.triggerCheckpointRequest(request, timestampUs, pc);
        });
      });
    });
  }

  private createPendingCheckpoint(request: CheckpointTriggerRequest, plan: CheckpointPlan, id: number,
    timestampUs: number): PendingCheckpoint {
    const { env, state } = this.s;
    this.preCheckGlobalState(request.isPeriodic);
    const pc = new PendingCheckpoint({
      checkpointId: id,
      triggerTimestampUs: timestampUs,
      plan,
      props: request.props,
      ...(state.storagePrefix === '' ? {} : { directory: `${state.storagePrefix}${snapshotDirectory(id, request.props.isSavepoint)}` }),
      coordinatorUids: this.s.ctx.coordinators.map((c) => c.operatorUid),
      masterHookIds: this.s.masterHooks.map((h) => h.identifier),
      vertices: this.s.ctx.jobVertices(),
      matchAnyAttempt: env.bugs.has(PLANTED_BUGS.failoverKeepsPending),
      oneAckShort: env.bugs.has(PLANTED_BUGS.pendingCompletesOneAckShort),
    });
    state.pending.set(id, pc);
    pc.completionFuture.whenComplete((cp, err) => {
      if (cp !== undefined) request.future.complete(cp);
      else request.future.completeExceptionally(err);
    });
    // The CheckpointCanceller takes the lock: while a completion holds it (a fully acknowledged
    // checkpoint writing its metadata), the timer thread waits, and finds it completed.
    pc.setCancellerHandle(this.timer.schedule('checkpoint-timeout', this.s.config.timeoutUs, () => {
      this.onTimer('CheckpointCanceller', () => {
        if (pc.isDisposed()) return;
        env.tracer.mark('checkpoint-expired', { checkpointId: id });
        this.s.outcomes.abortPendingCheckpoint(pc, new CheckpointException('CHECKPOINT_EXPIRED'), undefined);
      });
    }));
    env.tracer.event('checkpoint.plan', { checkpointId: id,
      waitFor: plan.tasksToWaitFor.map((t) => t.attemptId).join(','),
      finished: plan.finishedTasks.map((t) => t.attemptId).join(',') });
    env.tracer.event('checkpoint.triggered', {
      checkpointId: id, timestampUs, ...savepointAttrs(pc.props),
      ...(request.origin === undefined ? {} : { origin: request.origin }),
    });
    this.s.state.statsTracker.reportPendingCheckpoint(id, timestampUs, pc.props.isSavepoint, plan.tasksToWaitFor.length, pc.props.isSynchronous);
    return pc;
  }

  /**
   * Snapshots every coordinator together on main; acknowledges their states on the timer. Skipped
   * (the step fails) when `pc` was disposed meanwhile, as in Flink, whose step returns no future
   * for a disposed checkpoint: its coordinators are never marked for it, so their event valves
   * hold nothing back for a checkpoint that cannot complete.
   */
  private triggerCoordinators(pc: PendingCheckpoint): CompletableFuture<PendingCheckpoint> {
    if (pc.isDisposed()) {
      return CompletableFuture.failed<PendingCheckpoint>(new CheckpointException('TRIGGER_CHECKPOINT_FAILURE',
        `checkpoint ${pc.checkpointId} was disposed before its OperatorCoordinators were triggered`));
    }
    const result = new CompletableFuture<PendingCheckpoint>();
    const coordinators = this.s.ctx.coordinators;
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
        this.s.env.tracer.event('checkpoint.coordinatorsSnapshotted', { checkpointId: pc.checkpointId });
        result.complete(pc);
      });
    });
    return result;
  }

  /**
   * Triggers the master hooks after the coordinators; any failure is TRIGGER_CHECKPOINT_FAILURE.
   * Skipped for a checkpoint disposed meanwhile (its trigger has failed already).
   */
  private snapshotMasterState(pc: PendingCheckpoint, timestampUs: number): CompletableFuture<void> {
    const masterHooks = this.s.masterHooks;
    if (masterHooks.length === 0 || pc.isDisposed()) return CompletableFuture.completed<void>(undefined);
    const hooks = [...masterHooks];
    const futures = hooks.map((h) => {
      try {
        return h.triggerCheckpoint(pc.checkpointId, timestampUs, this.io) ?? CompletableFuture.completed<unknown>(null);
      } catch (e) {
        return CompletableFuture.failed<unknown>(e);
      }
    });
    const result = new CompletableFuture<void>();
    CompletableFuture.allOf(futures).whenCompleteAsync(this.timer, 'checkpoint-master-ack', (states, err) => {
      this.onTimer('acknowledgeMasterState', () => {
        if (err !== undefined || states === undefined) {
          result.completeExceptionally(new CheckpointException('TRIGGER_CHECKPOINT_FAILURE',
            `master hook failed: ${err instanceof Error ? err.message : String(err)}`));
          return;
        }
        hooks.forEach((h, i) => pc.acknowledgeMasterState(h.identifier, states[i]));
        result.complete(undefined);
      });
    });
    return result;
  }

  /** Step 9: the trigger RPCs to the tasks to trigger, on the timer thread. */
  private triggerCheckpointRequest(request: CheckpointTriggerRequest, timestampUs: number,
    pc: PendingCheckpoint): void {
    const { env, ctx, state, outcomes } = this.s;
    if (pc.isDisposed()) {
      this.onTriggerFailure(pc, request, new CheckpointException('TRIGGER_CHECKPOINT_FAILURE',
        `checkpoint ${pc.checkpointId} was disposed while triggering`));
      return;
    }
    const options = this.checkpointOptions(pc.props, pc.checkpointId);
    // A forced full checkpoint (after a NO_CLAIM restore) says so; the usual ones record nothing more.
    if (options.snapshotType === 'FULL_CHECKPOINT') {
      env.tracer.event('checkpoint.fullSnapshot', { checkpointId: pc.checkpointId, snapshotType: options.snapshotType });
    }
    const acks = pc.plan.tasksToTrigger.map((t) => {
      env.tracer.event('checkpoint.triggerSent', { checkpointId: pc.checkpointId, task: t.attemptId });
      return ctx.triggerCheckpoint(t, pc.checkpointId, timestampUs, options);
    });
    CompletableFuture.allOf(acks).whenCompleteAsync(this.timer, 'checkpoint-trigger-result', (_v, err) => {
      if (err === undefined) return;
      this.onTimer('abortPendingCheckpoint', () => {
        recordFailureHandled(env.tracer, pc.checkpointId, 'triggerCheckpointRequest', err);
        // Planted stall `trigger-failure-leaves-pending` (FLINK-21246): left to expire.
        if (env.bugs.has(PLANTED_BUGS.triggerFailureLeavesPending)) return;
        if (!pc.isDisposed()) outcomes.abortPendingCheckpoint(pc, getCheckpointException(err), undefined);
      });
    });
    // Every task may have acked already (a master hook made them): complete on this thread.
    if (pc.isFullyAcknowledged() && !pc.isFinalizing) outcomes.completePendingCheckpoint(pc, this.timer);
    state.triggering = false;
    this.executeQueuedRequest();
  }

  /**
   * The barriers' options (CheckpointOptions.forConfig): in at-least-once mode every snapshot,
   * a savepoint's included, goes through the barrier tracker; in exactly-once mode a savepoint is
   * aligned with no timeout, even with unaligned checkpoints on. A savepoint names its own
   * directory; a forced-full phase never turns a savepoint into a full checkpoint.
   */
  private checkpointOptions(props: CheckpointProperties, id: number): CheckpointOptions {
    const c = this.s.config;
    if (props.isSavepoint) {
      const target = {
        snapshotType: props.checkpointType, targetLocation: `${this.s.state.storagePrefix}${savepointDirectory(id)}`, alignedCheckpointTimeoutUs: 0,
        ...(props.isSynchronous ? { postCheckpointAction: props.postCheckpointAction } : {}),
      };
      return { ...target, alignment: c.mode === 'EXACTLY_ONCE' ? 'ALIGNED' : 'AT_LEAST_ONCE' };
    }
    const snapshotType = this.s.state.forceFullSnapshot ? 'FULL_CHECKPOINT' : 'CHECKPOINT';
    if (c.mode !== 'EXACTLY_ONCE') return { snapshotType, alignment: 'AT_LEAST_ONCE', alignedCheckpointTimeoutUs: 0 };
    if (!c.unaligned) return { snapshotType, alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0 };
    if (c.alignedCheckpointTimeoutUs === 0) return { snapshotType, alignment: 'UNALIGNED', alignedCheckpointTimeoutUs: 0 };
    return { snapshotType, alignment: 'ALIGNED', alignedCheckpointTimeoutUs: c.alignedCheckpointTimeoutUs };
  }

  /**
   * A trigger failed before its RPCs went out. A pending checkpoint still live is aborted (and
   * reported). Otherwise the failure is reported to the failure manager at job level: with no
   * checkpoint yet under the unknown id, and for one already disposed (expired, or aborted by a
   * failover) under its id, although its abort was reported already, as Flink does (the failure
   * manager counts an id once).
   */
  private onTriggerFailure(pc: PendingCheckpoint | undefined, request: CheckpointTriggerRequest, error: unknown): void {
    const { env, ctx, state, outcomes } = this.s;
    const exception = getCheckpointException(error);
    try {
      if (pc !== undefined) {
        recordFailureHandled(env.tracer, pc.checkpointId, 'onTriggerFailure', error);
        this.main.execute('checkpoint-abort-triggering', () => {
          for (const c of ctx.coordinators) c.abortCurrentTriggering();
        });
      }
      if (pc !== undefined && !pc.isDisposed()) {
        // Planted stall `trigger-failure-leaves-pending` (FLINK-21246): left to expire.
        if (!env.bugs.has(PLANTED_BUGS.triggerFailureLeavesPending)) outcomes.abortPendingCheckpoint(pc, exception, undefined);
      } else {
        const id = pc?.checkpointId ?? UNKNOWN_CHECKPOINT_ID;
        const props = pc?.props ?? request.props;
        env.tracer.event('checkpoint.triggerFailed', {
          checkpointId: id, reason: exception.reason, ...outcomes.failureFacts(props, undefined),
        });
        this.s.failureManager.handleCheckpointException(id, props, exception, undefined);
      }
      request.future.completeExceptionally(exception);
    } finally {
      state.triggering = false;
      this.executeQueuedRequest();
    }
  }
}
