/**
 * The ResourceManager: TaskExecutors register with their slots, the JobMaster declares how many
 * slots it needs, and the ResourceManager allocates free slots to it (the TaskExecutor then
 * offers them to the JobMaster). Lost TaskExecutors are found by heartbeats; a restarted one
 * registers again and its slots become free.
 *
 * @see org.apache.flink.runtime.resourcemanager.ResourceManager,
 *      org.apache.flink.runtime.resourcemanager.slotmanager.FineGrainedSlotManager
 * Invariants: a slot is allocated to at most one JobMaster; allocations only go to registered,
 * live TaskExecutors.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { HostId, RpcAddress } from '../api/ids.ts';
import type { RpcCall } from '../api/Rpc.ts';
import { HeartbeatManager } from '../cluster/HeartbeatManager.ts';
import type { ClusterConfiguration } from '../cluster/ClusterConfiguration.ts';
import { RESOURCE_MANAGER_ADDRESS } from '../rpc/addresses.ts';
import { TaskExecutorGatewayClient } from '../rpc/TaskExecutorGateway.ts';
import { assert } from '../util/assert.ts';

interface Registration {
  readonly host: HostId;
  /** Per slot: the JobMaster it is allocated to, or undefined when free. */
  readonly slots: (RpcAddress | undefined)[];
  readonly gateway: TaskExecutorGatewayClient;
}

export class ResourceManager {
  private readonly executor: Executor;
  private readonly registrations = new Map<RpcAddress, Registration>();
  private readonly requirements = new Map<RpcAddress, number>();
  private readonly heartbeats: HeartbeatManager;
  /** Slots requested since the last heartbeat (the TaskExecutor's report may predate them). */
  private readonly inFlight = new Set<string>();

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
  }

  private handle(call: RpcCall): unknown {
    const a = call.args;
    switch (call.method) {
      case 'registerTaskExecutor':
        return this.registerTaskExecutor(a[0] as RpcAddress, a[1] as HostId, a[2] as (RpcAddress | undefined)[]);
      case 'declareRequiredSlots':
        this.requirements.set(a[0] as RpcAddress, a[1] as number);
        this.allocate();
        return undefined;
      case 'heartbeatFromTaskManager':
        this.heartbeats.receiveHeartbeat(a[0] as RpcAddress);
        this.reconcile(a[0] as RpcAddress, a[1] as (RpcAddress | undefined)[] | undefined);
        return undefined;
      case 'notifySlotFree': {
        const r = this.registrations.get(a[0] as RpcAddress);
        if (r !== undefined) r.slots[a[1] as number] = undefined;
        this.allocate();
        return undefined;
      }
      default:
        throw new Error(`ResourceManager has no RPC method ${call.method}`);
    }
  }

  private registerTaskExecutor(te: RpcAddress, host: HostId, slotReport: readonly (RpcAddress | undefined)[]): void {
    this.env.tracer.event('rm.taskExecutorRegistered', { taskExecutor: te, slots: slotReport.length });
    const gateway = new TaskExecutorGatewayClient(this.env.rpc, RESOURCE_MANAGER_ADDRESS, te, this.config.rpcTimeoutUs);
    // The slot report says which slots are still allocated (a TaskExecutor that was only cut off
    // keeps its allocations), so nothing is handed out twice.
    this.registrations.set(te, { host, slots: [...slotReport], gateway });
    this.heartbeats.monitor(te);
    this.allocate();
  }

  private taskExecutorLost(te: RpcAddress, reason: string): void {
    this.env.tracer.event('rm.taskExecutorLost', { taskExecutor: te, reason });
    // If it is alive after all (paused, cut off), it registers again (ResourceManager
    // closeTaskManagerConnection -> TaskExecutor reconnects).
    this.registrations.get(te)?.gateway.disconnectResourceManager(reason);
    this.registrations.delete(te);
    this.heartbeats.unmonitor(te);
    // Its slots were part of what the JobMasters were given: hand out replacements.
    this.allocate();
  }

  /**
   * Takes the TaskExecutor's slot report as the truth for slots it reports free (a free slot the
   * RM thought allocated means a notifySlotFree was lost) and hands them out again.
   */
  private reconcile(te: RpcAddress, report: readonly (RpcAddress | undefined)[] | undefined): void {
    const r = this.registrations.get(te);
    if (r === undefined || report === undefined) return;
    let freed = false;
    report.forEach((jm, i) => {
      if (jm === undefined && r.slots[i] !== undefined && !this.inFlight.has(`${te}/${i}`)) {
        r.slots[i] = undefined;
        freed = true;
      }
    });
    for (const k of [...this.inFlight]) if (k.startsWith(`${te}/`)) this.inFlight.delete(k);
    if (freed) this.allocate();
  }

  /** Hands free slots to JobMasters whose requirement exceeds their allocation. */
  private allocate(): void {
    for (const [jm, required] of this.requirements) {
      let allocated = 0;
      for (const r of this.registrations.values()) allocated += r.slots.filter((s) => s === jm).length;
      for (const [te, r] of this.registrations) {
        for (let i = 0; i < r.slots.length && allocated < required; i++) {
          if (r.slots[i] !== undefined) continue;
          r.slots[i] = jm;
          allocated++;
          this.env.tracer.event('rm.slotAllocated', { taskExecutor: te, slot: i });
          // Until the next heartbeat the TaskExecutor may not know yet: keep the slot allocated.
          this.inFlight.add(`${te}/${i}`);
          r.gateway.requestSlot(i, jm);
        }
      }
    }
  }
}
