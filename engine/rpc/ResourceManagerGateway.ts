/**
 * The ResourceManager's RPC gateway.
 *
 * @see org.apache.flink.runtime.resourcemanager.ResourceManagerGateway
 */
import type { HostId, RpcAddress } from '../api/ids.ts';
import type { RpcService } from '../api/Rpc.ts';
import type { CompletableFuture } from '../util/CompletableFuture.ts';

export interface ResourceManagerGateway {
  /**
   * A TaskExecutor registers with its slot report (per slot, the JobMaster it is allocated to);
   * a re-registration replaces the old one.
   */
  registerTaskExecutor(taskExecutor: RpcAddress, host: HostId, slots: readonly (RpcAddress | undefined)[]): CompletableFuture<void>;
  /** The JobMaster asks for `count` more slots in total (a declarative requirement). */
  declareRequiredSlots(jobMaster: RpcAddress, count: number): void;
  /**
   * The answer to the ResourceManager's heartbeat request, with the TaskExecutor's slot report
   * (per slot, the JobMaster it is allocated to), which the ResourceManager reconciles with its
   * own view (TaskExecutorHeartbeatPayload): a lost notifySlotFree cannot strand a slot.
   */
  heartbeatFromTaskManager(taskExecutor: RpcAddress, slotReport: readonly (RpcAddress | undefined)[]): void;
  /** A TaskExecutor reports a slot it freed. */
  notifySlotFree(taskExecutor: RpcAddress, slotIndex: number): void;
}

/** Client side of {@link ResourceManagerGateway}. */
export class ResourceManagerGatewayClient implements ResourceManagerGateway {
  constructor(
    private readonly rpc: RpcService,
    private readonly self: RpcAddress,
    private readonly target: RpcAddress,
    private readonly timeoutUs: number,
  ) {}

  registerTaskExecutor(taskExecutor: RpcAddress, host: HostId, slots: readonly (RpcAddress | undefined)[]): CompletableFuture<void> {
    return this.rpc.ask(this.self, this.target, 'registration', 'registerTaskExecutor',
      [taskExecutor, host, [...slots]], this.timeoutUs);
  }
  declareRequiredSlots(jobMaster: RpcAddress, count: number): void {
    this.rpc.tell(this.self, this.target, 'registration', 'declareRequiredSlots', [jobMaster, count]);
  }
  heartbeatFromTaskManager(taskExecutor: RpcAddress, slotReport: readonly (RpcAddress | undefined)[]): void {
    this.rpc.tell(this.self, this.target, 'heartbeat', 'heartbeatFromTaskManager', [taskExecutor, [...slotReport]]);
  }
  notifySlotFree(taskExecutor: RpcAddress, slotIndex: number): void {
    this.rpc.tell(this.self, this.target, 'registration', 'notifySlotFree', [taskExecutor, slotIndex]);
  }
}
