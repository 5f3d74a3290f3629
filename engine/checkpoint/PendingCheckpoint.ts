/**
 * A checkpoint that was triggered and is neither complete nor aborted: it collects the acks of
 * the tasks to wait for, the coordinator states and the master states, and owns the timeout
 * canceller. Its completion future completes only at finalisation (or fails at abort).
 *
 * @see org.apache.flink.runtime.checkpoint.PendingCheckpoint (reference 1.6, 1.7, 1.9, 1.10)
 * Invariants: acknowledged and not-yet-acknowledged tasks are disjoint and together are the tasks
 * to wait for; once disposed, nothing more is acknowledged and the canceller is cancelled;
 * operator states come only from acknowledged tasks.
 */
import type { Cancellable } from '../api/Executor.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { CheckpointJobVertex, CheckpointTaskAttempt } from './CheckpointCoordinatorContext.ts';
import { CheckpointException, type CheckpointFailureReason } from './CheckpointFailureReason.ts';
import { subtaskKey, type CheckpointPlan, type SubtaskRef } from './CheckpointPlan.ts';
import type { CheckpointProperties } from './CheckpointProperties.ts';
import { CompletedCheckpoint, type OperatorStateInfo } from './CompletedCheckpoint.ts';
import type { OperatorSubtaskStateHandle, TaskStateSnapshot } from './TaskStateSnapshot.ts';

/** Outcome of an acknowledgement (PendingCheckpoint.TaskAcknowledgeResult). */
export type TaskAcknowledgeResult = 'SUCCESS' | 'DUPLICATE' | 'UNKNOWN' | 'DISCARDED';

/** Constructor options of {@link PendingCheckpoint}. */
export interface PendingCheckpointOptions {
  readonly checkpointId: number;
  /** Trigger time, µs. */
  readonly triggerTimestampUs: number;
  readonly plan: CheckpointPlan;
  readonly props: CheckpointProperties;
  /** The directory of its files (`[run-<n>/]chk-<id>` or `[run-<n>/]savepoint-<id>`). */
  readonly directory?: string;
  readonly coordinatorUids: readonly string[];
  readonly masterHookIds: readonly string[];
  /**
   * The job's vertices, for each operator's parallelism and max parallelism in the completed
   * checkpoint (Flink's OperatorState takes them from the acknowledging task's ExecutionJobVertex).
   */
  readonly vertices: readonly CheckpointJobVertex[];
  /** Accept acks by (vertex, subtask) from any attempt (planted bug `failover-keeps-pending`). */
  readonly matchAnyAttempt?: boolean;
  /**
   * Fully acknowledged with one task's ack still missing (planted bug
   * `pending-completes-one-ack-short`), when it waits for more than one task.
   */
  readonly oneAckShort?: boolean;
  /**
   * Test fixtures only (testing/completedCheckpointOf.ts): build a checkpoint of vertices that
   * are all finished, which the coordinator never creates (the precondition below refuses it).
   */
  readonly allowEmptyPlanForTesting?: boolean;
}

/** `<vertex>#<subtask>` of an attempt id `<vertex>#<subtask>@<attempt>`. */
function subtaskOfAttempt(attemptId: ExecutionAttemptId): string {
  const at = attemptId.lastIndexOf('@');
  return at < 0 ? attemptId : attemptId.slice(0, at);
}

export class PendingCheckpoint {
  readonly checkpointId: number;
  readonly triggerTimestampUs: number;
  readonly props: CheckpointProperties;
  /** See {@link PendingCheckpointOptions.directory}; undefined: a first run's default. */
  readonly directory: string | undefined;
  readonly plan: CheckpointPlan;
  /** Fails at abort; the trigger pipeline forwards into it, so an abort ends triggering too. */
  readonly masterTriggerCompletionPromise = new CompletableFuture<void>();
  private readonly completion = new CompletableFuture<CompletedCheckpoint>();
  private readonly notYetAcknowledged = new Map<ExecutionAttemptId, CheckpointTaskAttempt>();
  private readonly acknowledged = new Set<ExecutionAttemptId>();
  private readonly operatorStates = new Map<string, Map<number, OperatorSubtaskStateHandle>>();
  private readonly notYetAckedCoordinators: Set<string>;
  private readonly coordinatorStates = new Map<string, unknown>();
  private readonly notYetAckedMasterStates: Set<string>;
  private readonly masterStates = new Map<string, unknown>();
  /**
   * Subtasks that acknowledged as deployed finished on restore. Flink marks the whole vertex
   * finished-on-restore on the first such ack, which is right there because only fully finished
   * vertices are deployed as finished. Here a finished subtask of a partly finished vertex is
   * deployed as finished too (ORACLES.md 1), so a vertex counts as fully finished only once every
   * subtask is finished or finished on restore; otherwise its running subtasks' state is kept.
   */
  private readonly finishedOnRestoreTasks = new Map<string, { readonly vertexId: string; readonly subtask: number }>();
  /** Subtasks (`v#i`) that acked with their operators finished (isTaskFinished). */
  private readonly operatorsFinished = new Set<string>();
  private readonly matchAnyAttempt: boolean;
  private readonly vertices: readonly CheckpointJobVertex[];
  private readonly acksAllowedMissing: number;
  private canceller: Cancellable | undefined;
  private disposed = false;
  private failureCause: CheckpointException | undefined;
  private finalizing = false;

  /**
   * @throws Error when the plan waits for no task: as Flink's constructor (a precondition: "needs
   *   at least one vertex that commits the checkpoint"); the trigger then fails with
   *   TRIGGER_CHECKPOINT_FAILURE. It is what masks an empty plan of `plan-terminal-as-finished`.
   */
  constructor(o: PendingCheckpointOptions) {
    if (o.plan.tasksToWaitFor.length === 0 && o.allowEmptyPlanForTesting !== true) {
      throw new Error(`checkpoint ${o.checkpointId} needs at least one vertex that commits the checkpoint (its plan waits for no task)`);
    }
    this.checkpointId = o.checkpointId;
    this.triggerTimestampUs = o.triggerTimestampUs;
    this.props = o.props;
    this.directory = o.directory;
    this.plan = o.plan;
    this.vertices = o.vertices;
    this.matchAnyAttempt = o.matchAnyAttempt ?? false;
    this.acksAllowedMissing = o.oneAckShort === true && o.plan.tasksToWaitFor.length > 1 ? 1 : 0;
    for (const t of o.plan.tasksToWaitFor) this.notYetAcknowledged.set(t.attemptId, t);
    this.notYetAckedCoordinators = new Set(o.coordinatorUids);
    this.notYetAckedMasterStates = new Set(o.masterHookIds);
  }

  /** Completes with the CompletedCheckpoint at finalisation; fails at abort. */
  get completionFuture(): CompletableFuture<CompletedCheckpoint> {
    return this.completion;
  }

  isDisposed(): boolean {
    return this.disposed;
  }

  /** The abort's cause, once aborted. */
  get failure(): CheckpointException | undefined {
    return this.failureCause;
  }

  /** True while the metadata write of a fully acknowledged checkpoint is in flight. */
  get isFinalizing(): boolean {
    return this.finalizing;
  }

  /** Marks the start of finalisation (only once). */
  startFinalizing(): void {
    assert(!this.finalizing && this.isFullyAcknowledged(), 'finalize twice or too early');
    this.finalizing = true;
  }

  /** Installs the timeout canceller; cancelled at once if already disposed. */
  setCancellerHandle(canceller: Cancellable): void {
    assert(this.canceller === undefined, 'canceller set twice');
    this.canceller = canceller;
    if (this.disposed) canceller.cancel();
  }

  /** True while the timeout canceller is armed. */
  hasPendingCanceller(): boolean {
    return this.canceller?.pending ?? false;
  }

  /** Acks received, and the total to wait for; finished tasks count in both (for stats). */
  stats(): { acknowledged: number; total: number } {
    const finished = this.plan.finishedTasks.length;
    return { acknowledged: this.acknowledged.size + finished, total: this.plan.tasksToWaitFor.length + finished };
  }

  get numberOfAcknowledgedTasks(): number {
    return this.acknowledged.size;
  }

  get numberOfNonAcknowledgedTasks(): number {
    return this.notYetAcknowledged.size;
  }

  /** Every task, coordinator and master hook acknowledged, and not disposed. */
  isFullyAcknowledged(): boolean {
    return !this.disposed && this.notYetAcknowledged.size <= this.acksAllowedMissing &&
      this.notYetAckedCoordinators.size === 0 && this.notYetAckedMasterStates.size === 0;
  }

  /** Savepoints can never be subsumed. */
  canBeSubsumed(): boolean {
    return this.props.canBeSubsumed();
  }

  /**
   * Records `attemptId`'s state (null: stateless task).
   * @returns SUCCESS, DUPLICATE (already acked; the state must not be discarded), UNKNOWN (not a
   *   task to wait for; discard its state) or DISCARDED (this checkpoint is disposed).
   */
  acknowledgeTask(attemptId: ExecutionAttemptId, state: TaskStateSnapshot | null): TaskAcknowledgeResult {
    if (this.disposed) return 'DISCARDED';
    let key: ExecutionAttemptId | undefined = this.notYetAcknowledged.has(attemptId) ? attemptId : undefined;
    if (key === undefined) {
      if (this.acknowledged.has(attemptId)) return 'DUPLICATE';
      if (!this.matchAnyAttempt) return 'UNKNOWN';
      const wanted = subtaskOfAttempt(attemptId);
      key = [...this.notYetAcknowledged.keys()].find((k) => subtaskOfAttempt(k) === wanted);
      if (key === undefined) return 'UNKNOWN';
    }
    const task = this.notYetAcknowledged.get(key) as CheckpointTaskAttempt;
    this.notYetAcknowledged.delete(key);
    this.acknowledged.add(attemptId);
    if (state !== null) {
      for (const op of state.operators) {
        let per = this.operatorStates.get(op.operatorUid);
        if (per === undefined) {
          per = new Map();
          this.operatorStates.set(op.operatorUid, per);
        }
        per.set(task.subtask, op);
      }
      if (state.isTaskDeployedAsFinished) this.finishedOnRestoreTasks.set(subtaskKey(task.vertexId, task.subtask), task);
      if (state.isTaskFinished) this.operatorsFinished.add(subtaskKey(task.vertexId, task.subtask));
    }
    return 'SUCCESS';
  }

  /** Records coordinator `operatorUid`'s state. */
  acknowledgeCoordinatorState(operatorUid: string, state: unknown): TaskAcknowledgeResult {
    if (this.disposed) return 'DISCARDED';
    if (!this.notYetAckedCoordinators.delete(operatorUid)) {
      return this.coordinatorStates.has(operatorUid) ? 'DUPLICATE' : 'UNKNOWN';
    }
    this.coordinatorStates.set(operatorUid, state);
    return 'SUCCESS';
  }

  /** Records master hook `identifier`'s state; null or undefined: acknowledged without state. */
  acknowledgeMasterState(identifier: string, state: unknown): void {
    if (this.disposed) return;
    if (this.notYetAckedMasterStates.delete(identifier) && state !== null && state !== undefined) {
      this.masterStates.set(identifier, state);
    }
  }

  /** The operator states reported so far. */
  operatorStateFiles(): string[] {
    const out: string[] = [];
    for (const per of this.operatorStates.values()) for (const h of per.values()) out.push(h.handle.path);
    return out;
  }

  /**
   * Builds the CompletedCheckpoint, filling in finished-task state (FLIP-147); `partly` (planted
   * `restore-from-uncompleted` only) builds it from the acknowledgements so far.
   * @throws CheckpointException CHECKPOINT_DECLINED_TASK_CLOSING when a partly finished vertex
   *   uses union list state. @throws AssertionError when not fully acknowledged (and not `partly`).
   */
  createCompletedCheckpoint(completionTimestampUs: number, partly = false): CompletedCheckpoint {
    assert(partly || this.isFullyAcknowledged(), () => `checkpoint ${this.checkpointId} is not fully acknowledged`);
    this.checkNoPartlyFinishedVertexUsesUnionState();
    // Plain loops: this runs once per completed checkpoint, mostly in cold code, where spreads
    // of iterators and temporary Sets cost far more than the work they do.
    const finishedTasks: SubtaskRef[] = [];
    for (const t of this.plan.finishedTasks) finishedTasks.push({ vertexId: t.vertexId, subtask: t.subtask });
    for (const t of this.finishedOnRestoreTasks.values()) finishedTasks.push({ vertexId: t.vertexId, subtask: t.subtask });
    const fullyFinished: string[] = [];
    for (const v of this.plan.fullyFinishedVertices) if (!fullyFinished.includes(v)) fullyFinished.push(v);
    if (this.finishedOnRestoreTasks.size > 0) {
      const finishedKeys = new Set(finishedTasks.map((t) => subtaskKey(t.vertexId, t.subtask)));
      const finishedOnRestore: string[] = [];
      for (const t of this.finishedOnRestoreTasks.values()) {
        if (!finishedOnRestore.includes(t.vertexId)) finishedOnRestore.push(t.vertexId);
      }
      for (const v of finishedOnRestore) {
        const allFinished = this.plan.tasksToWaitFor.every((t) => t.vertexId !== v || finishedKeys.has(subtaskKey(v, t.subtask)));
        if (allFinished && !fullyFinished.includes(v)) fullyFinished.push(v);
      }
    }
    const operatorStates = new Map<string, ReadonlyMap<number, OperatorSubtaskStateHandle>>();
    for (const [uid, per] of this.operatorStates) operatorStates.set(uid, new Map(per));
    const operatorInfo = operatorInfoOf(this.vertices, finishedTasks, fullyFinished);
    return new CompletedCheckpoint({
      checkpointId: this.checkpointId,
      triggerTimestampUs: this.triggerTimestampUs,
      completionTimestampUs,
      props: this.props,
      operatorStates,
      coordinatorStates: new Map(this.coordinatorStates),
      masterStates: new Map(this.masterStates),
      finishedTasks,
      fullyFinishedVertices: fullyFinished,
      operatorInfo,
      ...(this.directory === undefined ? {} : { directory: this.directory }),
    });
  }

  private checkNoPartlyFinishedVertexUsesUnionState(): void {
    // Without finished tasks or finished operators no vertex is partly finished (the usual case).
    if (this.plan.finishedTasks.length === 0 && this.finishedOnRestoreTasks.size === 0 &&
      this.operatorsFinished.size === 0) return;
    const fully = new Set(this.plan.fullyFinishedVertices);
    const vertices = new Set(this.plan.tasksToWaitFor.map((t) => t.vertexId));
    for (const v of vertices) {
      if (fully.has(v)) continue;
      const waiting = this.plan.tasksToWaitFor.filter((t) => t.vertexId === v);
      const opsFinished = waiting.filter((t) => this.operatorsFinished.has(subtaskKey(v, t.subtask))).length;
      const someTasksFinished = this.plan.finishedTasks.some((t) => t.vertexId === v)
        || [...this.finishedOnRestoreTasks.values()].some((t) => t.vertexId === v);
      const partlyFinishedOperators = opsFinished > 0 && opsFinished < waiting.length;
      if ((someTasksFinished || partlyFinishedOperators) && this.vertexUsesUnionState(v)) {
        throw new CheckpointException('CHECKPOINT_DECLINED_TASK_CLOSING',
          `vertex ${v} is partly finished and uses union list state`);
      }
    }
  }

  /**
   * Whether an operator of `vertexId` has union list state in this checkpoint: only the vertex's
   * own operators count (Flink's hasUsedUnionListState reads the vertex's operator ids), not
   * another vertex's operator at the same subtask index.
   */
  private vertexUsesUnionState(vertexId: string): boolean {
    // Only the vertex's own operators (Flink's DefaultCheckpointPlan checks the operators of the
    // partly finished vertex), when the vertices are known.
    const uids = this.vertices.find((v) => v.id === vertexId)?.operatorUids;
    for (const t of this.plan.tasksToWaitFor) {
      if (t.vertexId !== vertexId) continue;
      for (const [uid, per] of this.operatorStates) {
        if (uids !== undefined && !uids.includes(uid)) continue;
        const data = per.get(t.subtask)?.data as { managedOperatorState?: unknown } | undefined;
        const handles = data?.managedOperatorState;
        if (!Array.isArray(handles)) continue;
        for (const h of handles as { states?: unknown }[]) {
          if (!(h.states instanceof Map)) continue;
          for (const meta of (h.states as Map<string, { mode: string }>).values()) {
            if (meta.mode === 'UNION') return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * Finalisation done (metadata written, store accepted): disposes without discarding state and
   * completes the completion future with `completed`.
   */
  finalizeCheckpoint(completed: CompletedCheckpoint): void {
    assert(!this.disposed, 'finalize of a disposed checkpoint');
    this.disposed = true;
    this.canceller?.cancel();
    this.completion.complete(completed);
  }

  /**
   * Aborts: fails the futures and disposes. Returns the state files to discard (the caller hands
   * them to the cleaner). `clearBeforeDiscard` plants FLINK-5660 (nothing left to discard).
   * @throws AssertionError when a savepoint is aborted as subsumed.
   */
  abort(reason: CheckpointFailureReason, cause?: unknown, clearBeforeDiscard = false): string[] {
    assert(!(reason === 'CHECKPOINT_SUBSUMED' && this.props.isSavepoint), 'a savepoint cannot be subsumed');
    assert(!this.disposed, 'abort of a disposed checkpoint');
    const message = cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause);
    const exception = new CheckpointException(reason, message);
    this.failureCause = exception;
    this.disposed = true;
    this.canceller?.cancel();
    if (clearBeforeDiscard) this.operatorStates.clear();
    const files = this.operatorStateFiles();
    this.operatorStates.clear();
    this.notYetAcknowledged.clear();
    this.completion.completeExceptionally(exception);
    this.masterTriggerCompletionPromise.completeExceptionally(exception);
    return files;
  }

  checkInvariants(): void {
    for (const a of this.acknowledged) assert(!this.notYetAcknowledged.has(a), 'acked and not acked');
    if (this.disposed) {
      assert(!this.hasPendingCanceller(), () => `disposed checkpoint ${this.checkpointId} has a canceller`);
      assert(this.completion.isDone(), 'disposed checkpoint with open completion future');
    } else {
      assert(!this.completion.isDone(), 'pending checkpoint with completed future');
      assert(this.acknowledged.size + this.notYetAcknowledged.size >= this.plan.tasksToWaitFor.length,
        'lost track of tasks to wait for');
    }
  }
}

/**
 * Per operator uid of `vertices`: its vertex's parallelism and current max parallelism, whether
 * the vertex is fully finished, and which of its subtasks had finished.
 */
function operatorInfoOf(vertices: readonly CheckpointJobVertex[], finishedTasks: readonly SubtaskRef[],
  fullyFinishedVertices: readonly string[]): Map<string, OperatorStateInfo> {
  const out = new Map<string, OperatorStateInfo>();
  for (const v of vertices) {
    const finishedSubtasks: number[] = [];
    for (const t of finishedTasks) if (t.vertexId === v.id && !finishedSubtasks.includes(t.subtask)) finishedSubtasks.push(t.subtask);
    finishedSubtasks.sort((a, b) => a - b);
    const info: OperatorStateInfo = Object.freeze({
      parallelism: v.parallelism,
      maxParallelism: v.maxParallelism,
      fullyFinished: fullyFinishedVertices.includes(v.id),
      finishedSubtasks: Object.freeze(finishedSubtasks),
    });
    for (const uid of v.operatorUids) out.set(uid, info);
  }
  return out;
}
