/**
 * The TaskExecutor's RPC gateway as the JobMaster and ResourceManager call it. Each method is
 * one RPC message of a kind that faults can target.
 *
 * @see org.apache.flink.runtime.taskexecutor.TaskExecutorGateway
 */
import type { ExecutionAttemptId, RpcAddress } from '../api/ids.ts';
import type { RpcService } from '../api/Rpc.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { CheckpointOptions } from '../checkpoint/CheckpointBarrier.ts';
import type { TaskDeploymentDescriptor } from '../taskexecutor/TaskDeploymentDescriptor.ts';

export interface TaskExecutorGateway {
  /** Deploys a task into an allocated slot; fails if the slot is not allocated to the job. */
  submitTask(tdd: TaskDeploymentDescriptor): CompletableFuture<void>;
  /** Cancels a task; it reports CANCELED through updateTaskExecutionState. */
  cancelTask(attemptId: ExecutionAttemptId): void;
  /**
   * The ResourceManager allocates slot `slotIndex` under `allocationId` to the job's JobMaster at
   * `jobMaster`; the TaskExecutor then offers it to the JobMaster. Answered once allocated (also
   * for a repeated request of the same allocation); fails if the slot holds another allocation.
   */
  requestSlot(slotIndex: number, allocationId: string, jobMaster: RpcAddress): CompletableFuture<void>;
  /** The JobMaster frees allocation `allocationId` of slot `slotIndex`, which it no longer needs. */
  freeSlot(slotIndex: number, allocationId: string): void;
  /** The JobMaster lost this TaskExecutor (heartbeat timeout): free the job's slots. */
  disconnectJobManager(jobMaster: RpcAddress, cause: string): void;
  /** The ResourceManager lost this TaskExecutor: register again. */
  disconnectResourceManager(cause: string): void;
  /** Heartbeat request from the JobMaster or ResourceManager; answered with a heartbeat. */
  requestHeartbeat(from: RpcAddress): void;
  /** An OperatorEvent from a coordinator; completes when the task accepted it. */
  sendOperatorEventToTask(attemptId: ExecutionAttemptId, operatorUid: string, event: unknown): CompletableFuture<void>;
  /**
   * Triggers checkpoint `checkpointId` on a task (sources, or tasks whose inputs finished).
   * Answered at once; fails with TASK_CHECKPOINT_FAILURE for an unknown task.
   */
  triggerCheckpoint(
    attemptId: ExecutionAttemptId, checkpointId: number, timestampUs: number, options: CheckpointOptions,
  ): CompletableFuture<void>;
  /** notifyCheckpointComplete, fire-and-forget (TaskExecutorGateway.confirmCheckpoint). */
  confirmCheckpoint(attemptId: ExecutionAttemptId, checkpointId: number, timestampUs: number, lastSubsumedId: number): void;
  /** notifyCheckpointAborted, fire-and-forget; carries the latest completed checkpoint id. */
  abortCheckpoint(attemptId: ExecutionAttemptId, checkpointId: number, latestCompletedId: number, timestampUs: number): void;
}

/** Client side of {@link TaskExecutorGateway} over RPC from endpoint `self`. */
export class TaskExecutorGatewayClient implements TaskExecutorGateway {
  constructor(
    private readonly rpc: RpcService,
    private readonly self: RpcAddress,
    private readonly target: RpcAddress,
    private readonly timeoutUs: number,
  ) {}

  submitTask(tdd: TaskDeploymentDescriptor): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'deployment', 'submitTask', [tdd], this.timeoutUs);
  }
  cancelTask(attemptId: ExecutionAttemptId): void {
    this.rpc.tell(this.self, this.target, 'control', 'cancelTask', [attemptId]);
  }
  requestSlot(slotIndex: number, allocationId: string, jobMaster: RpcAddress): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'registration', 'requestSlot', [slotIndex, allocationId, jobMaster], this.timeoutUs);
  }
  freeSlot(slotIndex: number, allocationId: string): void {
    this.rpc.tell(this.self, this.target, 'registration', 'freeSlot', [slotIndex, allocationId]);
  }
  disconnectJobManager(jobMaster: RpcAddress, cause: string): void {
    this.rpc.tell(this.self, this.target, 'control', 'disconnectJobManager', [jobMaster, cause]);
  }
  disconnectResourceManager(cause: string): void {
    this.rpc.tell(this.self, this.target, 'registration', 'disconnectResourceManager', [cause]);
  }
  requestHeartbeat(from: RpcAddress): void {
    this.rpc.tell(this.self, this.target, 'heartbeat', 'requestHeartbeat', [from]);
  }
  sendOperatorEventToTask(attemptId: ExecutionAttemptId, operatorUid: string, event: unknown): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'coordinatorEvent', 'sendOperatorEventToTask',
      [attemptId, operatorUid, event], this.timeoutUs);
  }
  triggerCheckpoint(
    attemptId: ExecutionAttemptId, checkpointId: number, timestampUs: number, options: CheckpointOptions,
  ): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'trigger', 'triggerCheckpoint',
      [attemptId, checkpointId, timestampUs, options], this.timeoutUs);
  }
  confirmCheckpoint(attemptId: ExecutionAttemptId, checkpointId: number, timestampUs: number, lastSubsumedId: number): void {
    this.rpc.tell(this.self, this.target, 'notifyComplete', 'confirmCheckpoint',
      [attemptId, checkpointId, timestampUs, lastSubsumedId]);
  }
  abortCheckpoint(attemptId: ExecutionAttemptId, checkpointId: number, latestCompletedId: number, timestampUs: number): void {
    this.rpc.tell(this.self, this.target, 'notifyAborted', 'abortCheckpoint',
      [attemptId, checkpointId, latestCompletedId, timestampUs]);
  }
}
