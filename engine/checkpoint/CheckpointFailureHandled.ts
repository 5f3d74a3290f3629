/**
 * The trace evidence that a CheckpointCoordinator handler has learned of a failure of one
 * checkpoint: a `checkpoint.failureHandled` event, recorded inside the handler's section under
 * the coordinator lock, before it acts on the failure. The prompt-abort oracle
 * (properties/oracles/promptAbort.ts) reads it: once a handler has processed a failure of a
 * pending checkpoint, Flink aborts that checkpoint in the same section, with a reason the failure
 * decides. A decline's handler has its own event (`checkpoint.declined`); a task failure is the
 * scheduler's `scheduler.taskFailed`.
 *
 * It is caused by the event that made the failure when the error names one (ExpectedError.event:
 * a timeout, the end of a task that refused the trigger), else by the handler's work.
 *
 * The event says what the handler was given, not what the engine made of it: `failure` is the
 * kind of error (`IOException` when a storage error is anywhere in its cause chain, else
 * `CheckpointException` when one is, else `Exception`) and `failureReason` the reason of the
 * first CheckpointException in the chain, so the oracle maps it to Flink's reason on its own.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (triggerCheckpointRequest's
 *      `exceptionally`, onTriggerFailure, completePendingCheckpoint / finalizeCheckpoint /
 *      addCompletedCheckpointToStoreAndSubsumeOldest)
 */
import { StorageError } from '../api/ObjectStore.ts';
import { NO_EVENT, type EventRef, type Tracer } from '../api/Tracer.ts';
import { ExpectedError } from '../util/ExpectedError.ts';
import { CheckpointException } from './CheckpointFailureReason.ts';

/** The handlers that record the event, by Flink's method names. */
export type FailureHandler = 'triggerCheckpointRequest' | 'onTriggerFailure' | 'completePendingCheckpoint';

/**
 * Records `checkpoint.failureHandled` for checkpoint `checkpointId`, whose failure `error` the
 * handler `handler` is processing now (call it inside the handler's lock section).
 */
export function recordFailureHandled(tracer: Tracer, checkpointId: number, handler: FailureHandler,
  error: unknown): void {
  let io = false;
  let reason: string | undefined;
  let madeBy: EventRef | undefined;
  // The cause chain, as getCheckpointException walks it (bounded: a chain can be cyclic).
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 32; depth++) {
    if (e instanceof StorageError) io = true;
    if (e instanceof CheckpointException && reason === undefined) reason = e.reason;
    if (e instanceof ExpectedError && e.event !== NO_EVENT && madeBy === undefined) madeBy = e.event;
    e = e instanceof Error ? e.cause : undefined;
  }
  const failure = io ? 'IOException' : reason !== undefined ? 'CheckpointException' : 'Exception';
  // Caused by the event that made the failure when it names one: the handler may run once other
  // work has run (the trigger's answers are all awaited), and that work did not cause it.
  tracer.event('checkpoint.failureHandled', {
    checkpointId, handler, failure, ...(reason === undefined ? {} : { failureReason: reason }),
  }, madeBy);
}
