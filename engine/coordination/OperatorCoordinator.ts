/**
 * OperatorCoordinators run on the JobMaster's main thread beside the operators they coordinate
 * (the SourceCoordinator with its SplitEnumerator is the one this project needs). Events travel
 * as RPCs: coordinator to task through the TaskExecutor, task to coordinator through the
 * JobMaster.
 *
 * @see org.apache.flink.runtime.operators.coordination.OperatorCoordinator
 */
import type { CompletableFuture } from '../util/CompletableFuture.ts';

/** Sends events to one subtask attempt (OperatorCoordinator.SubtaskGateway). */
export interface SubtaskGateway {
  readonly subtask: number;
  readonly attemptNumber: number;
  /** Completes when the task acknowledged the event; fails if the send failed. */
  sendEvent(event: unknown): CompletableFuture<void>;
}

/** The coordinator contract; every method runs on the JobMaster main thread. */
export interface OperatorCoordinator {
  start(): void;
  close(): void;
  handleEventFromOperator(subtask: number, attemptNumber: number, event: unknown): void;
  /** Snapshot the coordinator's state for `checkpointId` into `result`. */
  checkpointCoordinator(checkpointId: number, result: CompletableFuture<unknown>): void;
  notifyCheckpointComplete(checkpointId: number): void;
  notifyCheckpointAborted(checkpointId: number): void;
  /** Global failover: go back to `state` of checkpoint `checkpointId` (undefined: initial state). */
  resetToCheckpoint(checkpointId: number, state: unknown): void;
  /** Regional failover of `subtask`, restored to `checkpointId` (-1: no checkpoint). */
  subtaskReset(subtask: number, checkpointId: number): void;
  executionAttemptFailed(subtask: number, attemptNumber: number, reason: unknown): void;
  executionAttemptReady(subtask: number, attemptNumber: number, gateway: SubtaskGateway): void;
}
