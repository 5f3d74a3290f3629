/**
 * The JobMaster of one job: its RPC endpoint, the ExecutionGraph and scheduler, the slot pool,
 * heartbeats to the TaskExecutors it uses, and the OperatorCoordinators. All of it runs on the
 * JobMaster main thread, except the coordinators' own work, each on its coordinator thread.
 *
 * A TaskExecutor that misses its heartbeats is lost (mark `taskmanager-lost`): its slots leave
 * the pool, then every attempt in them fails, which triggers a failover; restarted attempts are
 * deployed only into slots still in the pool.
 *
 * @see org.apache.flink.runtime.jobmaster.JobMaster
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId, RpcAddress } from '../api/ids.ts';
import type { RpcCall } from '../api/Rpc.ts';
import { NO_EVENT } from '../api/Tracer.ts';
import { HeartbeatManager } from '../cluster/HeartbeatManager.ts';
import type { ClusterConfiguration } from '../cluster/ClusterConfiguration.ts';
import { OperatorCoordinatorHolder } from '../coordination/OperatorCoordinatorHolder.ts';
import type { JobGraph } from '../jobgraph/JobGraph.ts';
import { RESOURCE_MANAGER_ADDRESS } from '../rpc/addresses.ts';
import type { SlotOffer } from '../rpc/JobMasterGateway.ts';
import { ResourceManagerGatewayClient } from '../rpc/ResourceManagerGateway.ts';
import { TaskExecutorGatewayClient } from '../rpc/TaskExecutorGateway.ts';
import { isTerminal, type TaskExecutionState } from '../taskexecutor/ExecutionState.ts';
import { CheckpointCoordinator, type RecoveryClaimMode } from '../checkpoint/CheckpointCoordinator.ts';
import { CompletedCheckpoint as CompletedCheckpointClass } from '../checkpoint/CompletedCheckpoint.ts';
import { PLANTED_BUGS } from '../checkpoint/CheckpointPlantedBugs.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import { ExpectedError } from '../util/ExpectedError.ts';
import type { CompletedCheckpoint } from '../checkpoint/CompletedCheckpoint.ts';
import type { SavepointFormatType } from '../checkpoint/CheckpointProperties.ts';
import type { AcknowledgeCheckpoint, DeclineCheckpoint, JobManagerTaskRestore } from '../checkpoint/TaskStateSnapshot.ts';
import { DefaultScheduler } from './DefaultScheduler.ts';
import { ExecutionGraph, type ExecutionVertex, type JobStatus } from './ExecutionGraph.ts';
import { createCheckpointCoordinatorContext } from './JobMasterCheckpointContext.ts';
import { FIRST_JOB_RUN, jobRunEnv, type JobRun } from './JobRun.ts';
import { SlotPool, type AllocatedSlot } from './SlotPool.ts';
import { StopWithSavepointTerminationHandler } from './StopWithSavepointTerminationHandler.ts';

/**
 * Flink's SavepointRestoreSettings: the snapshot a new job run starts from (the metadata path of a
 * savepoint or a retained checkpoint of an earlier run) and who owns it afterwards.
 */
export interface SavepointRestoreSettings {
  /** `<directory>/_metadata` of the snapshot. */
  readonly path: string;
  readonly claimMode: RecoveryClaimMode;
}

/** Why the JobMaster declared a TaskManager lost (the `cause` of the `taskmanager-lost` mark). */
export type TaskManagerLossCause = 'heartbeat timeout';

export class JobMaster {
  readonly graph: ExecutionGraph;
  readonly scheduler: DefaultScheduler;
  readonly coordinators: OperatorCoordinatorHolder[];
  /** Present when the job has checkpointing on. */
  readonly checkpointCoordinator: CheckpointCoordinator | undefined;
  private readonly main: Executor;
  private readonly io: Executor;
  private readonly slotPool = new SlotPool();
  private readonly heartbeats: HeartbeatManager;
  private readonly rm: ResourceManagerGatewayClient;
  private readonly gateways = new Map<RpcAddress, TaskExecutorGatewayClient>();
  private declared = -1;
  private readonly env: EngineEnv;
  /** This JobMaster's RPC address (one per job run). */
  private readonly address: RpcAddress;

  /**
   * @param hostEnv the JobManager host's environment (the JobMaster traces as part of its run).
   * @param run which job run this is (JobRun.ts): its address, threads, checkpoint directory and
   *   first attempt number; default the first run.
   * @param restore the snapshot the run starts from (a savepoint or retained checkpoint of an
   *   earlier run), read and restored when the JobMaster starts; none for a fresh start.
   */
  constructor(
    hostEnv: EngineEnv,
    private readonly config: ClusterConfiguration,
    jobGraph: JobGraph,
    readonly run: JobRun = FIRST_JOB_RUN,
    private readonly restore?: SavepointRestoreSettings,
  ) {
    const env = jobRunEnv(hostEnv, run.index);
    this.env = env;
    this.address = run.address;
    this.main = env.executors.get(`${run.executorPrefix}/main`);
    this.io = env.executors.pool(`${run.executorPrefix}/io`, config.jobManagerIoPoolSize);
    this.graph = new ExecutionGraph(jobGraph, run.firstAttemptNumber);
    this.rm = new ResourceManagerGatewayClient(env.rpc, this.address, RESOURCE_MANAGER_ADDRESS, config.rpcTimeoutUs);
    this.heartbeats = new HeartbeatManager({
      clock: env.clock,
      executor: this.main,
      intervalUs: config.heartbeatIntervalUs,
      timeoutUs: config.heartbeatTimeoutUs,
      requestHeartbeat: (t) => this.gateway(t).requestHeartbeat(this.address),
      onTimeout: (t) => this.disconnectTaskManager(t, 'heartbeat timeout'),
    });
    this.coordinators = OperatorCoordinatorHolder.createAll(env, this.main, jobGraph, {
      gateway: (te) => this.gateway(te),
      failSubtask: (vertexId, subtask, cause) => {
        const ev = this.graph.vertex(vertexId, subtask);
        this.scheduler.handleTaskFailure(ev.current, cause);
      },
    }, run.executorPrefix);
    this.scheduler = new DefaultScheduler({
      env,
      run,
      config,
      main: this.main,
      graph: this.graph,
      slotPool: this.slotPool,
      declareRequiredSlots: (n) => {
        if (n !== this.declared) this.declareRequiredSlots(n);
      },
      gateway: (te) => this.gateway(te),
      attemptReady: (ev) => this.coordinatorsOf(ev.jobVertex.id).forEach((c) => c.attemptReady(ev)),
      attemptFailed: (ev, cause) => this.coordinatorsOf(ev.jobVertex.id).forEach((c) => c.attemptFailed(ev, cause)),
      beforeRedeploy: (vertices, global) => this.restoreState(vertices, global),
    });
    const cpConfig = jobGraph.checkpointing;
    if (cpConfig !== undefined) {
      this.checkpointCoordinator = new CheckpointCoordinator({
        config: cpConfig,
        storagePrefix: run.storagePrefix,
        context: createCheckpointCoordinatorContext({
          env,
          run,
          io: this.io,
          graph: this.graph,
          coordinators: this.coordinators,
          gateway: (te) => this.gateway(te),
          failGlobal: (cause) => this.failGlobal(cause),
        }),
      });
      const activator = this.checkpointCoordinator.createActivatorDeactivator();
      this.graph.addJobStatusListener((s) => activator.jobStatusChanges(s));
    }
    this.graph.addJobStatusListener((s) => {
      env.tracer.event('job.status', { status: s });
      if (isGloballyTerminal(s)) {
        this.heartbeats.stop();
        this.checkpointCoordinator?.shutdown(s);
        this.releaseResources();
        // The JobMaster stops (SchedulerBase.closeAsync disposes the coordinators): work still
        // queued on the coordinator threads is dropped.
        for (const c of this.coordinators) c.close();
      }
    });
    env.invariants.register(run.index === 1 ? 'JobMaster' : `JobMaster ${run.jobId}`, () => {
      this.graph.checkInvariants();
      this.slotPool.checkInvariants();
    });
  }

  get jobStatus(): JobStatus {
    return this.graph.jobStatus;
  }

  /**
   * Starts the endpoint, the coordinators and scheduling. A run with restore settings first reads
   * the snapshot's `_metadata` from the object store (on the main thread: Flink restores while
   * it creates the ExecutionGraph, before scheduling) and restores it
   * (CheckpointCoordinator.restoreSavepoint); a snapshot that cannot be read or assigned fails
   * the job's submission: the job goes FAILED (event `jm.restoreFailed`), as a Flink job whose
   * initialization failed.
   */
  start(): void {
    this.env.rpc.startEndpoint(this.address, this.main, (call) => this.handle(call));
    this.heartbeats.start();
    const restore = this.restore;
    if (restore === undefined) {
      this.startScheduling(undefined);
      return;
    }
    this.env.tracer.event('jm.restoreSettings', { path: restore.path, claimMode: restore.claimMode });
    // The restore runs as a task of its own, not in the read's callback, so an engine assertion
    // in it ends the run instead of vanishing into the read's future.
    this.env.objectStore.get(restore.path, this.main).whenComplete((stored, err) => this.main.execute('restore-savepoint', () => {
      const snapshot = stored === undefined ? undefined : snapshotOfMetadata(stored.data);
      const cc = this.checkpointCoordinator;
      if (snapshot === undefined || cc === undefined) {
        const reason = err !== undefined ? `cannot read ${restore.path}: ${err instanceof Error ? err.message : String(err)}`
          : cc === undefined ? 'checkpointing is off: nothing can restore the snapshot' : `${restore.path} holds no snapshot`;
        this.failSubmission(reason);
        return;
      }
      let restores: ReadonlyMap<string, JobManagerTaskRestore>;
      try {
        const refs = this.graph.allVertices().map((v) => ({ vertexId: v.jobVertex.id, subtask: v.subtask }));
        restores = cc.restoreSavepoint(snapshot, restore.claimMode, refs).tasks;
      } catch (e) {
        if (!(e instanceof Error) || e.name === 'AssertionError') throw e;
        this.failSubmission(e.message);
        return;
      }
      this.startScheduling(restores);
    }));
  }

  private startScheduling(restores: ReadonlyMap<string, JobManagerTaskRestore> | undefined): void {
    for (const c of this.coordinators) c.start();
    this.scheduler.startScheduling(restores);
  }

  /** The job could not start (its snapshot could not be restored): FAILED without running. */
  private failSubmission(reason: string): void {
    this.env.tracer.event('jm.restoreFailed', { reason });
    this.graph.transitionState('FAILED');
  }

  /**
   * JobMaster.cancel (from the user, through the Dispatcher): a mail on the main thread that
   * cancels the job (DefaultScheduler.cancel): CANCELLING, then CANCELED once every attempt is
   * terminal. The job's status listeners then shut the checkpoint coordinator down with CANCELED,
   * which keeps or deletes its retained checkpoints by the retention policy.
   * @returns a future that completes with true once the job is CANCELED, false when the job was
   *   not running (already finished, failed or cancelled).
   */
  cancel(): CompletableFuture<boolean> {
    const result = new CompletableFuture<boolean>();
    this.main.execute('cancel-job', () => {
      if (!this.scheduler.cancel()) {
        result.complete(false);
        return;
      }
      if (this.graph.jobStatus === 'CANCELED') result.complete(true);
      else this.graph.addJobStatusListener((s) => { if (s === 'CANCELED') result.complete(true); });
    });
    return result;
  }

  /** Fails the job globally (a global failover), on the main thread (the caller is on it). */
  failGlobal(cause: string): void {
    this.scheduler.handleGlobalFailure(cause);
  }

  /**
   * Fails the job globally from outside the JobMaster (a fault plan): as a mail on the main
   * thread, where Flink handles every global failure, so it waits behind whatever the main
   * thread is doing (or blocked in) at that moment.
   */
  scheduleGlobalFailure(cause: string): void {
    this.main.execute('global-failure', () => this.failGlobal(cause));
  }

  /**
   * JobMaster.triggerSavepoint (SchedulerBase.triggerSavepoint, without cancelJob): a user's
   * request for a savepoint, which reaches the JobMaster main thread as a mail (from the REST
   * handler through the Dispatcher), where the coordinator takes it (and hops to its timer thread).
   * @returns a future of the completed savepoint (`metadataPath` `savepoint-<id>/_metadata`); it
   *   fails with an ExpectedError (Flink's IllegalStateException) when the job has no checkpoint coordinator (checkpointing off:
   *   unlike Flink, which keeps a coordinator for every streaming job, mode `none` builds none),
   *   and with the coordinator's CheckpointException otherwise. `origin` (optional, not Flink's:
   *   the simulation's action, `action[0]`) goes on the `checkpoint.triggered` event of the id the
   *   savepoint gets, so the harness learns which id its request got.
   */
  triggerSavepoint(formatType: SavepointFormatType = 'CANONICAL', origin?: string): CompletableFuture<CompletedCheckpoint> {
    const result = new CompletableFuture<CompletedCheckpoint>();
    this.onMainWithCoordinator('trigger-savepoint', result, (cc) => {
      cc.triggerSavepoint(formatType, origin).whenComplete((cp, e) => {
        if (cp !== undefined) result.complete(cp);
        else result.completeExceptionally(e);
      });
    });
    return result;
  }

  /**
   * SchedulerBase.stopWithSavepoint: stop the job with a synchronous savepoint, `terminate` for
   * the drain variant (MAX_WATERMARK and endInput before the snapshot) or without (the operators
   * stay unfinished). A mail on the main thread (from the REST handler through the Dispatcher):
   * stops the periodic scheduler (aborting pending checkpoints, CHECKPOINT_COORDINATOR_SUSPEND),
   * takes the terminal-state futures of the current executions, triggers the synchronous
   * savepoint, and hands both to a StopWithSavepointTerminationHandler (its comment says the
   * outcomes and their marks).
   * @returns a future of the savepoint's metadata path (`savepoint-<id>/_metadata`); it fails
   *   with an ExpectedError when the job has no checkpoint coordinator (checkpointing off), with
   *   the savepoint's CheckpointException when the savepoint failed, and with a
   *   StopWithSavepointStoppingException when the savepoint was created but the job failed.
   *   `origin` as for triggerSavepoint: on the synchronous savepoint's `checkpoint.triggered`.
   */
  stopWithSavepoint(terminate: boolean, formatType: SavepointFormatType = 'CANONICAL', origin?: string): CompletableFuture<string> {
    const result = new CompletableFuture<string>();
    this.onMainWithCoordinator('stop-with-savepoint', result, (cc) => {
      this.env.tracer.event('jm.stopWithSavepoint', { drain: terminate });
      // Only the synchronous savepoint's data may be committed; a failover that restarts the job
      // starts the scheduler again (the activator).
      cc.stopCheckpointScheduler();
      const terminations = CompletableFuture.allOf(this.graph.allVertices().map((v) => v.current.getTerminalStateFuture()));
      // What ended the last of them: when they ended before the savepoint came, the handling
      // of their states (a job failed during stopping) is still their doing, not the savepoint's.
      let terminatedBy = NO_EVENT;
      terminations.whenComplete(() => {
        terminatedBy = this.env.tracer.current();
      });
      const handler = new StopWithSavepointTerminationHandler({
        tracer: this.env.tracer,
        startCheckpointScheduler: () => cc.startCheckpointScheduler(),
        failJobUnrecoverably: (e) => this.scheduler.handleGlobalFailure(e.message, true),
      }, terminate);
      // The savepoint may complete on the coordinator's threads: its outcome, and after it the
      // executions' terminal states, are handled on the main thread (StopWithSavepointTerminationManager).
      cc.triggerSynchronousSavepoint(terminate, formatType, origin).whenCompleteAsync(this.main, 'stop-with-savepoint-savepoint', (cp, e) => {
        handler.handleSavepointCreation(cp, e);
        terminations.whenCompleteAsync(this.main, 'stop-with-savepoint-terminated', (states) => {
          this.env.tracer.causedBy(terminatedBy);
          if (states !== undefined) handler.handleExecutionsTermination(states);
        });
      });
      handler.savepointPath.whenComplete((path, e) => {
        if (path !== undefined) result.complete(path);
        else result.completeExceptionally(e);
      });
    });
    return result;
  }

  /**
   * Runs `body` as a mail `label` on the main thread with the checkpoint coordinator, or fails
   * `result` there when the job has none (StopWithSavepointTerminationManager's precondition:
   * Flink's IllegalStateException, an ExpectedError here).
   */
  private onMainWithCoordinator<T>(label: string, result: CompletableFuture<T>, body: (cc: CheckpointCoordinator) => void): void {
    this.main.execute(label, () => {
      const cc = this.checkpointCoordinator;
      if (cc !== undefined) {
        body(cc);
        return;
      }
      this.env.tracer.event('jm.savepointRefused', { reason: 'no checkpoint coordinator' });
      result.completeExceptionally(new ExpectedError('job has no checkpoint coordinator (checkpointing is off)'));
    });
  }

  private handle(call: RpcCall): unknown {
    const a = call.args;
    switch (call.method) {
      case 'updateTaskExecutionState':
        this.scheduler.updateTaskExecutionState(a[0] as TaskExecutionState);
        return undefined;
      case 'offerSlots':
        return this.offerSlots(a[0] as readonly SlotOffer[]);
      case 'heartbeatFromTaskManager': {
        const te = a[0] as RpcAddress;
        if (!this.heartbeats.isMonitoring(te)) return undefined; // a TaskManager we let go
        this.heartbeats.receiveHeartbeat(te);
        const gone = this.slotPool.syncAllocatedSlotReport(te, a[1] as readonly string[]);
        if (gone.length > 0) this.slotsLost(gone, `TaskManager ${te} no longer holds the slot`);
        return undefined;
      }
      case 'acknowledgeCheckpoint': {
        // ExecutionGraphHandler moves acks from the main thread to the ioExecutor.
        const ack = a[0] as AcknowledgeCheckpoint;
        const cc = this.checkpointCoordinator;
        if (cc !== undefined) this.io.execute('receive-ack', () => cc.receiveAcknowledgeMessage(ack));
        return undefined;
      }
      case 'declineCheckpoint': {
        const decline = a[0] as DeclineCheckpoint;
        const cc = this.checkpointCoordinator;
        if (cc !== undefined) this.io.execute('receive-decline', () => cc.receiveDeclineMessage(decline));
        return undefined;
      }
      case 'sendOperatorEventToCoordinator':
        this.operatorEvent(a[0] as ExecutionAttemptId, a[1] as string, a[2]);
        return undefined;
      default:
        throw new Error(`JobMaster has no RPC method ${call.method}`);
    }
  }

  /**
   * SchedulerBase.restoreState: abort every pending checkpoint (those pending at the failure
   * were aborted when the job went RESTARTING; this aborts any triggered since, a savepoint), then
   * restore the vertices from the latest completed checkpoint (all of them and the coordinators
   * for a global failover; the subtasks, with subtaskReset, for a regional one). Without
   * checkpointing only the coordinators are reset.
   */
  private restoreState(vertices: readonly ExecutionVertex[], global: boolean): ReadonlyMap<string, JobManagerTaskRestore> | undefined {
    const cc = this.checkpointCoordinator;
    if (cc === undefined) {
      for (const c of this.coordinators) c.beforeRedeploy(vertices, global);
      return undefined;
    }
    // In Flink the restore takes the coordinator lock. Here it cannot wait (the redeploy needs
    // its result at once), and it need not: it follows the RESTARTING stop, which waited for the
    // lock and aborted every pending checkpoint, and nothing triggers while the job restarts; so
    // no completion can hold the lock now, unless a planted bug kept a pending checkpoint or
    // planned a savepoint of terminal tasks while the job restarts (plan-terminal-as-finished),
    // whose finalisation the restore then aborts where Flink's would wait for it.
    assert(cc.lock.heldBy === undefined || this.env.bugs.has(PLANTED_BUGS.failoverKeepsPending)
      || this.env.bugs.has(PLANTED_BUGS.planTerminalAsFinished),
      () => `restore while ${cc.lock.heldBy ?? ''} holds the checkpoint coordinator lock`);
    cc.abortPendingCheckpoints('JOB_FAILOVER_REGION');
    const refs = vertices.map((v) => ({ vertexId: v.jobVertex.id, subtask: v.subtask }));
    const failedAt = this.scheduler.lastFailureTimestampUs;
    const result = global
      ? cc.restoreLatestCheckpointedStateToAll(refs, failedAt)
      : cc.restoreLatestCheckpointedStateToSubtasks(refs, failedAt);
    return result.tasks;
  }

  /**
   * JobMaster.offerSlots: accepts every offered allocation (again, if it was accepted before).
   * An offer that replaces an older allocation of the same physical slot fails the tasks that
   * ran in the old one.
   */
  private offerSlots(offers: readonly SlotOffer[]): string[] {
    // After the job's terminal state Flink's JobMaster has stopped, and an offer to it fails, so
    // the TaskExecutor frees the slots. Accepting here would keep a slot the ResourceManager
    // allocated for the last failover (racing the terminal state) out of every later job run.
    if (isGloballyTerminal(this.graph.jobStatus)) {
      this.env.tracer.event('jm.slotsRejected', { count: offers.length, reason: 'job terminated' });
      return [];
    }
    const accepted: string[] = [];
    const replaced = [];
    for (const o of offers) {
      if (!this.heartbeats.isMonitoring(o.taskExecutor)) this.heartbeats.monitor(o.taskExecutor);
      const r = this.slotPool.offer({
        taskExecutor: o.taskExecutor, host: o.host, slotIndex: o.slotIndex, allocationId: o.allocationId,
      });
      if (r.replaced !== undefined) replaced.push(r.replaced);
      accepted.push(o.allocationId);
    }
    this.env.tracer.event('jm.slotsOffered', { count: accepted.length, pool: this.slotPool.size });
    if (replaced.length > 0) this.slotsLost(replaced, 'slot allocation replaced');
    this.scheduler.onSlotsChanged();
    return accepted;
  }

  /**
   * JobMaster.disconnectTaskManager: the JobMaster declares `te` lost (today only at its
   * heartbeat timeout, TaskManagerHeartbeatListener.notifyHeartbeatTimeout). As in Flink it stops
   * monitoring it and releases its slots from the pool first (DeclarativeSlotPoolService
   * .releaseTaskManager -> DefaultDeclarativeSlotPool.releaseSlots removes them, then releases
   * their payload), so no restart, however soon it runs, can deploy into them; then it tells the
   * TaskExecutor. Marks `taskmanager-lost` with the cause.
   */
  private disconnectTaskManager(te: RpcAddress, cause: TaskManagerLossCause): void {
    this.env.tracer.event('jm.taskManagerLost', { taskExecutor: te, cause });
    this.env.tracer.mark('taskmanager-lost', { taskExecutor: te, cause });
    this.heartbeats.unmonitor(te);
    const gone = this.slotPool.releaseTaskManager(te);
    // If it is alive after all (paused, cut off), it frees the job's slots and offers them again.
    this.gateway(te).disconnectJobManager(this.address, cause);
    this.slotsLost(gone, `TaskManager ${te} lost: ${cause}`);
  }

  /**
   * The job reached a globally terminal state (JobMaster.onStop): the requirement goes to zero
   * at the ResourceManager and every pooled slot is freed at its TaskExecutor.
   */
  private releaseResources(): void {
    this.declareRequiredSlots(0);
    for (const s of [...this.slotPool.all()]) {
      this.slotPool.release(s);
      this.gateway(s.taskExecutor).freeSlot(s.slotIndex, s.allocationId);
    }
  }

  /**
   * Sends the slot requirement to the ResourceManager and retries until it is acknowledged, as
   * long as it is still the latest one (DefaultDeclareResourceRequirementServiceConnectionManager):
   * a lost declaration must not leave the job waiting for slots forever.
   */
  private declareRequiredSlots(n: number): void {
    this.declared = n;
    this.rm.declareRequiredSlots(this.address, n).whenComplete((_v, err) => {
      if (err === undefined || this.declared !== n) return;
      this.main.schedule('declare-retry', this.config.registrationRetryUs, () => {
        if (this.declared === n) this.declareRequiredSlots(n);
      });
    });
  }

  /**
   * Slots left the pool (the caller removed them): every attempt still running in one of them
   * fails (Flink releases the slots' payload). A failover this starts may restart at once, when
   * the last old attempt becomes terminal here; the scheduler allocates only slots still in the
   * pool, so it never picks one of `gone`.
   */
  private slotsLost(gone: readonly AllocatedSlot[], cause: string): void {
    for (const ev of this.graph.allVertices()) {
      const ex = ev.current;
      if (ex.slot !== undefined && gone.includes(ex.slot) && !isTerminal(ex.state)) {
        this.scheduler.handleTaskFailure(ex, cause);
      }
    }
    this.scheduler.onSlotsChanged();
  }

  private operatorEvent(attempt: ExecutionAttemptId, operatorUid: string, event: unknown): void {
    const ex = this.graph.currentExecution(attempt);
    if (ex === undefined) return; // an event from an old attempt is dropped, as in Flink
    const holder = this.coordinators.find((c) => c.operatorUid === operatorUid);
    holder?.handleEventFromOperator(ex.vertex.subtask, ex.attemptNumber, event);
  }

  private gateway(te: RpcAddress): TaskExecutorGatewayClient {
    let g = this.gateways.get(te);
    if (g === undefined) {
      g = new TaskExecutorGatewayClient(this.env.rpc, this.address, te, this.config.rpcTimeoutUs);
      this.gateways.set(te, g);
    }
    return g;
  }

  private coordinatorsOf(vertexId: string): OperatorCoordinatorHolder[] {
    return this.coordinators.filter((c) => c.vertexId === vertexId);
  }
}

/**
 * The snapshot a `_metadata` object holds (CompletedCheckpoint.metadata writes the checkpoint
 * by reference, as Flink's metadata references its state handles), or undefined for anything else.
 */
function snapshotOfMetadata(data: unknown): CompletedCheckpoint | undefined {
  const cp = (data as { checkpoint?: unknown } | null)?.checkpoint;
  return cp instanceof CompletedCheckpointClass ? cp : undefined;
}

/** FINISHED, FAILED or CANCELED: the job is over and its JobMaster stops (Flink's JobStatus#isGloballyTerminalState). */
function isGloballyTerminal(s: JobStatus): boolean {
  return s === 'FINISHED' || s === 'FAILED' || s === 'CANCELED';
}
