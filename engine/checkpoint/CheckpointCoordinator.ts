/**
 * The JobManager side of the checkpoint protocol, as one facade over its parts: the periodic
 * scheduler and its activator, the trigger pipeline (CheckpointTriggering.ts), acks and declines
 * from tasks (on the ioExecutor), the outcomes of pending checkpoints (PendingCheckpointOutcomes.ts:
 * completion, expiry and abort), and the restore of the latest checkpoint on failover
 * (CheckpointRestorer.ts). The parts share one CheckpointCoordinatorState.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (reference 1.2 to 1.12, 5.1, 5.2)
 * Invariants: every PendingCheckpoint in the map is undisposed and the map's ids increase; at
 * most maxConcurrent checkpoints (non-savepoints) are pending; after shutdown nothing is pending.
 * Planted bugs (CheckpointPlantedBugs.ts): `decline-any-attempt`, `late-ack-state-leak` and the
 * stalls `decline-leaves-pending`, `task-failure-leaves-pending` here; `fm-success-before-store`,
 * `failover-keeps-pending`, `dispose-clears-before-discard`, `finalize-failure-leaves-pending` in
 * the outcomes; `trigger-failure-leaves-pending` in the trigger pipeline.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import {
  isPeriodicCheckpointingConfigured, type CheckpointCoordinatorConfiguration,
} from './CheckpointCoordinatorConfiguration.ts';
import type { CheckpointCoordinatorContext } from './CheckpointCoordinatorContext.ts';
import { CheckpointCoordinatorDeActivator } from './CheckpointCoordinatorDeActivator.ts';
import { CheckpointCoordinatorLock } from './CheckpointCoordinatorLock.ts';
import { CheckpointCoordinatorState } from './CheckpointCoordinatorState.ts';
import { CheckpointException, type CheckpointFailureReason } from './CheckpointFailureReason.ts';
import { CheckpointFailureManager } from './CheckpointFailureManager.ts';
import { CheckpointIDCounter } from './CheckpointIDCounter.ts';
import type { SubtaskRef } from './CheckpointPlan.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import { CheckpointProperties, type SavepointFormatType } from './CheckpointProperties.ts';
import { CheckpointRequestDecider } from './CheckpointRequestDecider.ts';
import { CheckpointRestorer, type CheckpointRestoreResult } from './CheckpointRestorer.ts';
import { CheckpointsCleaner } from './CheckpointsCleaner.ts';
import type { CheckpointStatsSnapshot } from './CheckpointStatsTracker.ts';
import { CheckpointTriggering } from './CheckpointTriggering.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { CompletedCheckpointStore } from './CompletedCheckpointStore.ts';
import { DefaultCheckpointPlanCalculator } from './DefaultCheckpointPlanCalculator.ts';
import { DefaultCompletedCheckpointStore } from './DefaultCompletedCheckpointStore.ts';
import type { MasterTriggerRestoreHook } from './MasterTriggerRestoreHook.ts';
import type { PendingCheckpoint } from './PendingCheckpoint.ts';
import { PendingCheckpointOutcomes } from './PendingCheckpointOutcomes.ts';
import { PeriodicCheckpointScheduler } from './PeriodicCheckpointScheduler.ts';
import { VertexFinishedStateChecker } from './VertexFinishedStateChecker.ts';
import type { AcknowledgeCheckpoint, DeclineCheckpoint, JobManagerTaskRestore } from './TaskStateSnapshot.ts';

export { NUM_GHOST_CHECKPOINT_IDS } from './CheckpointCoordinatorState.ts';

/** Constructor options of {@link CheckpointCoordinator}. */
export interface CheckpointCoordinatorOptions {
  readonly config: CheckpointCoordinatorConfiguration;
  readonly context: CheckpointCoordinatorContext;
  /** Defaults to a DefaultCompletedCheckpointStore keeping `config.retained`. */
  readonly store?: (cleaner: CheckpointsCleaner) => CompletedCheckpointStore;
  /**
   * Prefix of the job run's checkpoint and savepoint directories (JobRun.storagePrefix); default
   * '' (a job's first run: `chk-<id>`, `savepoint-<id>` at the store's root).
   */
  readonly storagePrefix?: string;
}

/**
 * Flink's RecoveryClaimMode: who owns a snapshot a new job run is restored from. CLAIM: the run
 * takes it over (it joins the store with the job's checkpoint properties, counts toward
 * retention and is deleted once subsumed); NO_CLAIM (Flink's default): the run never deletes it,
 * and forces its checkpoints FULL until one joins the store; LEGACY: it is treated as a savepoint
 * (never deleted, no forced full checkpoint).
 */
export type RecoveryClaimMode = 'CLAIM' | 'NO_CLAIM' | 'LEGACY';

export class CheckpointCoordinator {
  readonly idCounter: CheckpointIDCounter;
  readonly cleaner: CheckpointsCleaner;
  readonly store: CompletedCheckpointStore;
  readonly failureManager: CheckpointFailureManager;
  private readonly env: EngineEnv;
  private readonly ctx: CheckpointCoordinatorContext;
  private readonly config: CheckpointCoordinatorConfiguration;
  private readonly state = new CheckpointCoordinatorState();
  private readonly decider: CheckpointRequestDecider;
  private readonly periodic: PeriodicCheckpointScheduler;
  private readonly restorer: CheckpointRestorer;
  private readonly props: CheckpointProperties;
  private readonly masterHooks: MasterTriggerRestoreHook[] = [];
  private readonly outcomes: PendingCheckpointOutcomes;
  private readonly triggering: CheckpointTriggering;
  /** The coordinator-wide lock (held across time only by a completion). */
  readonly lock: CheckpointCoordinatorLock;

  constructor(options: CheckpointCoordinatorOptions) {
    const ctx = options.context;
    const env = ctx.env;
    this.ctx = ctx;
    this.env = env;
    this.config = options.config;
    this.props = CheckpointProperties.forCheckpoint(this.config.retention);
    this.state.storagePrefix = options.storagePrefix ?? '';
    this.lock = new CheckpointCoordinatorLock(env.tracer);
    this.idCounter = new CheckpointIDCounter(env);
    this.cleaner = new CheckpointsCleaner(env, ctx.ioExecutor);
    this.store = options.store?.(this.cleaner) ??
      new DefaultCompletedCheckpointStore(env, { retained: this.config.retained, cleaner: this.cleaner });
    this.failureManager = new CheckpointFailureManager(env, this.config.tolerableFailures, {
      failJob: (cause) => ctx.failJob(cause),
      failJobDueToTaskFailure: (cause, attemptId) => this.failJobDueToTaskFailure(cause, attemptId),
    });
    this.decider = new CheckpointRequestDecider(env, {
      maxConcurrent: this.config.maxConcurrent,
      minPauseUs: this.config.minPauseUs,
      numberOfPendingCheckpoints: () => this.state.pending.size,
      numberOfCleaningCheckpoints: () => this.cleaner.numberOfCheckpointsToClean(),
      rescheduleTrigger: (delayUs) => this.periodic.rescheduleTrigger(delayUs),
    });
    this.outcomes = new PendingCheckpointOutcomes({
      env, ctx, state: this.state, store: this.store, cleaner: this.cleaner, lock: this.lock,
      failureManager: this.failureManager, io: ctx.ioExecutor, main: ctx.mainExecutor,
      scheduleTriggerRequest: () => this.triggering.scheduleTriggerRequest(),
    });
    this.triggering = new CheckpointTriggering({
      env, ctx, config: this.config, state: this.state, decider: this.decider, lock: this.lock,
      planCalculator: new DefaultCheckpointPlanCalculator(ctx, env, this.config.checkpointsAfterTasksFinish),
      idCounter: this.idCounter, failureManager: this.failureManager, masterHooks: this.masterHooks,
      outcomes: this.outcomes,
    });
    this.periodic = new PeriodicCheckpointScheduler(env, ctx.timerExecutor, this.config.intervalUs,
      this.config.minPauseUs, () => this.triggerCheckpoint(true));
    this.restorer = new CheckpointRestorer(ctx, this.store, this.masterHooks, false, () => this.state.newestUncompleted);
    env.invariants.register('checkpoint-coordinator', () => this.checkInvariants());
  }

  // ---- public state -------------------------------------------------------------------------

  get numberOfPendingCheckpoints(): number {
    return this.state.pending.size;
  }

  /** The pending checkpoints, oldest first. */
  getPendingCheckpoints(): PendingCheckpoint[] {
    return [...this.state.pending.values()];
  }

  get numQueuedRequests(): number {
    return this.decider.numQueuedRequests;
  }

  /** True from the start of a trigger until its RPCs were sent (or it failed). */
  get isTriggering(): boolean {
    return this.state.triggering;
  }

  get isShutdown(): boolean {
    return this.state.shutDown;
  }

  get isPeriodicCheckpointingStarted(): boolean {
    return this.state.periodicScheduling;
  }

  /** When the latest checkpoint completed, µs (0 before any). */
  get lastCheckpointCompletionUs(): number {
    return this.state.lastCompletionUs;
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

  /**
   * Starts periodic checkpoints (restarting them if running); no-op without an interval. Runs on
   * the JobMaster main thread under the coordinator lock (waiting while a completion holds it).
   */
  startCheckpointScheduler(): void {
    this.lock.run(this.ctx.mainExecutor, 'startCheckpointScheduler', () => {
      if (this.state.shutDown || !isPeriodicCheckpointingConfigured(this.config)) return;
      if (this.state.periodicScheduling) this.stopCheckpointScheduler();
      this.state.periodicScheduling = true;
      this.periodic.start();
    });
  }

  /**
   * Stops periodic checkpoints and aborts queued and pending ones (CHECKPOINT_COORDINATOR_SUSPEND).
   * Runs on the JobMaster main thread under the coordinator lock: while a slow `_metadata` write
   * holds it, the main thread waits, and with it the failover that asked for the stop.
   */
  stopCheckpointScheduler(): void {
    this.lock.run(this.ctx.mainExecutor, 'stopCheckpointScheduler', () => {
      this.state.periodicScheduling = false;
      this.periodic.stop();
      const exception = new CheckpointException('CHECKPOINT_COORDINATOR_SUSPEND');
      this.decider.abortAll(exception);
      // Planted stall `task-failure-leaves-pending` (FLINK-7844): the pending checkpoints stay,
      // though the failure that stops the scheduler means a task of theirs will never ack.
      if (this.env.bugs.has(PLANTED_BUGS.taskFailureLeavesPending)) return;
      this.abortPendingCheckpoints('CHECKPOINT_COORDINATOR_SUSPEND');
    });
  }

  /**
   * Shuts the coordinator down for good: closes the hooks, aborts everything
   * (CHECKPOINT_COORDINATOR_SHUTDOWN) and shuts the store down at `jobStatus`. Later messages
   * are ignored. On the main thread, under the coordinator lock.
   */
  shutdown(jobStatus: JobStatus): void {
    this.lock.run(this.ctx.mainExecutor, 'shutdown', () => {
      if (this.state.shutDown) return;
      this.stopCheckpointScheduler();
      this.state.shutDown = true;
      for (const h of this.masterHooks) h.close();
      this.decider.abortAll(new CheckpointException('CHECKPOINT_COORDINATOR_SHUTDOWN'));
      this.abortPendingCheckpoints('CHECKPOINT_COORDINATOR_SHUTDOWN');
      this.outcomes.discardNewestUncompleted();
      this.store.shutdown(jobStatus, () => undefined);
    });
  }

  // ---- triggering ---------------------------------------------------------------------------

  /**
   * Requests a checkpoint (periodic when `isPeriodic`). The request is queued and run when the
   * decider allows (CheckpointTriggering). @returns a future of the CompletedCheckpoint, failing
   * with a CheckpointException.
   */
  triggerCheckpoint(isPeriodic = false): CompletableFuture<CompletedCheckpoint> {
    // Periodic requests come from the timer thread, manual ones from the JobMaster main thread.
    const thread = isPeriodic ? this.ctx.timerExecutor : this.ctx.mainExecutor;
    return this.triggering.triggerCheckpoint(this.props, isPeriodic, thread);
  }

  /**
   * Requests a savepoint (triggerSavepoint): forced unless unaligned checkpoints are on, first in
   * the request queue, aligned with no timeout in exactly-once mode. It is never subsumed, never
   * added to the store and notifies no task or coordinator. The request hops to the timer thread
   * first, as Flink's triggerCheckpointFromCheckpointThread does.
   * `origin` (optional, not Flink's) names who asked: it is recorded on the `checkpoint.triggered`
   * event of the id the savepoint gets (CheckpointTriggerRequest.origin).
   * @returns a future of the CompletedCheckpoint (its `metadataPath` is `savepoint-<id>/_metadata`),
   *   failing with a CheckpointException.
   */
  triggerSavepoint(formatType: SavepointFormatType = 'CANONICAL', origin?: string): CompletableFuture<CompletedCheckpoint> {
    return this.triggerFromTimerThread(CheckpointProperties.forSavepoint(!this.config.unaligned, formatType), origin);
  }

  /**
   * Requests the synchronous savepoint of stop-with-savepoint (triggerSynchronousSavepoint):
   * `terminate` for the drain variant. Like a savepoint, but its completion subsumes older
   * pending checkpoints and notifies the tasks, which then finish; a task-level failure of it
   * fails the job. `origin` as for triggerSavepoint.
   */
  triggerSynchronousSavepoint(terminate: boolean, formatType: SavepointFormatType = 'CANONICAL',
    origin?: string): CompletableFuture<CompletedCheckpoint> {
    return this.triggerFromTimerThread(CheckpointProperties.forSyncSavepoint(!this.config.unaligned, terminate, formatType), origin);
  }

  private triggerFromTimerThread(props: CheckpointProperties, origin: string | undefined): CompletableFuture<CompletedCheckpoint> {
    const result = new CompletableFuture<CompletedCheckpoint>();
    const timer = this.ctx.timerExecutor;
    timer.execute('checkpoint-trigger-savepoint', () => {
      this.triggering.triggerCheckpoint(props, false, timer, origin).whenComplete((cp, e) => {
        if (cp !== undefined) result.complete(cp);
        else result.completeExceptionally(e);
      });
    });
    return result;
  }

  // ---- acks and declines (ioExecutor) -------------------------------------------------------

  /**
   * An acknowledgeCheckpoint from a task (reference 1.7), handled on the ioExecutor (a pool
   * worker) under the coordinator lock. State of unknown attempts, disposed, late and unknown
   * checkpoints, and any ack after shutdown, is discarded asynchronously; duplicates keep theirs.
   * The last ack of a checkpoint completes it on this thread (PendingCheckpointOutcomes).
   * @returns true when the checkpoint is pending or recently expired (a late ack), false for an
   *   unknown checkpoint or after shutdown; undefined when a completion holds the lock, so the
   *   ack waits (its worker blocked) and is handled once the lock is free.
   */
  receiveAcknowledgeMessage(ack: AcknowledgeCheckpoint): boolean | undefined {
    let handled: boolean | undefined;
    this.lock.run(this.ctx.ioExecutor, 'receiveAcknowledgeMessage', () => {
      handled = this.acknowledge(ack);
    });
    return handled;
  }

  private acknowledge(ack: AcknowledgeCheckpoint): boolean {
    if (this.state.shutDown) {
      // Flink's `if (shutdown) return false`: the ack of a job run that ended is dropped with its
      // state, which stays in the store as Flink leaves it (the storage oracle counts it a known
      // leftover of an ended run, never a leak).
      this.env.tracer.event('checkpoint.ackAfterShutdown', {
        checkpointId: ack.checkpointId, task: ack.attemptId,
        files: ack.subtaskState === null ? 0 : ack.subtaskState.operators.length,
      });
      return false;
    }
    const pc = this.state.pending.get(ack.checkpointId);
    if (pc !== undefined && !pc.isDisposed()) {
      const result = pc.acknowledgeTask(ack.attemptId, ack.subtaskState);
      this.env.tracer.event('checkpoint.acknowledged', { checkpointId: ack.checkpointId, task: ack.attemptId, result });
      if (result === 'SUCCESS') {
        this.state.statsTracker.reportSubtaskStats(ack.checkpointId, ack.attemptId, this.env.clock.nowUs(), ack.checkpointMetrics);
      }
      if (result === 'SUCCESS') {
        if (pc.isFullyAcknowledged()) this.outcomes.completePendingCheckpoint(pc, this.ctx.ioExecutor);
      } else if (result !== 'DUPLICATE') {
        this.discardSubtaskState(ack);
      }
      return true;
    }
    this.discardSubtaskState(ack);
    const late = this.state.recentExpired.includes(ack.checkpointId);
    if (late) this.env.tracer.mark('late-ack-discarded', { checkpointId: ack.checkpointId });
    return late;
  }

  private discardSubtaskState(ack: AcknowledgeCheckpoint): void {
    if (this.env.bugs.has(PLANTED_BUGS.lateAckStateLeak)) return;
    const files = ack.subtaskState === null ? [] : ack.subtaskState.operators.map((o) => o.handle.path);
    this.cleaner.discardSubtaskState(ack.checkpointId, files);
  }

  /**
   * A declineCheckpoint: aborts the checkpoint if pending (a task-level failure), else ignored.
   * On the ioExecutor under the coordinator lock, like an ack.
   */
  receiveDeclineMessage(decline: DeclineCheckpoint): void {
    this.lock.run(this.ctx.ioExecutor, 'receiveDeclineMessage', () => this.decline(decline));
  }

  private decline(decline: DeclineCheckpoint): void {
    if (this.state.shutDown) return;
    const pc = this.state.pending.get(decline.checkpointId);
    this.env.tracer.event('checkpoint.declined', {
      checkpointId: decline.checkpointId, task: decline.attemptId, reason: decline.reason, pending: pc !== undefined,
    });
    if (pc === undefined || pc.isDisposed()) return;
    this.env.tracer.mark('checkpoint-declined', { checkpointId: decline.checkpointId });
    // Planted stall `decline-leaves-pending`: the decline is taken and the checkpoint left to expire.
    if (this.env.bugs.has(PLANTED_BUGS.declineLeavesPending)) return;
    this.outcomes.abortPendingCheckpoint(pc, new CheckpointException(decline.reason, decline.message), decline.attemptId);
  }

  /**
   * The failure manager's task-level callback. The JobMaster checks, on its main thread, that the
   * attempt still runs before it fails the job (FLINK-13593); the planted `decline-any-attempt`
   * fails the job without that check.
   */
  private failJobDueToTaskFailure(cause: Error, attemptId: ExecutionAttemptId): void {
    if (this.env.bugs.has(PLANTED_BUGS.declineAnyAttempt)) this.ctx.failJob(cause);
    else this.ctx.failJobDueToTaskFailure(cause, attemptId);
  }

  // ---- abort --------------------------------------------------------------------------------

  /**
   * Aborts every pending checkpoint with `reason` (a failover's restore: JOB_FAILOVER_REGION;
   * stop: CHECKPOINT_COORDINATOR_SUSPEND; shutdown: CHECKPOINT_COORDINATOR_SHUTDOWN), savepoints
   * too.
   */
  abortPendingCheckpoints(reason: CheckpointFailureReason): void {
    this.outcomes.abortPendingCheckpoints(reason);
  }

  // ---- restore ------------------------------------------------------------------------------

  /**
   * CheckpointCoordinator.restoreSavepoint: a new job run starts from `snapshot` (a savepoint or
   * a retained checkpoint of an earlier run, as its `_metadata` was read), before anything is
   * scheduled. The snapshot takes the claim mode's properties (see {@link RecoveryClaimMode}) and
   * joins the empty store, the id counter continues at its id + 1, and every subtask in
   * `subtasks` is restored from it at the job's current parallelism (StateAssignmentOperation),
   * coordinators reset to its state (RESTORE_IF_CHECKPOINT_PRESENT). Marks
   * `restored-from-savepoint` (a savepoint) and `restored-no-claim` (NO_CLAIM).
   * @returns the restore: per `<vertex>#<subtask>` the state to deploy with.
   * @throws whatever the state assignment throws (a parallelism beyond the snapshot's max
   *   parallelism, state without an operator): Flink fails the job's submission then.
   */
  restoreSavepoint(snapshot: CompletedCheckpoint, claimMode: RecoveryClaimMode, subtasks: readonly SubtaskRef[]): CheckpointRestoreResult {
    const props = claimMode === 'CLAIM' ? this.props
      : claimMode === 'LEGACY' ? CheckpointProperties.forSavepoint(false, 'CANONICAL')
        : CheckpointProperties.forUnclaimedSnapshot();
    const restored = snapshot.withProperties(props);
    this.env.tracer.event('checkpoint.restoreSavepoint', {
      checkpointId: snapshot.checkpointId, path: snapshot.metadataPath, claimMode, savepoint: snapshot.props.isSavepoint,
    });
    if (snapshot.props.isSavepoint) this.env.tracer.mark('restored-from-savepoint', { checkpointId: snapshot.checkpointId });
    if (claimMode === 'NO_CLAIM') this.env.tracer.mark('restored-no-claim', { checkpointId: snapshot.checkpointId });
    // Flink checks the snapshot's finished operators against the new job before it restores a
    // savepoint or an initial checkpoint (restoreLatestCheckpointedStateInternal's
    // checkForPartiallyFinishedOperators): a StateAssignmentError fails the submission.
    new VertexFinishedStateChecker(this.ctx.jobVertices(), this.ctx.jobEdges(), restored).validateOperatorsFinishedState();
    this.store.addCheckpointAndSubsumeOldestOne(restored, () => this.triggering.scheduleTriggerRequest());
    this.idCounter.setCount(snapshot.checkpointId + 1);
    return this.restoreLatestCheckpointedStateToAll(subtasks);
  }

  /**
   * Global restore of `subtasks` from the latest checkpoint; coordinators reset to it (5.1).
   * `failureTimestampUs`: when the failure behind it happened, for the statistics.
   */
  restoreLatestCheckpointedStateToAll(subtasks: readonly SubtaskRef[], failureTimestampUs?: number): CheckpointRestoreResult {
    return this.reportRestore(this.restorer.restore(subtasks, true), failureTimestampUs);
  }

  /** Regional restore: state for `subtasks`, master hooks restored, coordinators subtaskReset. */
  restoreLatestCheckpointedStateToSubtasks(subtasks: readonly SubtaskRef[], failureTimestampUs?: number): CheckpointRestoreResult {
    return this.reportRestore(this.restorer.restore(subtasks, false), failureTimestampUs);
  }

  /** The job's checkpoint statistics so far (CheckpointStatsTracker.createSnapshot). */
  get checkpointStats(): CheckpointStatsSnapshot {
    return this.state.statsTracker.createSnapshot();
  }

  /** Only a restore from a checkpoint counts (Flink reports none for a fresh start). */
  private reportRestore(result: CheckpointRestoreResult, failureTimestampUs: number | undefined): CheckpointRestoreResult {
    if (result.checkpointId > 0) {
      // Every restore of an unclaimed snapshot (a NO_CLAIM restore, or a failover back to it
      // while it is still the latest) forces full checkpoints again (restoreLatestCheckpointedStateInternal).
      this.state.forceFullSnapshot = this.store.getLatestCheckpoint()?.props.unclaimed ?? false;
      this.state.statsTracker.reportRestoredCheckpoint(result.checkpointId, this.env.clock.nowUs(), failureTimestampUs);
    }
    return result;
  }

  checkInvariants(): void {
    this.lock.checkInvariants();
    this.state.statsTracker.checkInvariants();
    let previous = 0;
    let checkpoints = 0;
    for (const [id, pc] of this.state.pending) {
      assert(id > previous, 'pending ids not increasing');
      previous = id;
      assert(!pc.isDisposed(), () => `disposed checkpoint ${id} still pending`);
      if (!pc.props.isSavepoint) checkpoints++;
      pc.checkInvariants();
    }
    if (!this.env.bugs.has(PLANTED_BUGS.failoverKeepsPending)) {
      assert(checkpoints <= this.config.maxConcurrent, 'more pending checkpoints than maxConcurrent');
    }
    if (this.state.shutDown) assert(this.state.pending.size === 0 && !this.state.periodicScheduling, 'shut down but active');
    assert(this.state.lastCompletionUs <= this.env.clock.nowUs(), 'completion in the future');
  }
}

export type { CheckpointRestoreResult, JobManagerTaskRestore };
