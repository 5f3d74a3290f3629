/**
 * A SubtaskGateway for coordinator tests: records every event sent; each send's future
 * completes at once, or fails when the test said so with `failNextSends`.
 */
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import type { SubtaskGateway } from '../OperatorCoordinator.ts';

/** The recording gateway; see the file comment. */
export class TestingSubtaskGateway implements SubtaskGateway {
  readonly sent: unknown[] = [];
  private failures = 0;

  constructor(readonly subtask: number, readonly attemptNumber: number) {}

  /** The next `n` sends fail. */
  failNextSends(n: number): void {
    this.failures = n;
  }

  sendEvent(event: unknown): CompletableFuture<void> {
    this.sent.push(event);
    if (this.failures > 0) {
      this.failures--;
      return CompletableFuture.failed(new Error('send failed'));
    }
    return CompletableFuture.completed<void>(undefined);
  }
}
