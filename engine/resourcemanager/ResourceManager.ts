/**
 * The ResourceManager: TaskExecutors register with their slots, the JobMaster declares how many
 * slots it needs, and the ResourceManager allocates free slots to it (the TaskExecutor then
 * offers them to the JobMaster). Lost TaskExecutors are found by heartbeats; a restarted one
 * registers again and its slots become free.
 *
 * @see org.apache.flink.runtime.resourcemanager.ResourceManager,
 *      org.apache.flink.runtime.resourcemanager.slotmanager.FineGrainedSlotManager
 * Slots are allocated under AllocationIDs: requestSlot is an ask, and until the TaskExecutor
 * answers the allocation is pending, so a slot report that predates it cannot free it; a free
 * notification or a failed request only frees the allocation it names.
 *
 * The host is a TaskExecutor's ResourceID: when a restarted TaskManager's new incarnation
 * registers, it replaces the old registration, and a late registration from a replaced
 * incarnation is refused (in Flink the ResourceManager could not connect to the dead gateway).
 *
 * Invariants: a slot is allocated to at most one JobMaster; allocations only go to registered,
 * live TaskExecutors; requirements are not negative.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { HostId, RpcAddress } from '../api/ids.ts';
import type { RpcCall } from '../api/Rpc.ts';
import { HeartbeatManager } from '../cluster/HeartbeatManager.ts';
import type { ClusterConfiguration } from '../cluster/ClusterConfiguration.ts';
import { RESOURCE_MANAGER_ADDRESS } from '../rpc/addresses.ts';
import { TaskExecutorGatewayClient } from '../rpc/TaskExecutorGateway.ts';
import type { SlotReport } from '../rpc/ResourceManagerGateway.ts';
import { SlotOccupiedException } from '../taskexecutor/TaskSlotTable.ts';
import { assert } from '../util/assert.ts';

interface Allocation {
  readonly jobMaster: RpcAddress;
  readonly allocationId: string;
  /** requestSlot is not answered yet: the TaskExecutor may not know the allocation. */
  pending: boolean;
}

interface Registration {
  readonly address: RpcAddress;
  readonly host: HostId;
  /** Per slot, its allocation, or undefined when free. */
  readonly slots: (Allocation | undefined)[];
  readonly gateway: TaskExecutorGatewayClient;
}

export class ResourceManager {
  private readonly executor: Executor;
  /** Registrations by TaskExecutor address. */
  private readonly registrations = new Map<RpcAddress, Registration>();
  /**
   * The registered incarnation of each host (its ResourceID), kept after the registration is
   * dropped so that a late registration of an older incarnation is still refused.
   */
  private readonly byHost = new Map<HostId, { readonly address: RpcAddress; readonly bootUs: number }>();
  private readonly requirements = new Map<RpcAddress, number>();
  private readonly heartbeats: HeartbeatManager;
  private allocationCounter = 0;

  constructor(private readonly env: EngineEnv, private readonly config: ClusterConfiguration) {
    this.executor = env.executors.get('resourcemanager/main');
    this.heartbeats = new HeartbeatManager({
      clock: env.clock,
      executor: this.executor,
      intervalUs: config.heartbeatIntervalUs,
      timeoutUs: config.heartbeatTimeoutUs,
      requestHeartbeat: (t) => this.registrations.get(t)?.gateway.requestHeartbeat(RESOURCE_MANAGER_ADDRESS),
      onTimeout: (t) => this.taskExecutorLost(t, 'heartbeat timeout'),
    });
    env.invariants.register('ResourceManager', () => this.checkInvariants());
  }

  /** Starts the RPC endpoint and the heartbeats. */
  start(): void {
    this.env.rpc.startEndpoint(RESOURCE_MANAGER_ADDRESS, this.executor, (call) => this.handle(call));
    this.heartbeats.start();
  }

  /** Free slots, for tests and statistics. */
  freeSlotCount(): number {
    let n = 0;
    for (const r of this.registrations.values()) n += r.slots.filter((s) => s === undefined).length;
    return n;
  }

  checkInvariants(): void {
    for (const [jm, count] of this.requirements) assert(count >= 0, `negative requirement of ${jm}`);
    for (const r of this.registrations.values()) {
      assert(this.byHost.get(r.host)?.address === r.address, () => `two registrations of host ${r.host}`);
    }
  }

  private handle(call: RpcCall): unknown {
    const a = call.args;
    switch (call.method) {
      case 'registerTaskExecutor':
        this.registerTaskExecutor(a[0] as RpcAddress, a[1] as HostId, a[2] as number, a[3] as SlotReport);
        return undefined;
      case 'declareRequiredSlots':
        this.requirements.set(a[0] as RpcAddress, a[1] as number);
        this.allocate();
        return undefined;
      case 'heartbeatFromTaskManager':
        if (!this.registrations.has(a[0] as RpcAddress)) return undefined;
        this.heartbeats.receiveHeartbeat(a[0] as RpcAddress);
        this.reconcile(a[0] as RpcAddress, a[1] as SlotReport);
        return undefined;
      case 'notifySlotFree':
        this.freeAllocation(a[0] as RpcAddress, a[1] as number, a[2] as string);
        return undefined;
      default:
        throw new Error(`ResourceManager has no RPC method ${call.method}`);
    }
  }

  /**
   * ResourceManager.registerTaskExecutor. `bootUs` is when the TaskExecutor's incarnation
   * started: of two incarnations of one host, the later one replaces the earlier, and a late
   * registration of an earlier one is refused. (Flink's ResourceManager first connects to the
   * registering gateway, which fails for a dead process; the boot time decides the same here.)
   * @throws Error (answered to the caller) for an incarnation older than the registered one.
   */
  private registerTaskExecutor(te: RpcAddress, host: HostId, bootUs: number, slotReport: SlotReport): void {
    const previous = this.byHost.get(host);
    if (previous !== undefined && previous.address !== te) {
      if (bootUs < previous.bootUs) {
        this.env.tracer.event('rm.registrationRefused', { taskExecutor: te, current: previous.address });
        throw new Error(`TaskExecutor ${te} was replaced by ${previous.address}, a newer incarnation of ${host}`);
      }
      // A new incarnation of the host: the old one is gone for good.
      this.dropRegistration(previous.address);
    }
    this.env.tracer.event('rm.taskExecutorRegistered', { taskExecutor: te, slots: slotReport.length });
    const gateway = new TaskExecutorGatewayClient(this.env.rpc, RESOURCE_MANAGER_ADDRESS, te, this.config.rpcTimeoutUs);
    // The slot report says which slots are still allocated (a TaskExecutor that was only cut off
    // keeps its allocations), so nothing is handed out twice.
    const slots = slotReport.map((x) => (x === undefined ? undefined : { ...x, pending: false }));
    this.registrations.set(te, { address: te, host, slots, gateway });
    this.byHost.set(host, { address: te, bootUs });
    this.heartbeats.monitor(te);
    this.allocate();
  }

  private taskExecutorLost(te: RpcAddress, reason: string): void {
    this.env.tracer.event('rm.taskExecutorLost', { taskExecutor: te, reason });
    // If it is alive after all (paused, cut off), it registers again (ResourceManager
    // closeTaskManagerConnection -> TaskExecutor reconnects).
    this.registrations.get(te)?.gateway.disconnectResourceManager(reason);
    this.dropRegistration(te);
    // Its slots were part of what the JobMasters were given: hand out replacements.
    this.allocate();
  }

  private dropRegistration(te: RpcAddress): void {
    const r = this.registrations.get(te);
    if (r === undefined) return;
    this.registrations.delete(te);
    this.heartbeats.unmonitor(te);
  }

  /** Frees slot `i` of `te` if it still holds `allocationId`, and hands out slots again. */
  private freeAllocation(te: RpcAddress, i: number, allocationId: string): void {
    const r = this.registrations.get(te);
    if (r?.slots[i]?.allocationId !== allocationId) return;
    r.slots[i] = undefined;
    this.allocate();
  }

  /**
   * Reconciles the TaskExecutor's slot report with the ResourceManager's view: the report is
   * the truth for every slot without a pending allocation (a free slot the RM thought allocated
   * means a notifySlotFree was lost; an allocation the RM did not know is adopted). A pending
   * allocation is left alone: the report may predate the request, whose answer settles it.
   */
  private reconcile(te: RpcAddress, report: SlotReport): void {
    const r = this.registrations.get(te);
    if (r === undefined) return;
    let freed = false;
    report.forEach((reported, i) => {
      const mine = r.slots[i];
      if (mine?.pending === true) return;
      if (reported === undefined) {
        if (mine !== undefined) {
          r.slots[i] = undefined;
          freed = true;
        }
      } else if (mine?.allocationId !== reported.allocationId) {
        r.slots[i] = { ...reported, pending: false };
      }
    });
    if (freed) this.allocate();
  }

  /** Hands free slots to JobMasters whose requirement exceeds their allocation. */
  private allocate(): void {
    for (const [jm, required] of this.requirements) {
      let allocated = 0;
      for (const r of this.registrations.values()) allocated += r.slots.filter((s) => s?.jobMaster === jm).length;
      for (const [te, r] of this.registrations) {
        for (let i = 0; i < r.slots.length && allocated < required; i++) {
          if (r.slots[i] !== undefined) continue;
          const allocation: Allocation = { jobMaster: jm, allocationId: `alloc-${++this.allocationCounter}`, pending: true };
          r.slots[i] = allocation;
          allocated++;
          this.env.tracer.event('rm.slotAllocated', { taskExecutor: te, slot: i, allocation: allocation.allocationId });
          r.gateway.requestSlot(i, allocation.allocationId, jm).whenComplete((_v, err) => {
            if (r.slots[i] !== allocation) return; // settled otherwise meanwhile
            if (err === undefined) {
              allocation.pending = false;
            } else {
              // Not allocated there. An occupied slot is adopted with the allocation it holds;
              // otherwise (no answer) it is free as far as we know, and the next slot report
              // corrects that if the request did get through.
              this.env.tracer.event('rm.slotRequestFailed', { taskExecutor: te, slot: i, allocation: allocation.allocationId });
              const occupiedBy = err instanceof SlotOccupiedException ? err.occupiedBy : undefined;
              r.slots[i] = occupiedBy === undefined ? undefined : { ...occupiedBy, pending: false };
              this.allocate();
            }
          });
        }
      }
    }
  }
}
