/**
 * The JobMaster's RPC gateway as TaskExecutors call it.
 *
 * @see org.apache.flink.runtime.jobmaster.JobMasterGateway
 */
import type { ExecutionAttemptId, HostId, RpcAddress } from '../api/ids.ts';
import type { RpcService } from '../api/Rpc.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { AcknowledgeCheckpoint, DeclineCheckpoint } from '../checkpoint/TaskStateSnapshot.ts';
import type { TaskExecutionState } from '../taskexecutor/ExecutionState.ts';

/** A slot a TaskExecutor offers to the JobMaster. */
export interface SlotOffer {
  readonly taskExecutor: RpcAddress;
  readonly host: HostId;
  readonly slotIndex: number;
  /** The AllocationID the ResourceManager gave the slot. */
  readonly allocationId: string;
}

export interface JobMasterGateway {
  /** A task changed state; answered when the JobMaster processed it. */
  updateTaskExecutionState(state: TaskExecutionState): CompletableFuture<void>;
  /**
   * A TaskExecutor offers slots allocated to this job. Answer: the allocation ids accepted (an
   * allocation accepted before is accepted again).
   */
  offerSlots(offers: readonly SlotOffer[]): CompletableFuture<string[]>;
  /**
   * The answer to the JobMaster's heartbeat request, with the allocation ids of the slots the
   * TaskExecutor holds for this job (AllocatedSlotReport).
   */
  heartbeatFromTaskManager(taskExecutor: RpcAddress, allocatedSlots: readonly string[]): void;
  /** An OperatorEvent from a task to its operator's coordinator. */
  /** An OperatorEvent from a task to its operator's coordinator; answered once handled. */
  sendOperatorEventToCoordinator(attemptId: ExecutionAttemptId, operatorUid: string, event: unknown): CompletableFuture<void>;
  /** A task acknowledges a checkpoint with its state (CheckpointResponder.acknowledgeCheckpoint). */
  acknowledgeCheckpoint(ack: AcknowledgeCheckpoint): void;
  /** A task declines a checkpoint (CheckpointResponder.declineCheckpoint). */
  declineCheckpoint(decline: DeclineCheckpoint): void;
}

/** Client side of {@link JobMasterGateway} over RPC from endpoint `self`. */
export class JobMasterGatewayClient implements JobMasterGateway {
  constructor(
    private readonly rpc: RpcService,
    private readonly self: RpcAddress,
    private readonly target: RpcAddress,
    private readonly timeoutUs: number,
  ) {}

  updateTaskExecutionState(state: TaskExecutionState): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'taskState', 'updateTaskExecutionState', [state], this.timeoutUs);
  }
  offerSlots(offers: readonly SlotOffer[]): CompletableFuture<string[]> {
    return this.rpc.ask(this.self, this.target, 'registration', 'offerSlots', [offers], this.timeoutUs);
  }
  heartbeatFromTaskManager(taskExecutor: RpcAddress, allocatedSlots: readonly string[]): void {
    this.rpc.tell(this.self, this.target, 'heartbeat', 'heartbeatFromTaskManager', [taskExecutor, allocatedSlots]);
  }
  sendOperatorEventToCoordinator(attemptId: ExecutionAttemptId, operatorUid: string, event: unknown): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'coordinatorEvent', 'sendOperatorEventToCoordinator',
      [attemptId, operatorUid, event], this.timeoutUs);
  }
  acknowledgeCheckpoint(ack: AcknowledgeCheckpoint): void {
    this.rpc.tell(this.self, this.target, 'ack', 'acknowledgeCheckpoint', [ack]);
  }
  declineCheckpoint(decline: DeclineCheckpoint): void {
    this.rpc.tell(this.self, this.target, 'decline', 'declineCheckpoint', [decline]);
  }
}
