/**
 * Wraps an OperatorCoordinator so that a global reset replaces it: on `resetToCheckpoint` the
 * current coordinator is closed and a new one, made by the provider, is reset to the checkpoint
 * and started if the old one had been. Every other call goes to the current coordinator.
 *
 * What Flink does asynchronously collapses to one step here without changing any order the rest
 * of the job can see. Flink closes the old coordinator on a closing thread (ComponentClosingUtils),
 * whose SourceCoordinatorContext shuts the coordinator thread down with shutdownNow: queued work
 * is dropped, the task running then finishes first (it may ignore the interrupt), and only after
 * that is the new coordinator created, reset, started and handed the calls deferred meanwhile, in
 * order. Here the new coordinator shares the old one's coordinator thread: the old one's queued
 * work is dropped when its turn comes (it is closed), and the new one's work queues behind
 * whatever that thread is busy with, in the order the calls came. Flink's closing timeout (60 s,
 * which fails the job if the old coordinator will not close) is not modelled.
 *
 * @see org.apache.flink.runtime.operators.coordination.RecreateOnResetOperatorCoordinator
 * Invariants: exactly one current coordinator; a replaced coordinator is closed; after close no
 * coordinator is created any more.
 */
import { assert } from '../util/assert.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorCoordinator, SubtaskGateway } from './OperatorCoordinator.ts';

/** Makes a fresh, unstarted coordinator (RecreateOnResetOperatorCoordinator.Provider#getCoordinator). */
export type CoordinatorProvider = () => OperatorCoordinator;

/** The wrapper; see the file comment. */
export class RecreateOnResetOperatorCoordinator implements OperatorCoordinator {
  private current: OperatorCoordinator;
  private started = false;
  private closed = false;

  constructor(private readonly provider: CoordinatorProvider) {
    this.current = provider();
  }

  /** The coordinator calls go to now (tests, reports). */
  get internalCoordinator(): OperatorCoordinator {
    return this.current;
  }

  /** @throws AssertionError when started twice ("coordinator already started"). */
  start(): void {
    assert(!this.started, 'coordinator already started');
    this.started = true;
    this.current.start();
  }

  /** Closes the current coordinator; a later reset creates nothing. */
  close(): void {
    this.closed = true;
    this.current.close();
  }

  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void {
    this.current.handleEventFromOperator(subtask, attemptNumber, event);
  }

  checkpointCoordinator(checkpointId: number, result: CompletableFuture<unknown>): void {
    this.current.checkpointCoordinator(checkpointId, result);
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.current.notifyCheckpointComplete(checkpointId);
  }

  notifyCheckpointAborted(checkpointId: number): void {
    this.current.notifyCheckpointAborted(checkpointId);
  }

  /**
   * Closes the current coordinator (its queued work is dropped) and replaces it with a new one
   * reset to `state` of `checkpointId` (undefined: the initial state), started if the old one had
   * been started. After close, only the old one is closed (Flink creates none once closed).
   */
  resetToCheckpoint(checkpointId: number, state: unknown): void {
    this.current.close();
    if (this.closed) return;
    this.current = this.provider();
    this.current.resetToCheckpoint(checkpointId, state);
    if (this.started) this.current.start();
  }

  subtaskReset(subtask: number, checkpointId: number): void {
    this.current.subtaskReset(subtask, checkpointId);
  }

  executionAttemptFailed(subtask: number, attemptNumber: number, reason: unknown): void {
    this.current.executionAttemptFailed(subtask, attemptNumber, reason);
  }

  executionAttemptReady(subtask: number, attemptNumber: number, gateway: SubtaskGateway): void {
    this.current.executionAttemptReady(subtask, attemptNumber, gateway);
  }
}
