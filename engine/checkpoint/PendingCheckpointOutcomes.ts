/**
 * How a pending checkpoint ends, on the JobManager: completion (write `chk-<id>/_metadata`, add
 * to the CompletedCheckpointStore, report success, subsume older pending checkpoints, notify the
 * tasks to commit to and the coordinators) or abort (dispose, discard its files through the
 * CheckpointsCleaner, report the failure to the CheckpointFailureManager, send abort
 * notifications). Both are parts of Flink's CheckpointCoordinator.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (completePendingCheckpoint,
 *      abortPendingCheckpoint, sendAcknowledgeMessages, sendAbortedMessages; reference 1.9, 1.10)
 * Invariants: a checkpoint leaves `pending` exactly once, when it completes or is aborted; only
 * a checkpoint in the store is reported as a success.
 * Planted bugs (CheckpointPlantedBugs.ts): `fm-success-before-store`, `failover-keeps-pending`,
 * `dispose-clears-before-discard`, `restore-from-uncompleted`, `finalize-failure-leaves-pending`.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import type { TraceAttrs } from '../api/Tracer.ts';
import type { CheckpointCoordinatorContext } from './CheckpointCoordinatorContext.ts';
import type { CheckpointCoordinatorLock } from './CheckpointCoordinatorLock.ts';
import type { CheckpointCoordinatorState } from './CheckpointCoordinatorState.ts';
import { recordFailureHandled } from './CheckpointFailureHandled.ts';
import { CheckpointException, type CheckpointFailureReason } from './CheckpointFailureReason.ts';
import { getCheckpointException, type CheckpointFailureManager } from './CheckpointFailureManager.ts';
import { subtaskOfAttemptId } from './CheckpointPlan.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';
import type { CheckpointProperties } from './CheckpointProperties.ts';
import type { CheckpointsCleaner } from './CheckpointsCleaner.ts';
import { snapshotDirectory, type CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { CompletedCheckpointStore } from './CompletedCheckpointStore.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { PendingCheckpoint } from './PendingCheckpoint.ts';

/** What the outcomes need of the coordinator. */
export interface PendingCheckpointOutcomesServices {
  readonly env: EngineEnv;
  readonly ctx: CheckpointCoordinatorContext;
  readonly state: CheckpointCoordinatorState;
  readonly store: CompletedCheckpointStore;
  readonly cleaner: CheckpointsCleaner;
  readonly failureManager: CheckpointFailureManager;
  /** The coordinator lock; a completion holds it from its metadata write to its end. */
  readonly lock: CheckpointCoordinatorLock;
  /** The JobMaster ioExecutor (abort notifications go out there). */
  readonly io: Executor;
  /** The JobMaster main thread (coordinators are notified there). */
  readonly main: Executor;
  /** Re-examines the trigger queue on the timer thread. */
  scheduleTriggerRequest(): void;
}

export class PendingCheckpointOutcomes {
  constructor(private readonly s: PendingCheckpointOutcomesServices) {}

  // ---- completion ---------------------------------------------------------------------------

  /**
   * Finalises a fully acknowledged checkpoint on `thread` (the io worker that took the last ack,
   * or the timer thread when every task had acked before the trigger RPCs went out): writes
   * `chk-<id>/_metadata`, adds it to the store, reports success, subsumes older pending
   * checkpoints and notifies the tasks to commit to and the coordinators (reference 1.9).
   *
   * All of it holds the coordinator lock, as in Flink, where finalizeCheckpoint writes the
   * metadata synchronously inside `synchronized (lock)`: `thread` blocks in the write (it is
   * woken by the write's completion), and every other thread that takes the lock meanwhile
   * waits, so nothing can expire, decline, abort or subsume the checkpoint once it is fully
   * acknowledged.
   */
  completePendingCheckpoint(pc: PendingCheckpoint, thread: Executor): void {
    const { env } = this.s;
    pc.startFinalizing();
    const successFirst = env.bugs.has(PLANTED_BUGS.fmSuccessBeforeStore);
    if (successFirst) this.s.failureManager.handleCheckpointSuccess(pc.checkpointId);
    let completed: CompletedCheckpoint;
    try {
      completed = pc.createCompletedCheckpoint(env.clock.nowUs());
    } catch (e) {
      recordFailureHandled(env.tracer, pc.checkpointId, 'completePendingCheckpoint', e);
      // Planted stall `finalize-failure-leaves-pending`: left pending (finalizing) until it expires.
      if (env.bugs.has(PLANTED_BUGS.finalizeFailureLeavesPending)) return;
      this.abortPendingCheckpoint(pc, getCheckpointException(e, 'FINALIZE_CHECKPOINT_FAILURE'), undefined);
      return;
    }
    const hold = this.s.lock.hold(`completePendingCheckpoint ${pc.checkpointId}`);
    // Blocking IO: the thread waits in the write; the store wakes it with the outcome.
    const writer = thread.block(`_metadata write of checkpoint ${pc.checkpointId}`);
    let written: CompletableFuture<void>;
    try {
      written = env.objectStore.put(completed.metadataPath, completed.metadata(), completed.metadataSizeBytes(), writer);
    } catch (e) {
      const failed = new CompletableFuture<void>();
      writer.execute('checkpoint-metadata-write-failed', () => failed.completeExceptionally(e));
      written = failed;
    }
    written.whenComplete((_v, err) => {
      hold.reenter(() => this.finishCompletion(pc, completed, err, successFirst));
      hold.release();
    });
  }

  /** The rest of a completion once the metadata write ended (`err` when it failed). */
  private finishCompletion(pc: PendingCheckpoint, completed: CompletedCheckpoint, err: unknown,
    successFirst: boolean): void {
    if (pc.isDisposed()) {
      // Aborted while the metadata was being written: only a restore can do that, as it does not
      // take the lock; it follows a stop of the scheduler, which waits for the lock, so this is
      // defensive (a checkpoint aborted meanwhile never completes, and its metadata goes).
      this.s.cleaner.discardSubtaskState(pc.checkpointId, [completed.metadataPath]);
      return;
    }
    // Savepoints never join the store: a failover never restores one, and retention never
    // counts or deletes one (Flink 1.20's completePendingCheckpoint adds checkpoints only).
    const failure = err !== undefined ? err : pc.props.isSavepoint ? undefined : this.addToStore(completed);
    if (failure !== undefined) {
      recordFailureHandled(this.s.env.tracer, pc.checkpointId, 'completePendingCheckpoint', failure);
      if (this.s.env.bugs.has(PLANTED_BUGS.finalizeFailureLeavesPending)) return;
      this.abortPendingCheckpoint(pc, new CheckpointException('FINALIZE_CHECKPOINT_FAILURE',
        failure instanceof Error ? failure.message : String(failure)), undefined, !successFirst);
      return;
    }
    this.afterCompletion(pc, completed, successFirst);
  }

  /** Adds to the store; returns the failure, if any. */
  private addToStore(completed: CompletedCheckpoint): unknown {
    try {
      this.s.state.lastSubsumedId = this.s.store.addCheckpointAndSubsumeOldestOne(completed,
        () => this.s.scheduleTriggerRequest()).lastSubsumedId;
      return undefined;
    } catch (e) {
      return e ?? new Error('store failure');
    }
  }

  private afterCompletion(pc: PendingCheckpoint, completed: CompletedCheckpoint, successReported: boolean): void {
    const { env, ctx, state } = this.s;
    const id = pc.checkpointId;
    const props = pc.props;
    pc.finalizeCheckpoint(completed);
    if (!props.isSavepoint && (state.newestUncompleted?.checkpointId ?? Infinity) < id) this.discardNewestUncompleted();
    // Only a checkpoint added to the store ends a forced-full phase.
    if (!props.isSavepoint) state.forceFullSnapshot = false;
    // A savepoint's success resets the failure counter too (reportCompletedCheckpoint).
    if (!successReported) this.s.failureManager.handleCheckpointSuccess(id);
    state.pending.delete(id);
    this.s.scheduleTriggerRequest();
    // The min pause counts from any completion, a savepoint's included.
    state.lastCompletionUs = env.clock.nowUs();
    env.tracer.event('checkpoint.completed', { checkpointId: id, ...savepointAttrs(props) });
    if (props.isSavepoint) env.tracer.mark('savepoint-completed', { checkpointId: id, synchronous: props.isSynchronous });
    state.statsTracker.reportCompletedCheckpoint(id, env.clock.nowUs());
    // A (non-synchronous) savepoint subsumes nothing and notifies no one: tasks and coordinators
    // never hear of it, so a two-phase-commit sink's savepoint transaction waits for the next
    // checkpoint's notification. A synchronous savepoint does both, as the stop needs it.
    if (props.isSavepoint && !props.isSynchronous) return;
    for (const other of [...state.pending.values()]) {
      if (other.checkpointId < id && other.canBeSubsumed() && !other.isDisposed()) {
        env.tracer.mark('checkpoint-subsumed', { checkpointId: other.checkpointId });
        this.abortPendingCheckpoint(other, new CheckpointException('CHECKPOINT_SUBSUMED'), undefined);
      }
    }
    for (const ref of pc.plan.tasksToCommitTo) {
      const attempt = ctx.currentAttempt(ref.vertexId, ref.subtask);
      if (attempt !== undefined) {
        ctx.notifyCheckpointComplete(attempt, id, completed.triggerTimestampUs, state.lastSubsumedId);
      }
    }
    this.s.main.execute('checkpoint-notify-coordinators-complete', () => {
      for (const c of ctx.coordinators) c.notifyCheckpointComplete(id);
    });
    env.tracer.event('checkpoint.notifiedComplete', { checkpointId: id });
  }

  // ---- abort --------------------------------------------------------------------------------

  /**
   * Aborts every pending checkpoint with `reason` (a failover's restore: JOB_FAILOVER_REGION; the
   * scheduler stopping, which every failover does when the job goes RESTARTING:
   * CHECKPOINT_COORDINATOR_SUSPEND; shutdown: CHECKPOINT_COORDINATOR_SHUTDOWN), savepoints too.
   * The planted `failover-keeps-pending` skips the first two, so a failover keeps them (any other
   * stop is followed by the shutdown, which still aborts them).
   */
  abortPendingCheckpoints(reason: CheckpointFailureReason): void {
    if ((reason === 'JOB_FAILOVER_REGION' || reason === 'CHECKPOINT_COORDINATOR_SUSPEND')
      && this.s.env.bugs.has(PLANTED_BUGS.failoverKeepsPending)) return;
    for (const pc of [...this.s.state.pending.values()]) {
      this.abortPendingCheckpoint(pc, new CheckpointException(reason), undefined);
    }
  }

  /**
   * Aborts `pc` (a no-op once disposed): disposes it, discards its files, reports the failure
   * (unless `report` is false: a failure already reported) and, in any case, sends the abort
   * notifications, forgets it and re-examines the trigger queue. `attemptId` is the declining
   * attempt for a task-level failure.
   */
  abortPendingCheckpoint(pc: PendingCheckpoint, exception: CheckpointException,
    attemptId: ExecutionAttemptId | undefined, report = true): void {
    if (pc.isDisposed()) return;
    const { env, state } = this.s;
    const id = pc.checkpointId;
    const kept = this.keepAsNewest(pc);
    const clear = env.bugs.has(PLANTED_BUGS.disposeClearsBeforeDiscard);
    const files = pc.abort(exception.reason, exception, clear);
    env.tracer.event('checkpoint.aborted', {
      checkpointId: id, reason: exception.reason, ...this.failureFacts(pc.props, attemptId),
    });
    if (pc.props.isSavepoint) {
      env.tracer.mark('savepoint-failed', { checkpointId: id, reason: exception.reason, synchronous: pc.props.isSynchronous });
    }
    state.statsTracker.reportFailedCheckpoint(id, env.clock.nowUs(), exception.reason, exception.message);
    // An aborted savepoint's files go like a checkpoint's: only a completed one is the user's.
    if (!clear && !kept) {
      this.s.cleaner.cleanCheckpoint(id, files, pc.directory ?? snapshotDirectory(id, pc.props.isSavepoint), () => this.s.scheduleTriggerRequest());
    }
    try {
      if (report) this.s.failureManager.handleCheckpointException(id, pc.props, exception, attemptId);
    } finally {
      this.sendAbortedMessages(pc);
      state.pending.delete(id);
      if (exception.reason === 'CHECKPOINT_EXPIRED') state.rememberExpired(id);
      this.s.scheduleTriggerRequest();
    }
  }

  /**
   * Planted `restore-from-uncompleted`: keeps `pc`, about to be aborted, as the newest checkpoint
   * to restore from (with the state its tasks acknowledged; its files are not discarded), when it
   * is a checkpoint newer than every completed one and some task acknowledged it. Returns whether
   * it was kept; the one it replaces is discarded.
   */
  private keepAsNewest(pc: PendingCheckpoint): boolean {
    const { env, state, store } = this.s;
    if (!env.bugs.has(PLANTED_BUGS.restoreFromUncompleted) || pc.props.isSavepoint
      || pc.numberOfAcknowledgedTasks === 0 || pc.checkpointId <= store.getLatestCheckpointId()) return false;
    let kept: CompletedCheckpoint;
    try {
      kept = pc.createCompletedCheckpoint(env.clock.nowUs(), true);
    } catch {
      return false;
    }
    this.discardNewestUncompleted();
    state.newestUncompleted = kept;
    env.tracer.event('checkpoint.keptUncompleted', { checkpointId: pc.checkpointId, acked: pc.numberOfAcknowledgedTasks });
    return true;
  }

  /** Discards the planted bug's kept checkpoint, if any (a newer completion, a shutdown). */
  discardNewestUncompleted(): void {
    const kept = this.s.state.newestUncompleted;
    if (kept === undefined) return;
    this.s.state.newestUncompleted = undefined;
    this.s.cleaner.cleanCheckpoint(kept.checkpointId, kept.stateFiles(), kept.directory, () => this.s.scheduleTriggerRequest());
  }

  /**
   * What the trace records of a failure besides its id and reason, for the failure-handling
   * oracle: a savepoint's kind, and for a task-level failure the failing attempt and what the
   * ExecutionGraph says of it now (its state when it is still its subtask's current attempt,
   * `SUPERSEDED` otherwise). Failures are rare, so the lookup costs nothing that matters.
   */
  failureFacts(props: CheckpointProperties, attemptId: ExecutionAttemptId | undefined): TraceAttrs {
    const savepoint = savepointAttrs(props);
    if (attemptId === undefined) return savepoint;
    const ref = subtaskOfAttemptId(attemptId);
    const current = ref === undefined ? undefined : this.s.ctx.currentAttempt(ref.vertexId, ref.subtask);
    const taskState = current !== undefined && current.attemptId === attemptId ? current.state : 'SUPERSEDED';
    return { ...savepoint, task: attemptId, taskState };
  }

  private sendAbortedMessages(pc: PendingCheckpoint): void {
    const { ctx } = this.s;
    const latestCompleted = this.s.store.getLatestCheckpointId();
    const id = pc.checkpointId;
    this.s.io.execute('checkpoint-send-aborted', () => {
      for (const ref of pc.plan.tasksToCommitTo) {
        const attempt = ctx.currentAttempt(ref.vertexId, ref.subtask);
        if (attempt !== undefined) ctx.notifyCheckpointAborted(attempt, id, latestCompleted, pc.triggerTimestampUs);
      }
    });
    this.s.main.execute('checkpoint-notify-coordinators-aborted', () => {
      for (const c of ctx.coordinators) c.notifyCheckpointAborted(id);
    });
  }
}

/** The trace attributes that mark a savepoint (none for a checkpoint, so its events stay as they were). */
export function savepointAttrs(props: CheckpointProperties): TraceAttrs {
  return props.isSavepoint ? { savepoint: true, synchronous: props.isSynchronous } : {};
}
