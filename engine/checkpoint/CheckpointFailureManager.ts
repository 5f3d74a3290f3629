/**
 * Decides which checkpoint failures count against the tolerable number and fails the job when
 * the count exceeds it: job-level failures (pre-flight reasons or no attempt) go to `failJob`,
 * task-level ones to `failJobDueToTaskFailure`, except that a task-level failure of a
 * synchronous savepoint goes to `failJob` at once, uncounted. Only five reasons count, each checkpoint id at
 * most once, and failures of checkpoints older than the last success are ignored.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointFailureManager (reference 1.11)
 * Invariants: 0 <= counter <= tolerable; every counted id is > the last succeeded id; the counter
 * is at least the number of counted ids.
 * Planted bugs: `fm-ignore-expired` (mutants.md 3), `fm-count-past-checkpoints` (4).
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import { StorageError } from '../api/ObjectStore.ts';
import { assert } from '../util/assert.ts';
import {
  CheckpointException, isCountedFailure, isPreFlight, type CheckpointFailureReason,
} from './CheckpointFailureReason.ts';
import type { CheckpointProperties } from './CheckpointProperties.ts';
import { PLANTED_BUGS } from './CheckpointPlantedBugs.ts';

/** The id of a failure that has no checkpoint id (CheckpointFailureManager.UNKNOWN_CHECKPOINT_ID). */
export const UNKNOWN_CHECKPOINT_ID = -1;

/** How the failure manager fails the job. */
export interface FailJobCallback {
  failJob(cause: Error): void;
  failJobDueToTaskFailure(cause: Error, attemptId: ExecutionAttemptId): void;
}

/**
 * Maps a trigger failure to a CheckpointException: a storage (IO) error anywhere in the cause
 * chain gives IO_EXCEPTION, else a CheckpointException keeps its reason, else `fallback`
 * (CheckpointCoordinator.getCheckpointException).
 */
export function getCheckpointException(error: unknown,
  fallback: CheckpointFailureReason = 'TRIGGER_CHECKPOINT_FAILURE'): CheckpointException {
  let found: CheckpointException | undefined;
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    if (e instanceof StorageError) return new CheckpointException('IO_EXCEPTION', e.message);
    if (e instanceof CheckpointException && found === undefined) found = e;
    e = e instanceof Error ? e.cause : undefined;
  }
  if (found !== undefined) return found;
  return new CheckpointException(fallback, error instanceof Error ? error.message : String(error));
}

export class CheckpointFailureManager {
  private counter = 0;
  private readonly countedIds = new Set<number>();
  private lastSucceededId = Number.MIN_SAFE_INTEGER;

  constructor(
    private readonly env: EngineEnv,
    private readonly tolerableFailures: number,
    private readonly callback: FailJobCallback,
  ) {
    assert(Number.isInteger(tolerableFailures) && tolerableFailures >= 0, 'bad tolerable failures');
    env.invariants.register('checkpoint-failure-manager', () => this.checkInvariants());
  }

  /** The consecutive counted failures so far. */
  get failureCounter(): number {
    return this.counter;
  }

  /**
   * Handles a failure of checkpoint `checkpointId` (-1 when unknown) with `props` (undefined
   * when the request never got properties). `attemptId` is the failing task's attempt for a
   * task-level failure (a decline), undefined for a job-level one. Every call is traced as
   * `checkpoint.failureReported`, so the failure-handling oracle judges what the failure
   * manager was told, not only which checkpoints were aborted.
   */
  handleCheckpointException(checkpointId: number, props: CheckpointProperties | undefined,
    exception: CheckpointException, attemptId: ExecutionAttemptId | undefined): void {
    const jobLevel = attemptId === undefined || isPreFlight(exception.reason);
    this.env.tracer.event('checkpoint.failureReported', {
      checkpointId, reason: exception.reason, level: jobLevel ? 'job' : 'task',
      ...(attemptId === undefined ? {} : { task: attemptId }),
      ...(props?.isSavepoint === true ? { savepoint: true, synchronous: props.isSynchronous } : {}),
    });
    if (jobLevel) {
      // Job-level savepoint failures are never counted (the operator acts by hand).
      if (props?.isSavepoint === true) return;
      this.checkFailureAgainstCounter(checkpointId, exception, () => this.callback.failJob(exception));
      return;
    }
    if (props?.isSynchronous === true) {
      // A synchronous savepoint must never be left failing: the job would wait for it forever.
      // Flink fails the job with failJob, with no check of the attempt.
      this.callback.failJob(exception);
      return;
    }
    this.checkFailureAgainstCounter(checkpointId, exception,
      () => this.callback.failJobDueToTaskFailure(exception, attemptId));
  }

  /** A checkpoint (or savepoint) completed: a newer success clears the counter. */
  handleCheckpointSuccess(checkpointId: number): void {
    if (checkpointId > this.lastSucceededId) {
      this.lastSucceededId = checkpointId;
      this.counter = 0;
      this.countedIds.clear();
    }
  }

  private checkFailureAgainstCounter(checkpointId: number, exception: CheckpointException,
    fail: () => void): void {
    const countPast = this.env.bugs.has(PLANTED_BUGS.fmCountPastCheckpoints);
    if (checkpointId !== UNKNOWN_CHECKPOINT_ID && checkpointId <= this.lastSucceededId && !countPast) return;
    if (!this.isCounted(exception.reason)) return;
    if (checkpointId !== UNKNOWN_CHECKPOINT_ID) {
      if (this.countedIds.has(checkpointId)) return;
      this.countedIds.add(checkpointId);
    }
    this.counter++;
    this.env.tracer.event('checkpoint.failureCounted',
      { checkpointId, reason: exception.reason, counter: this.counter });
    if (this.counter > this.tolerableFailures) {
      this.counter = 0;
      this.countedIds.clear();
      this.env.tracer.event('checkpoint.tolerableFailuresExceeded', { checkpointId, reason: exception.reason });
      fail();
    }
  }

  private isCounted(reason: CheckpointFailureReason): boolean {
    if (reason === 'CHECKPOINT_EXPIRED' && this.env.bugs.has(PLANTED_BUGS.fmIgnoreExpired)) return false;
    return isCountedFailure(reason);
  }

  checkInvariants(): void {
    assert(this.counter >= 0 && this.counter <= this.tolerableFailures, 'failure counter out of range');
    assert(this.counter >= this.countedIds.size, 'counter below counted ids');
    if (!this.env.bugs.has(PLANTED_BUGS.fmCountPastCheckpoints)) {
      for (const id of this.countedIds) assert(id > this.lastSucceededId, 'counted an old checkpoint');
    }
  }
}
