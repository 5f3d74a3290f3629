/**
 * A TaskExecutorGateway for coordinator-holder tests that takes operator events only: each
 * `sendOperatorEventToTask` is recorded with a future the test completes (the task accepted it)
 * or fails (the task is gone), so a test decides when and how each send ends. Every other RPC
 * is not part of such a test and throws.
 *
 * Invariants: sends are recorded in the order they were made.
 */
import type { ExecutionAttemptId } from '../../api/ids.ts';
import type { TaskExecutorGateway } from '../../rpc/TaskExecutorGateway.ts';
import { AssertionError } from '../../util/assert.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';

/** One operator event sent to a task. */
export interface SentOperatorEvent {
  readonly attemptId: ExecutionAttemptId;
  readonly operatorUid: string;
  readonly event: unknown;
  /** Complete it for an accepted event, fail it for a lost one. */
  readonly answer: CompletableFuture<void>;
}

export class TestingTaskExecutorGateway implements TaskExecutorGateway {
  readonly sent: SentOperatorEvent[] = [];

  /** The events sent so far, in order. */
  events(): unknown[] {
    return this.sent.map((s) => s.event);
  }

  sendOperatorEventToTask(attemptId: ExecutionAttemptId, operatorUid: string, event: unknown): CompletableFuture<void> {
    const answer = new CompletableFuture<void>();
    this.sent.push({ attemptId, operatorUid, event, answer });
    return answer;
  }

  submitTask(): CompletableFuture<void> {
    return unavailable('submitTask');
  }
  cancelTask(): void {
    unavailable('cancelTask');
  }
  requestSlot(): CompletableFuture<void> {
    return unavailable('requestSlot');
  }
  freeSlot(): void {
    unavailable('freeSlot');
  }
  disconnectJobManager(): void {
    unavailable('disconnectJobManager');
  }
  disconnectResourceManager(): void {
    unavailable('disconnectResourceManager');
  }
  requestHeartbeat(): void {
    unavailable('requestHeartbeat');
  }
  triggerCheckpoint(): CompletableFuture<void> {
    return unavailable('triggerCheckpoint');
  }
  confirmCheckpoint(): void {
    unavailable('confirmCheckpoint');
  }
  abortCheckpoint(): void {
    unavailable('abortCheckpoint');
  }
}

function unavailable(method: string): never {
  throw new AssertionError(`TestingTaskExecutorGateway takes operator events only, not ${method}`);
}
