/**
 * Why a checkpoint failed. Expected failures are values (STYLE.md): a reason carried in results,
 * declines and aborts. Each reason says whether it is "pre-flight" (the checkpoint never
 * really started) and whether CheckpointFailureManager counts it against the tolerable number.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointFailureReason,
 *      org.apache.flink.runtime.checkpoint.CheckpointFailureManager (reference 1.11)
 */

import { ExpectedError } from '../util/ExpectedError.ts';

/** Every reason, Flink's names (for validating a reason a person writes, such as a scenario's). */
export const CHECKPOINT_FAILURE_REASONS = [
  'PERIODIC_SCHEDULER_SHUTDOWN', 'TOO_MANY_CHECKPOINT_REQUESTS',
  'MINIMUM_TIME_BETWEEN_CHECKPOINTS', 'NOT_ALL_REQUIRED_TASKS_RUNNING', 'IO_EXCEPTION',
  'BLOCKING_OUTPUT_EXIST', 'CHECKPOINT_ASYNC_EXCEPTION', 'CHECKPOINT_DECLINED',
  'CHECKPOINT_EXPIRED', 'FINALIZE_CHECKPOINT_FAILURE', 'CHECKPOINT_SUBSUMED',
  'CHECKPOINT_COORDINATOR_SUSPEND', 'CHECKPOINT_COORDINATOR_SHUTDOWN',
  'CHANNEL_STATE_SHARED_STREAM_EXCEPTION', 'JOB_FAILOVER_REGION',
  'CHECKPOINT_DECLINED_TASK_NOT_READY', 'CHECKPOINT_DECLINED_TASK_CLOSING',
  'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER', 'CHECKPOINT_DECLINED_SUBSUMED',
  'CHECKPOINT_DECLINED_INPUT_END_OF_STREAM', 'TASK_FAILURE', 'TASK_CHECKPOINT_FAILURE',
  'UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE', 'TRIGGER_CHECKPOINT_FAILURE',
] as const;

export type CheckpointFailureReason = (typeof CHECKPOINT_FAILURE_REASONS)[number];

const PRE_FLIGHT: ReadonlySet<CheckpointFailureReason> = new Set<CheckpointFailureReason>([
  'PERIODIC_SCHEDULER_SHUTDOWN', 'TOO_MANY_CHECKPOINT_REQUESTS', 'MINIMUM_TIME_BETWEEN_CHECKPOINTS',
  'NOT_ALL_REQUIRED_TASKS_RUNNING', 'IO_EXCEPTION', 'BLOCKING_OUTPUT_EXIST',
]);

const COUNTED: ReadonlySet<CheckpointFailureReason> = new Set<CheckpointFailureReason>([
  'IO_EXCEPTION', 'CHECKPOINT_ASYNC_EXCEPTION', 'CHECKPOINT_DECLINED', 'CHECKPOINT_EXPIRED',
  'FINALIZE_CHECKPOINT_FAILURE',
]);

/** True for reasons that fail a checkpoint before it really started (reference 1.11 item 7). */
export function isPreFlight(reason: CheckpointFailureReason): boolean {
  return PRE_FLIGHT.has(reason);
}

/** True for the five reasons CheckpointFailureManager counts (reference 1.11 item 3). */
export function isCountedFailure(reason: CheckpointFailureReason): boolean {
  return COUNTED.has(reason);
}

/**
 * A failed checkpoint operation carrying its reason (Flink's CheckpointException). An expected
 * outcome (a decline, an abort, a trigger that cannot start), so it carries no stack trace.
 */
export class CheckpointException extends ExpectedError {
  override readonly name = 'CheckpointException';
  constructor(readonly reason: CheckpointFailureReason, message?: string) {
    super(message === undefined ? reason : `${reason}: ${message}`);
  }
}
