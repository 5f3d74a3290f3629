/**
 * A reference model of Flink's CheckpointFailureManager decision rule, written from
 * shared/reference/flink-semantics.md 1.11 (and 1.9, 1.14, 8.10) and Flink's
 * DefaultExecutionGraph, not from the engine: which failure reasons count, that each checkpoint
 * id counts once, that failures of checkpoints with an id at or below the last success are
 * ignored, that a success resets the counter, and that a counter above `tolerableFailures` fails
 * the job through one of two callbacks: `failJob` for a job-level failure (a global failover),
 * `failJobDueToTaskFailure` for a task-level one (a synchronous savepoint's task-level failure
 * calls `failJob` at once, uncounted). Both run later on the JobMaster main thread;
 * the second fails the job only if the failing attempt is then still its subtask's current
 * attempt and RUNNING or INITIALIZING (FLINK-13593; {@link failsTheJobWhenRun}).
 *
 * The reason lists are the oracle's own copies of the reference's, on purpose: the engine's may
 * be wrong.
 *
 * Invariants: 0 <= counter <= tolerableFailures between calls; every counted id is greater than
 * the last succeeded id.
 */

/** The id of a failure without a checkpoint id (a trigger that failed before one existed). */
export const UNKNOWN_ID = -1;

/** Reasons that fail a checkpoint before it really started (reference 1.11, item 7). */
const PRE_FLIGHT: ReadonlySet<string> = new Set([
  'PERIODIC_SCHEDULER_SHUTDOWN', 'TOO_MANY_CHECKPOINT_REQUESTS', 'MINIMUM_TIME_BETWEEN_CHECKPOINTS',
  'NOT_ALL_REQUIRED_TASKS_RUNNING', 'IO_EXCEPTION', 'BLOCKING_OUTPUT_EXIST',
]);

/** The five reasons the counter counts (reference 1.11, item 3); every other one is ignored. */
const COUNTED: ReadonlySet<string> = new Set([
  'IO_EXCEPTION', 'CHECKPOINT_ASYNC_EXCEPTION', 'CHECKPOINT_DECLINED', 'CHECKPOINT_EXPIRED',
  'FINALIZE_CHECKPOINT_FAILURE',
]);

/** Every reason the reference lists (1.11, items 3 and 4). */
const ALL_REASONS: ReadonlySet<string> = new Set([
  ...COUNTED, ...PRE_FLIGHT,
  'CHECKPOINT_SUBSUMED', 'CHECKPOINT_COORDINATOR_SUSPEND', 'CHECKPOINT_COORDINATOR_SHUTDOWN',
  'CHANNEL_STATE_SHARED_STREAM_EXCEPTION', 'JOB_FAILOVER_REGION',
  'CHECKPOINT_DECLINED_TASK_NOT_READY', 'CHECKPOINT_DECLINED_TASK_CLOSING',
  'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER', 'CHECKPOINT_DECLINED_SUBSUMED',
  'CHECKPOINT_DECLINED_INPUT_END_OF_STREAM', 'TASK_FAILURE', 'TASK_CHECKPOINT_FAILURE',
  'UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE', 'TRIGGER_CHECKPOINT_FAILURE',
]);

/** True when `reason` is one of the reference's checkpoint failure reasons. */
export function isCheckpointFailureReason(reason: string): boolean {
  return ALL_REASONS.has(reason);
}

/** One failure handed to the failure manager. */
export interface CheckpointFailure {
  /** The checkpoint's id, or {@link UNKNOWN_ID}. */
  readonly checkpointId: number;
  readonly reason: string;
  /** The failing attempt, for a failure a task reported (a decline); undefined for none. */
  readonly task?: string;
  readonly savepoint?: boolean;
  readonly synchronous?: boolean;
}

/** How the failure manager fails the job (its FailJobCallback). */
export type FailJobCallback = 'failJob' | 'failJobDueToTaskFailure';

/**
 * What the rule makes of one failure:
 * - `fail`: the failure manager must call `callback` at once (for `failJobDueToTaskFailure`
 *   whether the job then fails depends on the attempt when the callback runs);
 * - `counted`: counted, within the tolerable number;
 * - `ignored`: not counted (see `why`).
 */
export interface FailureDecision {
  readonly action: 'fail' | 'counted' | 'ignored';
  readonly why: string;
  /** The counter after the failure (0 after a failure that ran over). */
  readonly counter: number;
  /** For `fail`: the callback. */
  readonly callback?: FailJobCallback;
}

/** Attempt states in which `failJobDueToTaskFailure` still fails the job. */
const STILL_RUNNING: ReadonlySet<string> = new Set(['RUNNING', 'INITIALIZING']);

/**
 * Whether `callback`, run on the JobMaster main thread, fails the job: `failJob` always;
 * `failJobDueToTaskFailure` only if the failing attempt is then still its subtask's current
 * attempt (`taskState` is its state then, `SUPERSEDED` when it is not current) and RUNNING or
 * INITIALIZING (DefaultExecutionGraph.failGlobalIfExecutionIsStillRunning).
 */
export function failsTheJobWhenRun(callback: FailJobCallback, taskState: string | undefined): boolean {
  return callback === 'failJob' || (taskState !== undefined && STILL_RUNNING.has(taskState));
}

/** The reference CheckpointFailureManager; see the file comment. */
export class ReferenceFailureManager {
  private counter = 0;
  private readonly countedIds = new Set<number>();
  private lastSucceededId = Number.NEGATIVE_INFINITY;

  /** @throws Error when `tolerableFailures` is not a non-negative integer. */
  constructor(private readonly tolerableFailures: number) {
    if (!Number.isInteger(tolerableFailures) || tolerableFailures < 0) {
      throw new Error(`tolerable failures must be a non-negative integer, got ${tolerableFailures}`);
    }
  }

  /** The consecutive counted failures so far. */
  get failureCounter(): number {
    return this.counter;
  }

  /** The id of the latest success, -Infinity before any. */
  get lastSucceeded(): number {
    return this.lastSucceededId;
  }

  /** A checkpoint or savepoint completed: a newer success clears the counter (1.11, item 6). */
  success(checkpointId: number): void {
    if (checkpointId <= this.lastSucceededId) return;
    this.lastSucceededId = checkpointId;
    this.counter = 0;
    this.countedIds.clear();
  }

  /** Applies the rule to `f` (1.11, items 1 to 5) and returns the decision. */
  failure(f: CheckpointFailure): FailureDecision {
    const taskLevel = f.task !== undefined && !PRE_FLIGHT.has(f.reason);
    const callback: FailJobCallback = taskLevel ? 'failJobDueToTaskFailure' : 'failJob';
    if (!taskLevel && f.savepoint === true) return this.ignored('a job-level savepoint failure');
    if (taskLevel && f.synchronous === true) {
      // failJob, not failJobDueToTaskFailure: Flink's handleTaskLevelCheckpointException.
      return { action: 'fail', why: 'a task-level failure of a synchronous savepoint', counter: this.counter,
        callback: 'failJob' };
    }
    if (f.checkpointId !== UNKNOWN_ID && f.checkpointId <= this.lastSucceededId) {
      return this.ignored(`${f.savepoint === true ? 'savepoint' : 'checkpoint'} ${f.checkpointId} is not newer than the last `
        + `success ${this.lastSucceededId}`);
    }
    if (!COUNTED.has(f.reason)) return this.ignored(`${f.reason} is not counted`);
    if (f.checkpointId !== UNKNOWN_ID) {
      if (this.countedIds.has(f.checkpointId)) return this.ignored(`checkpoint ${f.checkpointId} counted already`);
      this.countedIds.add(f.checkpointId);
    }
    this.counter++;
    if (this.counter <= this.tolerableFailures) {
      return { action: 'counted', why: `${this.counter} of ${this.tolerableFailures} tolerable`, counter: this.counter };
    }
    const over = `${this.counter} counted failures exceed the ${this.tolerableFailures} tolerable`;
    this.counter = 0;
    this.countedIds.clear();
    return { action: 'fail', why: over, counter: 0, callback };
  }

  private ignored(why: string): FailureDecision {
    return { action: 'ignored', why, counter: this.counter };
  }
}
