/**
 * Decides which queued trigger request runs next: at most one trigger in flight, at most
 * maxConcurrent pending checkpoints (only forced requests may exceed it), periodic requests
 * inside the min pause are dropped and the periodic timer re-based, and nothing triggers while
 * more checkpoints than maxConcurrent are still being cleaned up. The queue holds at most 1000
 * requests.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointRequestDecider (reference 1.3)
 * Invariants: the queue is sorted by {@link compareTriggerRequests} and holds at most
 * {@link MAX_QUEUED_REQUESTS}; no queued request's future is done.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { assert } from '../util/assert.ts';
import { CheckpointException } from './CheckpointFailureReason.ts';
import { compareTriggerRequests, type CheckpointTriggerRequest } from './CheckpointTriggerRequest.ts';

/** CheckpointRequestDecider's queue cap. */
export const MAX_QUEUED_REQUESTS = 1000;

/** What the decider reads from the coordinator. */
export interface CheckpointRequestDeciderServices {
  readonly maxConcurrent: number;
  readonly minPauseUs: number;
  numberOfPendingCheckpoints(): number;
  numberOfCleaningCheckpoints(): number;
  /** Re-bases the periodic timer to fire in `delayUs`. */
  rescheduleTrigger(delayUs: number): void;
}

export class CheckpointRequestDecider {
  private readonly queue: CheckpointTriggerRequest[] = [];

  constructor(private readonly env: EngineEnv, private readonly s: CheckpointRequestDeciderServices) {
    env.invariants.register('checkpoint-request-decider', () => this.checkInvariants());
  }

  /** Requests waiting. */
  get numQueuedRequests(): number {
    return this.queue.length;
  }

  /**
   * Queues `request` (or fails it with TOO_MANY_CHECKPOINT_REQUESTS when the queue is full of
   * user requests; evicting the lowest-priority entry otherwise), then picks one to run.
   * @param lastCompletionUs time of the latest completion, µs.
   */
  chooseRequestToExecute(request: CheckpointTriggerRequest, isTriggering: boolean,
    lastCompletionUs: number): CheckpointTriggerRequest | undefined {
    const last = this.queue[this.queue.length - 1];
    if (this.queue.length >= MAX_QUEUED_REQUESTS && last !== undefined && !last.isPeriodic) {
      request.future.completeExceptionally(new CheckpointException('TOO_MANY_CHECKPOINT_REQUESTS'));
    } else {
      this.insert(request);
      if (this.queue.length > MAX_QUEUED_REQUESTS) {
        this.queue.pop()?.future.completeExceptionally(new CheckpointException('TOO_MANY_CHECKPOINT_REQUESTS'));
      }
    }
    return this.chooseQueuedRequestToExecute(isTriggering, lastCompletionUs);
  }

  /** Picks a queued request to run, if the rules allow one now (see the file comment). */
  chooseQueuedRequestToExecute(isTriggering: boolean, lastCompletionUs: number):
    CheckpointTriggerRequest | undefined {
    const first = this.queue[0];
    if (isTriggering || first === undefined ||
      this.s.numberOfCleaningCheckpoints() > this.s.maxConcurrent) {
      return undefined;
    }
    if (this.s.numberOfPendingCheckpoints() >= this.s.maxConcurrent) {
      return first.isForce ? this.queue.shift() : undefined;
    }
    if (!first.isForce && first.isPeriodic) {
      const delayUs = lastCompletionUs + this.s.minPauseUs - this.env.clock.nowUs();
      if (delayUs > 0) {
        this.queue.shift();
        first.future.completeExceptionally(new CheckpointException('MINIMUM_TIME_BETWEEN_CHECKPOINTS'));
        this.s.rescheduleTrigger(delayUs);
        return undefined;
      }
    }
    return this.queue.shift();
  }

  /** Fails every queued request with `exception` (stop or shutdown of the coordinator). */
  abortAll(exception: CheckpointException): void {
    const all = this.queue.splice(0);
    for (const r of all) r.future.completeExceptionally(exception);
  }

  private insert(request: CheckpointTriggerRequest): void {
    let i = this.queue.length;
    while (i > 0 && compareTriggerRequests(this.queue[i - 1] as CheckpointTriggerRequest, request) > 0) i--;
    this.queue.splice(i, 0, request);
  }

  checkInvariants(): void {
    assert(this.queue.length <= MAX_QUEUED_REQUESTS, 'request queue over its cap');
    for (let i = 1; i < this.queue.length; i++) {
      assert(compareTriggerRequests(this.queue[i - 1] as CheckpointTriggerRequest,
        this.queue[i] as CheckpointTriggerRequest) < 0, 'request queue out of order');
    }
    for (const r of this.queue) assert(!r.future.isDone(), 'a queued request is already done');
  }
}
