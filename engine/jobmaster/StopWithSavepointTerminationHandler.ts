/**
 * StopWithSavepointTerminationHandler: the JobMaster's side of stop-with-savepoint after the
 * synchronous savepoint was requested. It waits for two things in order, each handled on the
 * JobMaster main thread: first the savepoint's outcome, then (only after a savepoint was
 * created) the terminal states of the executions that were current when the stop began.
 *
 * - The savepoint failed (expired, declined, a task failed, the coordinator suspended it for a
 *   failover): periodic checkpoints start again and the stop fails with the savepoint's error.
 *   Mark `stop-with-savepoint-failed`. The tasks learn it from the abort notification (they
 *   fail: "Stop-with-savepoint failed.") and the job fails over and keeps running.
 * - The savepoint was created and every one of those executions FINISHED: the stop succeeds with
 *   the savepoint's path. Mark `stop-with-savepoint-finished`.
 * - The savepoint was created but some execution ended otherwise (it failed or was cancelled
 *   before it finished): a global failure with StopWithSavepointStoppingException, which Flink
 *   classifies as non-recoverable, so the job ends FAILED; the stop fails with it. Mark
 *   `stop-with-savepoint-job-failed`. Sinks that got the savepoint's notification committed;
 *   the others left their transactions pre-committed inside the savepoint.
 *
 * When neither comes (a lost confirmation: the tasks wait forever) the handler stays where it
 * is, as Flink's does; the harness names that outcome (`stop-with-savepoint-stuck`).
 *
 * @see org.apache.flink.runtime.scheduler.stopwithsavepoint.StopWithSavepointTerminationHandlerImpl,
 *      StopWithSavepointTerminationManager, StopWithSavepointStoppingException
 * Invariants: the states go WaitingForSavepoint -> SavepointCreated -> Final, or
 * WaitingForSavepoint -> Final; the result completes exactly once, in the Final state.
 */
import type { Tracer } from '../api/Tracer.ts';
import { CheckpointException } from '../checkpoint/CheckpointFailureReason.ts';
import type { CompletedCheckpoint } from '../checkpoint/CompletedCheckpoint.ts';
import type { ExecutionState } from '../taskexecutor/ExecutionState.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import { ExpectedError } from '../util/ExpectedError.ts';

/**
 * StopWithSavepointStoppingException: the savepoint exists, the job did not finish. Its message
 * names the savepoint, as Flink's does, because its transactions may be uncommitted.
 */
export class StopWithSavepointStoppingException extends ExpectedError {
  override readonly name = 'StopWithSavepointStoppingException';
  constructor(readonly savepointPath: string) {
    super(`A savepoint has been created at: ${savepointPath}, but the job failed during stopping. `
      + 'The savepoint is consistent, but might have uncommitted transactions.');
  }
}

/** What the handler needs from the scheduler. */
export interface StopWithSavepointContext {
  readonly tracer: Tracer;
  /** SchedulerBase.startCheckpointScheduler. */
  startCheckpointScheduler(): void;
  /** SchedulerBase.handleGlobalFailure with a non-recoverable error. */
  failJobUnrecoverably(error: StopWithSavepointStoppingException): void;
}

type State = 'WaitingForSavepoint' | 'SavepointCreated' | 'Final';

export class StopWithSavepointTerminationHandler {
  /** Completes with the savepoint's metadata path, or fails with why the stop failed. */
  readonly savepointPath = new CompletableFuture<string>();
  private state: State = 'WaitingForSavepoint';
  private savepoint: CompletedCheckpoint | undefined;

  constructor(private readonly c: StopWithSavepointContext, private readonly drain: boolean) {}

  /** The handler's state (StopWithSavepointTerminationHandlerImpl's State class names). */
  get currentState(): State {
    return this.state;
  }

  /**
   * The synchronous savepoint's outcome: `savepoint`, or `error` (a CheckpointException, or any
   * error). @throws AssertionError when called twice.
   */
  handleSavepointCreation(savepoint: CompletedCheckpoint | undefined, error: unknown): void {
    assert(this.state === 'WaitingForSavepoint', () => `stop-with-savepoint: savepoint outcome in state ${this.state}`);
    if (savepoint !== undefined) {
      this.state = 'SavepointCreated';
      this.savepoint = savepoint;
      return;
    }
    this.state = 'Final';
    const reason = error instanceof CheckpointException ? error.reason : error instanceof Error ? error.message : String(error);
    this.c.tracer.mark('stop-with-savepoint-failed', { reason, drain: this.drain });
    this.c.startCheckpointScheduler();
    this.savepointPath.completeExceptionally(error);
  }

  /**
   * The terminal states of the executions current when the stop began (in any order). Ignored
   * after a failed savepoint (the stop is final already).
   * @throws AssertionError before the savepoint's outcome.
   */
  handleExecutionsTermination(states: readonly ExecutionState[]): void {
    // Only after the savepoint's outcome (StopWithSavepointTerminationManager orders them).
    assert(this.state !== 'WaitingForSavepoint', 'stop-with-savepoint: executions terminated before the savepoint\'s outcome');
    if (this.state !== 'SavepointCreated') return;
    const savepoint = this.savepoint as CompletedCheckpoint;
    this.state = 'Final';
    const notFinished = [...new Set(states.filter((s) => s !== 'FINISHED'))].sort();
    if (notFinished.length === 0) {
      this.c.tracer.mark('stop-with-savepoint-finished', { checkpointId: savepoint.checkpointId, drain: this.drain });
      this.savepointPath.complete(savepoint.metadataPath);
      return;
    }
    this.c.tracer.mark('stop-with-savepoint-job-failed',
      { checkpointId: savepoint.checkpointId, states: notFinished.join(','), drain: this.drain });
    const error = new StopWithSavepointStoppingException(savepoint.metadataPath);
    this.c.failJobUnrecoverably(error);
    this.savepointPath.completeExceptionally(error);
  }
}
