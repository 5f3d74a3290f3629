/**
 * The TaskExecutor of one TaskManager host: registers with the ResourceManager, accepts slot
 * allocations and offers the slots to the JobMaster, deploys tasks into them, answers
 * heartbeats and routes operator events to tasks. Everything runs on its RPC main thread; each
 * task runs on its own mailbox thread.
 *
 * @see org.apache.flink.runtime.taskexecutor.TaskExecutor
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId, RpcAddress } from '../api/ids.ts';
import { RpcTimeoutError } from '../api/Rpc.ts';
import type { RpcCall } from '../api/Rpc.ts';
import { NO_EVENT, type EventRef } from '../api/Tracer.ts';
import type { ClusterConfiguration } from '../cluster/ClusterConfiguration.ts';
import type { CheckpointOptions } from '../checkpoint/CheckpointBarrier.ts';
import { CheckpointException } from '../checkpoint/CheckpointFailureReason.ts';
import { RESOURCE_MANAGER_ADDRESS, taskExecutorAddress } from '../rpc/addresses.ts';
import { JobMasterGatewayClient } from '../rpc/JobMasterGateway.ts';
import { ResourceManagerGatewayClient } from '../rpc/ResourceManagerGateway.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import type { OperatorSnapshot } from '../streaming/operators/StreamOperator.ts';
import { Task } from './Task.ts';
import type { TaskDeploymentDescriptor } from './TaskDeploymentDescriptor.ts';
import { SlotOccupiedException, TaskSlotTable } from './TaskSlotTable.ts';

export class TaskExecutor {
  readonly address: RpcAddress;
  /** When this incarnation started, virtual µs (the ResourceManager prefers later ones). */
  private readonly bootUs: number;
  private readonly main: Executor;
  private readonly slots: TaskSlotTable;
  private readonly tasks = new Map<ExecutionAttemptId, Task>();
  private readonly rm: ResourceManagerGatewayClient;
  /** A gateway per JobMaster (one per job run: each run's JobMaster has its own address). */
  private readonly jobMasters = new Map<RpcAddress, JobMasterGatewayClient>();
  private registered = false;
  private registering = false;
  private lastRmHeartbeatUs = 0;
  /** The last heartbeat request of each JobMaster this TaskExecutor offered slots to, µs. */
  private readonly lastJmHeartbeatUs = new Map<RpcAddress, number>();
  /** Per JobMaster, the id of the slot offer whose answer counts (the latest one). */
  private readonly currentOffer = new Map<RpcAddress, number>();
  private offerCounter = 0;
  /**
   * Final operator state of tasks that finished here, by attempt. Only the harness reads it
   * (the end-to-end oracle compares it with the reference fold); the engine never does.
   */
  readonly finalStates = new Map<ExecutionAttemptId, readonly OperatorSnapshot[]>();
  /**
   * The terminal-state trace event of each task that has left this TaskExecutor: what a call for
   * it that finds it gone (a trigger that arrives after the task finished) is caused by.
   */
  private readonly goneTasks = new Map<ExecutionAttemptId, EventRef>();
  /**
   * Per JobMaster, the `te.jmDisconnected` event that freed its slots, until the next heartbeat
   * answer tells it: that report, missing the slots, is the disconnection's doing.
   */
  private readonly jmDisconnectedBy = new Map<RpcAddress, EventRef>();

  constructor(private readonly env: EngineEnv, private readonly config: ClusterConfiguration) {
    this.bootUs = env.clock.nowUs();
    this.address = taskExecutorAddress(env.host, this.bootUs);
    this.main = env.executors.get('taskexecutor/main');
    this.slots = new TaskSlotTable(config.slotsPerTaskManager);
    this.rm = new ResourceManagerGatewayClient(env.rpc, this.address, RESOURCE_MANAGER_ADDRESS, config.rpcTimeoutUs);
    env.invariants.register(`TaskExecutor@${env.host}`, () => this.slots.checkInvariants());
  }

  /** Starts the endpoint and registers with the ResourceManager (retrying until it answers). */
  start(): void {
    this.env.rpc.startEndpoint(this.address, this.main, (call) => this.handle(call));
    this.register();
    this.main.schedule('heartbeat-monitor', this.config.heartbeatIntervalUs, () => this.monitorHeartbeats());
  }

  /** Running tasks, for tests. */
  runningTasks(): Task[] {
    return [...this.tasks.values()];
  }

  /**
   * The running tasks that wait for a synchronous savepoint's notification or abort, as
   * `{ task: <attempt id>, checkpointId }`: for the harness, which names a stop-with-savepoint
   * that can never end.
   */
  tasksWaitingForSynchronousSavepoint(): { task: string; checkpointId: number }[] {
    return this.runningTasks().flatMap((t) => {
      const id = t.waitingForSynchronousSavepoint();
      return id === undefined ? [] : [{ task: t.attemptId, checkpointId: id }];
    });
  }

  private register(): void {
    if (this.registering) return;
    this.registering = true;
    this.rm.registerTaskExecutor(this.address, this.env.host, this.bootUs, this.slots.allocations())
      .whenComplete((_v, err) => {
        this.registering = false;
        if (err === undefined) {
          this.registered = true;
          this.lastRmHeartbeatUs = this.env.clock.nowUs();
          this.env.tracer.event('te.registered', {});
        } else {
          this.main.schedule('registration-retry', this.config.registrationRetryUs, () => this.register());
        }
      });
  }

  /**
   * The TaskExecutor's side of the heartbeats: a ResourceManager that stopped asking means we
   * were dropped (register again); a JobMaster that stopped asking means it lost us (free its
   * slots, failing their tasks, so they can be offered again).
   * @see org.apache.flink.runtime.taskexecutor.TaskExecutor (heartbeat timeouts with RM and JM)
   */
  private monitorHeartbeats(): void {
    const now = this.env.clock.nowUs();
    const timeout = this.config.heartbeatTimeoutUs;
    if (this.registered && now - this.lastRmHeartbeatUs > timeout) {
      this.disconnectResourceManager('heartbeat of the ResourceManager timed out');
    }
    // Disconnecting changes the map, so a loop that disconnects works on a copy; most rounds
    // disconnect nothing and need none.
    let anyTimedOut = false;
    for (const last of this.lastJmHeartbeatUs.values()) if (now - last > timeout) anyTimedOut = true;
    if (anyTimedOut) {
      for (const [jm, last] of [...this.lastJmHeartbeatUs]) {
        if (now - last > timeout) this.disconnectJobManager(jm, 'heartbeat of the JobMaster timed out');
      }
    }
    this.main.schedule('heartbeat-monitor', this.config.heartbeatIntervalUs, this.monitorHeartbeatsTask);
  }

  /** {@link monitorHeartbeats} as a task, made once. */
  private readonly monitorHeartbeatsTask = (): void => this.monitorHeartbeats();

  private disconnectResourceManager(cause: string): void {
    this.env.tracer.event('te.rmDisconnected', { cause });
    this.registered = false;
    this.register();
  }

  private disconnectJobManager(jm: RpcAddress, cause: string): void {
    this.lastJmHeartbeatUs.delete(jm);
    this.currentOffer.delete(jm);
    const slots = this.slots.slotsOf(jm);
    if (slots.length === 0) return;
    this.jmDisconnectedBy.set(jm, this.env.tracer.event('te.jmDisconnected', { cause, slots: slots.length }));
    for (const i of slots) this.freeSlot(i, undefined, `JobManager disconnected: ${cause}`);
  }

  /**
   * Frees slot `i` if it holds `allocationId` (any allocation when undefined), fails the tasks
   * in it and tells the ResourceManager which allocation it freed. The notification is sent even
   * while (re-)registering: it travels behind the registration on the same link, and it names
   * the allocation, so a late one can never free a later allocation of the slot.
   */
  private freeSlot(i: number, allocationId: string | undefined, cause: string): void {
    const allocation = this.slots.allocationOf(i);
    const tasks = this.slots.freeSlot(i, allocationId);
    if (tasks === undefined || allocation === undefined) return;
    for (const t of tasks) this.tasks.get(t)?.failExternally(cause);
    this.rm.notifySlotFree(this.address, i, allocation.allocationId);
  }

  private handle(call: RpcCall): unknown {
    const a = call.args;
    switch (call.method) {
      case 'submitTask':
        return this.submitTask(a[0] as TaskDeploymentDescriptor);
      case 'cancelTask':
        this.tasks.get(a[0] as ExecutionAttemptId)?.cancel();
        return undefined;
      case 'requestSlot':
        this.requestSlot(a[0] as number, a[1] as string, a[2] as RpcAddress);
        return undefined;
      case 'freeSlot':
        this.freeSlot(a[0] as number, a[1] as string, 'slot freed by the JobMaster');
        return undefined;
      case 'requestHeartbeat': {
        const from = a[0] as RpcAddress;
        if (from === RESOURCE_MANAGER_ADDRESS) {
          this.lastRmHeartbeatUs = this.env.clock.nowUs();
          this.rm.heartbeatFromTaskManager(this.address, this.slots.allocations());
        } else {
          if (this.lastJmHeartbeatUs.has(from)) this.lastJmHeartbeatUs.set(from, this.env.clock.nowUs());
          const disconnected = this.jmDisconnectedBy.get(from);
          if (disconnected !== undefined) {
            this.jmDisconnectedBy.delete(from);
            this.env.tracer.causedBy(disconnected);
          }
          // The AllocatedSlotReport: the JobMaster drops pool slots whose allocation is gone here.
          this.jm(from).heartbeatFromTaskManager(this.address, this.slots.allocationIdsOf(from));
        }
        return undefined;
      }
      case 'disconnectJobManager':
        this.disconnectJobManager(a[0] as RpcAddress, a[1] as string);
        return undefined;
      case 'disconnectResourceManager':
        this.disconnectResourceManager(a[0] as string);
        return undefined;
      case 'triggerCheckpoint': {
        const task = this.tasks.get(a[0] as ExecutionAttemptId);
        if (task === undefined) {
          // The refusal is the task's end's doing (it finished, failed or was cancelled here).
          const gone = this.goneTasks.get(a[0] as ExecutionAttemptId) ?? NO_EVENT;
          this.env.tracer.causedBy(gone);
          const refused = new CheckpointException('TASK_CHECKPOINT_FAILURE', `task ${String(a[0])} is not here`);
          refused.event = gone;
          return CompletableFuture.failed(refused);
        }
        task.triggerCheckpointBarrier(a[1] as number, a[2] as number, a[3] as CheckpointOptions);
        return CompletableFuture.completed<void>(undefined);
      }
      case 'confirmCheckpoint': {
        // TaskExecutor.confirmCheckpoint: the completion, then the last subsumed id (-1: none).
        const task = this.tasks.get(a[0] as ExecutionAttemptId);
        task?.notifyCheckpointComplete(a[1] as number);
        task?.notifyCheckpointSubsumed(a[3] as number);
        return undefined;
      }
      case 'abortCheckpoint':
        this.tasks.get(a[0] as ExecutionAttemptId)?.notifyCheckpointAborted(a[1] as number, a[2] as number);
        return undefined;
      case 'sendOperatorEventToTask':
        return this.deliverOperatorEvent(a[0] as ExecutionAttemptId, a[1] as string, a[2]);
      default:
        throw new Error(`TaskExecutor has no RPC method ${call.method}`);
    }
  }

  /**
   * TaskExecutor.requestSlot: allocates the slot (a repeated request of the same allocation is
   * fine) and offers the job's reserved slots to its JobMaster.
   * @throws SlotOccupiedException (answered to the ResourceManager) if the slot holds another allocation.
   */
  private requestSlot(slotIndex: number, allocationId: string, jobMaster: RpcAddress): void {
    if (!this.registered) this.registered = true; // the RM knows us, so registration went through
    const result = this.slots.allocateSlot(slotIndex, allocationId, jobMaster);
    if (result === 'conflict') {
      const occupiedBy = this.slots.allocationOf(slotIndex);
      throw new SlotOccupiedException(
        `slot ${slotIndex} of ${this.address} holds ${occupiedBy?.allocationId ?? 'nothing'}, not ${allocationId}`, slotIndex, occupiedBy);
    }
    if (result === 'duplicate') return;
    if (!this.lastJmHeartbeatUs.has(jobMaster)) this.lastJmHeartbeatUs.set(jobMaster, this.env.clock.nowUs());
    this.env.tracer.event('te.slotAllocated', { slot: slotIndex, allocation: allocationId });
    this.offerSlotsToJobManager(jobMaster);
  }

  /**
   * Offers every reserved (allocated, not yet accepted) slot of `jobMaster` in one offer. Only
   * the answer to the latest offer counts. A timeout retries the offer (the JobMaster may have
   * accepted; accepting again is idempotent); a rejection or another failure frees the slots.
   * @see org.apache.flink.runtime.taskexecutor.TaskExecutor#offerSlotsToJobManager
   */
  private offerSlotsToJobManager(jobMaster: RpcAddress): void {
    const reserved = this.slots.reservedSlotsOf(jobMaster);
    if (reserved.length === 0) return;
    const offerId = ++this.offerCounter;
    this.currentOffer.set(jobMaster, offerId);
    const offers = reserved.map((slotIndex) => ({
      taskExecutor: this.address, host: this.env.host, slotIndex,
      allocationId: this.slots.allocationOf(slotIndex)?.allocationId as string,
    }));
    this.jm(jobMaster).offerSlots(offers).whenComplete((accepted, err) => {
      if (this.currentOffer.get(jobMaster) !== offerId) return; // a newer offer supersedes it
      this.currentOffer.delete(jobMaster);
      if (err instanceof RpcTimeoutError) {
        this.offerSlotsToJobManager(jobMaster);
        return;
      }
      for (const o of offers) {
        if (err === undefined && accepted?.includes(o.allocationId) === true) {
          this.slots.markActive(o.slotIndex, o.allocationId);
        } else {
          this.freeSlot(o.slotIndex, o.allocationId, 'slot offer rejected');
        }
      }
    });
  }

  private submitTask(tdd: TaskDeploymentDescriptor): CompletableFuture<void> {
    if (!this.slots.addTask(tdd.slotIndex, tdd.allocationId, tdd.attemptId)) {
      return CompletableFuture.failed(new Error(`slot ${tdd.slotIndex} does not hold allocation ${tdd.allocationId} (task ${tdd.attemptId})`));
    }
    const task = new Task(this.env, this.config, tdd, {
      jobMaster: this.jm(tdd.jobMasterAddress),
      onTerminal: (t) => {
        if (t.finalState !== undefined) this.finalStates.set(t.attemptId, t.finalState);
        this.goneTasks.set(t.attemptId, t.terminalEvent);
        this.tasks.delete(t.attemptId);
        this.slots.removeTask(t.attemptId);
      },
    });
    this.tasks.set(tdd.attemptId, task);
    task.start();
    return CompletableFuture.completed<void>(undefined);
  }

  /** The gateway to the JobMaster at `address` (made on first use). */
  private jm(address: RpcAddress): JobMasterGatewayClient {
    let g = this.jobMasters.get(address);
    if (g === undefined) {
      g = new JobMasterGatewayClient(this.env.rpc, this.address, address, this.config.rpcTimeoutUs);
      this.jobMasters.set(address, g);
    }
    return g;
  }

  private deliverOperatorEvent(attempt: ExecutionAttemptId, operatorUid: string, event: unknown): CompletableFuture<void> {
    const task = this.tasks.get(attempt);
    if (task === undefined) {
      this.env.tracer.causedBy(this.goneTasks.get(attempt) ?? NO_EVENT);
      return CompletableFuture.failed(new Error(`task ${attempt} is not running here`));
    }
    return task.deliverOperatorEvent(operatorUid, event);
  }
}
