/**
 * The ResourceManager's RPC gateway.
 *
 * @see org.apache.flink.runtime.resourcemanager.ResourceManagerGateway
 */
import type { HostId, RpcAddress } from '../api/ids.ts';
import type { RpcService } from '../api/Rpc.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { SlotAllocation } from '../taskexecutor/TaskSlotTable.ts';

/** A slot report: per slot, its allocation or undefined when free (SlotReport). */
export type SlotReport = readonly (SlotAllocation | undefined)[];

export interface ResourceManagerGateway {
  /**
   * A TaskExecutor registers with its slot report. The host is its ResourceID and `bootUs` the
   * virtual time its incarnation started: a registration of a newer incarnation of the host
   * replaces the old one; one of an older incarnation fails. Answered when registered.
   */
  registerTaskExecutor(taskExecutor: RpcAddress, host: HostId, bootUs: number, slots: SlotReport): CompletableFuture<void>;
  /**
   * The JobMaster declares that it needs `count` slots in total (a declarative requirement, the
   * latest replacing earlier ones); answered once recorded.
   */
  declareRequiredSlots(jobMaster: RpcAddress, count: number): CompletableFuture<void>;
  /**
   * The answer to the ResourceManager's heartbeat request, with the TaskExecutor's slot report
   * (TaskExecutorHeartbeatPayload), which the ResourceManager reconciles with its own view: a
   * lost notifySlotFree cannot strand a slot.
   */
  heartbeatFromTaskManager(taskExecutor: RpcAddress, slotReport: SlotReport): void;
  /** A TaskExecutor reports that it freed allocation `allocationId` of slot `slotIndex`. */
  notifySlotFree(taskExecutor: RpcAddress, slotIndex: number, allocationId: string): void;
}

/** Client side of {@link ResourceManagerGateway}. */
export class ResourceManagerGatewayClient implements ResourceManagerGateway {
  constructor(
    private readonly rpc: RpcService,
    private readonly self: RpcAddress,
    private readonly target: RpcAddress,
    private readonly timeoutUs: number,
  ) {}

  registerTaskExecutor(taskExecutor: RpcAddress, host: HostId, bootUs: number, slots: SlotReport): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'registration', 'registerTaskExecutor',
      [taskExecutor, host, bootUs, [...slots]], this.timeoutUs);
  }
  declareRequiredSlots(jobMaster: RpcAddress, count: number): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'registration', 'declareRequiredSlots', [jobMaster, count], this.timeoutUs);
  }
  heartbeatFromTaskManager(taskExecutor: RpcAddress, slotReport: SlotReport): void {
    this.rpc.tell(this.self, this.target, 'heartbeat', 'heartbeatFromTaskManager', [taskExecutor, [...slotReport]]);
  }
  notifySlotFree(taskExecutor: RpcAddress, slotIndex: number, allocationId: string): void {
    this.rpc.tell(this.self, this.target, 'registration', 'notifySlotFree', [taskExecutor, slotIndex, allocationId]);
  }
}
