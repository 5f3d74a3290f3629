/**
 * One request to trigger a checkpoint (periodic or manual) or, later, a savepoint, waiting in the
 * CheckpointRequestDecider's queue. Its future completes with the CompletedCheckpoint, or fails
 * with a CheckpointException.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator.CheckpointTriggerRequest
 */
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { CheckpointProperties } from './CheckpointProperties.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';

export class CheckpointTriggerRequest {
  readonly future = new CompletableFuture<CompletedCheckpoint>();

  constructor(
    readonly props: CheckpointProperties,
    readonly isPeriodic: boolean,
    /** Creation time, µs. */
    readonly timestampUs: number,
    /** Creation order; the final tie-break of the queue (Flink uses the identity hash). */
    readonly seq: number,
    /**
     * Who asked, when the caller names itself (the simulation's RunSpec action, `action[0]`): not
     * Flink's (its request carries no such field). It is recorded on the `checkpoint.triggered`
     * event of the id this request gets, so a harness can tell which savepoint it asked for
     * got which checkpoint id without guessing from the order of ids. Absent for the periodic
     * scheduler's requests.
     */
    readonly origin?: string,
  ) {}

  get isForce(): boolean {
    return this.props.forced;
  }

  get isSavepoint(): boolean {
    return this.props.isSavepoint;
  }
}

/**
 * The queue order, highest priority first: savepoints, forced, non-periodic, older, then
 * creation order. Negative when `a` comes first.
 */
export function compareTriggerRequests(a: CheckpointTriggerRequest, b: CheckpointTriggerRequest): number {
  if (a.isSavepoint !== b.isSavepoint) return a.isSavepoint ? -1 : 1;
  if (a.isForce !== b.isForce) return a.isForce ? -1 : 1;
  if (a.isPeriodic !== b.isPeriodic) return a.isPeriodic ? 1 : -1;
  if (a.timestampUs !== b.timestampUs) return a.timestampUs - b.timestampUs;
  return a.seq - b.seq;
}
