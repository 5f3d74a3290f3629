/**
 * The scheduler: deploys the ExecutionGraph into shared slots (subtask i of every vertex shares
 * slot i, kept across restarts while the slot stays in the pool; a slot that left the pool is
 * never deployed into again, and its subtask takes a free one), applies task state updates, and
 * handles failures through the region failover strategy and the restart backoff. A task failure
 * restarts its pipelined region, a global failure every vertex. Either way the vertices become
 * restart-pending, which moves the job RUNNING -> RESTARTING (a failure that arrives while
 * RESTARTING keeps it there), and once no vertex waits for its restart any more the job goes back
 * to RUNNING, before the vertices are reset and their state is restored
 * (DefaultScheduler.addVerticesToRestartPending, removeVerticesFromRestartPending, restartTasks).
 * So the checkpoint coordinator's activator stops periodic checkpoints at failure time and starts
 * them again at redeployment. A region is redeployed only after all of its old attempts reached a
 * terminal state and the backoff delay passed. Restarts that overlap are merged into one: every
 * waiting vertex is redeployed after the latest backoff, where Flink restarts each failover's
 * vertices after its own delay (still RESTARTING until the last one); the job statuses are the
 * same.
 *
 * Restore from checkpoints hooks in at `beforeRedeploy` (SchedulerBase.restoreState).
 *
 * @see org.apache.flink.runtime.scheduler.DefaultScheduler, SchedulerBase,
 *      org.apache.flink.runtime.executiongraph.failover.RestartPipelinedRegionFailoverStrategy
 * Invariants: while the job is RUNNING or RESTARTING, it is RESTARTING exactly when vertices
 * wait for their restart.
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { RpcAddress } from '../api/ids.ts';
import { NO_EVENT, type EventRef } from '../api/Tracer.ts';
import type { JobManagerTaskRestore } from '../checkpoint/TaskStateSnapshot.ts';
import type { ClusterConfiguration } from '../cluster/ClusterConfiguration.ts';
import { inputsOf, outputsOf } from '../jobgraph/JobGraph.ts';
import { isTerminal, type TaskExecutionState } from '../taskexecutor/ExecutionState.ts';
import {
  partitionIdOf, type InputGateDescriptor, type ResultPartitionDescriptor, type TaskDeploymentDescriptor,
} from '../taskexecutor/TaskDeploymentDescriptor.ts';
import type { TaskExecutorGateway } from '../rpc/TaskExecutorGateway.ts';
import { computePipelinedRegions } from './FailoverRegions.ts';
import type { Execution, ExecutionGraph, ExecutionVertex } from './ExecutionGraph.ts';
import { assert } from '../util/assert.ts';
import type { JobRun } from './JobRun.ts';
import { RestartBackoffTimeStrategy } from './RestartBackoffTimeStrategy.ts';
import type { AllocatedSlot, SlotPool } from './SlotPool.ts';

/** What the scheduler needs from the JobMaster. */
export interface SchedulerContext {
  readonly env: EngineEnv;
  /** The job run being scheduled (its tasks report to its JobMaster, JobRun.ts). */
  readonly run: JobRun;
  readonly config: ClusterConfiguration;
  readonly main: Executor;
  readonly graph: ExecutionGraph;
  readonly slotPool: SlotPool;
  declareRequiredSlots(count: number): void;
  gateway(taskExecutor: RpcAddress): TaskExecutorGateway;
  /**
   * Coordinators hear about attempts becoming ready and failing: a failed attempt with its
   * cause, an attempt a restart cancels with `null` (Flink passes no error then).
   */
  attemptReady(ev: ExecutionVertex): void;
  attemptFailed(ev: ExecutionVertex, cause: string | null): void;
  /**
   * Called with the vertices about to be redeployed; `global` for a global failover. Returns the
   * state to restore them with per `<vertex>#<subtask>` (SchedulerBase.restoreState), if any.
   */
  beforeRedeploy(vertices: readonly ExecutionVertex[], global: boolean): ReadonlyMap<string, JobManagerTaskRestore> | undefined;
}

export class DefaultScheduler {
  private readonly regions: Map<string, number>;
  private readonly backoff: RestartBackoffTimeStrategy;
  private readonly sharedSlots = new Map<number, AllocatedSlot>();
  private pendingDeploy: ExecutionVertex[] = [];
  private restart: {
    vertices: Set<ExecutionVertex>; notBeforeUs: number; global: boolean;
    /** The `scheduler.restarting` event of the latest failover merged in: the redeploy's cause. */
    cause: EventRef;
  } | undefined;
  private restartTimerArmed = false;
  /** State to deploy each `<vertex>#<subtask>` with, from the latest restore. */
  private readonly restores = new Map<string, JobManagerTaskRestore>();

  /** When the latest failure that restarts vertices happened, µs (for the restore statistics). */
  lastFailureTimestampUs: number | undefined;

  constructor(private readonly c: SchedulerContext) {
    this.regions = computePipelinedRegions(c.graph.jobGraph);
    this.backoff = new RestartBackoffTimeStrategy(c.config.restartStrategy);
    c.env.invariants.register('DefaultScheduler', () => this.checkInvariants());
  }

  /** Restarts done so far. */
  get restarts(): number {
    return this.backoff.failureCount;
  }

  /**
   * Schedules every vertex. `restores` (per `<vertex>#<subtask>`) is the state of a job run
   * restored from a savepoint or a retained checkpoint (CheckpointCoordinator.restoreSavepoint,
   * run before scheduling as Flink's SchedulerBase does when it creates the ExecutionGraph).
   */
  startScheduling(restores?: ReadonlyMap<string, JobManagerTaskRestore>): void {
    for (const [name, r] of restores ?? []) this.restores.set(name, r);
    this.c.graph.transitionState('RUNNING');
    this.schedule(this.c.graph.allVertices());
  }

  /** A slot arrived or went: maybe we can deploy now. */
  onSlotsChanged(): void {
    this.tryDeploy();
  }

  /**
   * Applies a TaskExecutor's state report; reports of old attempts are ignored. A job being
   * cancelled is CANCELED once its last attempt is terminal.
   */
  updateTaskExecutionState(update: TaskExecutionState): void {
    this.applyTaskExecutionState(update);
    this.checkJobCanceled();
  }

  private applyTaskExecutionState(update: TaskExecutionState): void {
    const ex = this.c.graph.currentExecution(update.attemptId);
    if (ex === undefined || isTerminal(ex.state)) return;
    switch (update.state) {
      // Execution.switchToInitializing / switchToRunning: each transition only from the state
      // before it. A report for an attempt being cancelled changes nothing (its cancel goes on);
      // RUNNING for an attempt still DEPLOYING (its INITIALIZING report was lost) is an unexpected
      // transition: Flink cancels the task and fails the attempt. Taken as RUNNING, it left the
      // attempt without executionAttemptReady, so a split assigned to it waited forever for the
      // subtask's gateway, although a checkpoint of the coordinator counted it as assigned.
      case 'INITIALIZING':
        if (ex.state !== 'DEPLOYING') return;
        ex.state = 'INITIALIZING';
        this.c.attemptReady(ex.vertex);
        return;
      case 'RUNNING':
        if (ex.state === 'INITIALIZING') ex.state = 'RUNNING';
        else if (ex.state === 'DEPLOYING') this.unexpectedTransition(ex, 'RUNNING');
        return;
      case 'FINISHED':
        if (ex.state === 'CANCELING') {
          // Finished while its region was being restarted: it counts as cancelled, or a job
          // would end FINISHED with a restart still pending (Execution.markFinished does the same).
          ex.state = 'CANCELED';
          this.maybeRedeploy();
          return;
        }
        ex.state = 'FINISHED';
        this.checkJobFinished();
        return;
      case 'CANCELED':
        ex.state = 'CANCELED';
        this.maybeRedeploy();
        return;
      case 'FAILED':
        this.handleTaskFailure(ex, update.error ?? 'task failed');
        return;
      default:
        return;
    }
  }

  /**
   * The TaskExecutor reports `to` for an attempt in a state it cannot come from (Execution.switchTo):
   * the task is cancelled and the attempt fails, which fails its region over.
   */
  private unexpectedTransition(ex: Execution, to: string): void {
    if (ex.slot !== undefined) this.c.gateway(ex.slot.taskExecutor).cancelTask(ex.attemptId);
    this.handleTaskFailure(ex, `Concurrent unexpected state transition of task ${ex.attemptId} from ${ex.state} `
      + `(expected INITIALIZING) to ${to} while deployment was in progress.`);
  }

  /** A task attempt failed (reported, deployment failed, or its TaskManager was lost). */
  handleTaskFailure(ex: Execution, cause: string): void {
    this.applyTaskFailure(ex, cause);
    this.checkJobCanceled();
  }

  /**
   * Cancels the job (ExecutionGraph.cancel, from JobMaster.cancel): a RUNNING or RESTARTING job
   * goes CANCELLING, a pending restart is dropped, every attempt is cancelled, and the job is
   * CANCELED once every attempt is terminal. A job in any other status is left alone (a
   * finished or failed job stays so; a second cancel changes nothing).
   * @returns true when the job was cancelled now.
   */
  cancel(): boolean {
    const status = this.c.graph.jobStatus;
    if (status !== 'RUNNING' && status !== 'RESTARTING') return false;
    this.c.env.tracer.event('scheduler.cancel', { status });
    this.restart = undefined;
    this.pendingDeploy = [];
    this.c.graph.transitionState('CANCELLING');
    for (const v of this.c.graph.allVertices()) this.cancelExecution(v.current);
    this.checkJobCanceled();
    return true;
  }

  /** A CANCELLING job whose attempts are all terminal is CANCELED (ExecutionGraph.vertexFinished). */
  private checkJobCanceled(): void {
    if (this.c.graph.jobStatus !== 'CANCELLING') return;
    if (this.c.graph.allVertices().every((v) => isTerminal(v.current.state))) this.c.graph.transitionState('CANCELED');
  }

  private applyTaskFailure(ex: Execution, cause: string): void {
    if (isTerminal(ex.state) || ex.vertex.current !== ex) return;
    if (ex.state === 'CANCELING') {
      // Being cancelled anyway (its region is restarting): the attempt is simply gone now.
      ex.state = 'CANCELED';
      this.maybeRedeploy();
      return;
    }
    ex.state = 'FAILED';
    const failure = this.c.env.tracer.event('scheduler.taskFailed', { task: ex.attemptId, cause });
    this.c.attemptFailed(ex.vertex, cause);
    const status = this.c.graph.jobStatus;
    if (status !== 'RUNNING' && status !== 'RESTARTING') return;
    const region = this.regions.get(ex.vertex.name);
    const vertices = this.c.graph.allVertices().filter((v) => this.regions.get(v.name) === region);
    this.restartVertices(vertices, false, cause, failure);
  }

  /**
   * A global failure: every vertex restarts (failGlobal). An `unrecoverable` one (Flink's
   * ThrowableType.NonRecoverableError, such as StopWithSavepointStoppingException) restarts
   * nothing and is not counted by the restart strategy: the job fails for good
   * (ExecutionFailureHandler returns FailureHandlingResult.unrecoverable).
   */
  handleGlobalFailure(cause: string, unrecoverable = false): void {
    const status = this.c.graph.jobStatus;
    if (status !== 'RUNNING' && status !== 'RESTARTING') return;
    const failure = this.c.env.tracer.event('scheduler.globalFailure', { cause, ...(unrecoverable ? { unrecoverable } : {}) });
    if (unrecoverable) {
      this.failJob(cause, failure);
      return;
    }
    this.restartVertices(this.c.graph.allVertices(), true, cause, failure);
  }

  /** The job fails for good: every attempt is cancelled and the job is FAILED (failJob). */
  private failJob(cause: string, failure: EventRef): void {
    this.c.env.tracer.event('scheduler.unrecoverableFailure', { cause }, failure);
    this.restart = undefined;
    this.pendingDeploy = [];
    for (const v of this.c.graph.allVertices()) this.cancelExecution(v.current);
    this.c.graph.transitionState('FAILED');
  }

  /**
   * Restarts `vertices` after the failure recorded as event `failure` (the cause of the
   * `scheduler.restarting` event, and so of the redeploy and the restore: Tracer.ts).
   */
  private restartVertices(vertices: readonly ExecutionVertex[], global: boolean, cause: string, failure: EventRef): void {
    this.lastFailureTimestampUs = this.c.env.clock.nowUs();
    this.backoff.notifyFailure();
    if (!this.backoff.canRestart()) {
      this.c.env.tracer.event('scheduler.noMoreRestarts', { cause }, failure);
      for (const v of this.c.graph.allVertices()) this.cancelExecution(v.current);
      this.c.graph.transitionState('FAILED');
      return;
    }
    const notBeforeUs = this.c.env.clock.nowUs() + this.backoff.getBackoffTimeUs();
    const set = this.addVerticesToRestartPending(vertices, notBeforeUs, global);
    this.pendingDeploy = this.pendingDeploy.filter((v) => !set.has(v));
    // Caused by the failure, not by what the job status listeners did in between (aborts).
    const restarting = this.c.env.tracer.event('scheduler.restarting',
      { vertices: set.size, global, delayUs: this.backoff.getBackoffTimeUs() }, failure);
    if (this.restart !== undefined) this.restart.cause = restarting;
    for (const v of set) {
      this.notifyCoordinatorOfCancellation(v.current);
      this.cancelExecution(v.current);
    }
    this.armRestartTimer(notBeforeUs);
    this.maybeRedeploy();
  }

  /**
   * Adds `vertices` to the restart-pending ones (merged with a restart already pending) and moves
   * a RUNNING job to RESTARTING; a job already RESTARTING stays so. The job status listeners run
   * now, before the old attempts are cancelled, as in Flink: the checkpoint coordinator's
   * activator stops periodic checkpoints and aborts the pending ones while the attempts that
   * would ack them still run. @returns every vertex now waiting for its restart.
   */
  private addVerticesToRestartPending(vertices: readonly ExecutionVertex[], notBeforeUs: number,
    global: boolean): Set<ExecutionVertex> {
    const set = this.restart?.vertices ?? new Set<ExecutionVertex>();
    for (const v of vertices) set.add(v);
    this.restart = { vertices: set, notBeforeUs, global: global || (this.restart?.global ?? false), cause: NO_EVENT };
    if (this.c.graph.jobStatus === 'RUNNING') this.c.graph.transitionState('RESTARTING');
    return set;
  }

  /**
   * No vertex waits for its restart any more: a RESTARTING job is RUNNING again, before its
   * vertices are reset and restored (DefaultScheduler.restartTasks), so the activator starts
   * periodic checkpoints first and the restore then aborts whatever was triggered in between.
   */
  private removeVerticesFromRestartPending(): void {
    this.restart = undefined;
    if (this.c.graph.jobStatus === 'RESTARTING') this.c.graph.transitionState('RUNNING');
  }

  private armRestartTimer(atUs: number): void {
    if (this.restartTimerArmed) return;
    this.restartTimerArmed = true;
    this.c.main.schedule('restart-backoff', Math.max(0, atUs - this.c.env.clock.nowUs()), () => {
      this.restartTimerArmed = false;
      if (this.restart !== undefined && this.restart.notBeforeUs > this.c.env.clock.nowUs()) {
        this.armRestartTimer(this.restart.notBeforeUs);
      }
      this.maybeRedeploy();
    });
  }

  /**
   * A restart cancels `ex`: the coordinators of its vertex hear executionAttemptFailed for it,
   * unless it is FAILED, CANCELING or CANCELED (told already: a best effort against duplicates,
   * as in Flink). A job that fails for good cancels its attempts without this, as Flink's failJob.
   */
  private notifyCoordinatorOfCancellation(ex: Execution): void {
    if (ex.state === 'FAILED' || ex.state === 'CANCELING' || ex.state === 'CANCELED') return;
    this.c.attemptFailed(ex.vertex, null);
  }

  private cancelExecution(ex: Execution): void {
    if (isTerminal(ex.state)) return;
    if (ex.state === 'CREATED' || ex.state === 'SCHEDULED' || ex.slot === undefined) {
      ex.state = 'CANCELED';
      return;
    }
    ex.state = 'CANCELING';
    this.sendCancel(ex);
  }

  /** Cancel RPCs can be lost; resend until the attempt is terminal (Execution.sendCancelRpcCall). */
  private sendCancel(ex: Execution): void {
    if (ex.state !== 'CANCELING' || ex.slot === undefined) return;
    this.c.gateway(ex.slot.taskExecutor).cancelTask(ex.attemptId);
    this.c.main.schedule('cancel-retry', this.c.config.rpcTimeoutUs, () => this.sendCancel(ex));
  }

  private maybeRedeploy(): void {
    const r = this.restart;
    if (r === undefined || r.notBeforeUs > this.c.env.clock.nowUs()) return;
    // A job that failed for good while a restart was pending restarts nothing (Flink's restart
    // checks the job is still RESTARTING): its vertices stay cancelled.
    if (this.c.graph.jobStatus !== 'RUNNING' && this.c.graph.jobStatus !== 'RESTARTING') return;
    for (const v of r.vertices) if (!isTerminal(v.current.state)) return;
    // The redeploy (RUNNING again, the restore, the new attempts) is the failover's doing, even
    // when what let it go ahead now is the last old attempt ending.
    this.c.env.tracer.causedBy(r.cause);
    this.removeVerticesFromRestartPending();
    const vertices = this.c.graph.allVertices().filter((v) => r.vertices.has(v));
    for (const v of vertices) v.resetForNewExecution();
    const restores = this.c.beforeRedeploy(vertices, r.global);
    for (const v of vertices) {
      const restore = restores?.get(v.name);
      if (restore === undefined) this.restores.delete(v.name);
      else this.restores.set(v.name, restore);
    }
    this.schedule(vertices);
  }

  private schedule(vertices: readonly ExecutionVertex[]): void {
    for (const v of vertices) v.current.state = 'SCHEDULED';
    this.pendingDeploy.push(...vertices);
    this.tryDeploy();
  }

  /**
   * Drops every shared slot whose physical slot has left the pool (a lost TaskManager, a slot its
   * TaskExecutor no longer reports, an allocation replaced). In Flink the pool removes the slots
   * first and then releases their payload, which removes the SharedSlot from the
   * SlotSharingExecutionSlotAllocator (DefaultDeclarativeSlotPool.releaseSlots,
   * SharedSlot.release); restarted executions then allocate anew from the pool. Done here, at
   * allocation time, it holds whatever order the JobMaster reports the loss and the failures in,
   * and for a restart whose backoff was already running when the slots went.
   */
  private forgetReleasedSharedSlots(): void {
    const pooled = this.c.slotPool.all();
    for (const [i, s] of [...this.sharedSlots]) if (!pooled.includes(s)) this.sharedSlots.delete(i);
  }

  private tryDeploy(): void {
    this.forgetReleasedSharedSlots();
    if (this.pendingDeploy.length === 0) return;
    const needed = Math.max(...this.c.graph.jobGraph.vertices.map((v) => v.parallelism));
    this.c.declareRequiredSlots(needed);
    const free = this.c.slotPool.all().filter((s) => ![...this.sharedSlots.values()].includes(s));
    for (const v of this.pendingDeploy) {
      if (this.sharedSlots.has(v.subtask)) continue;
      const s = free.shift();
      if (s === undefined) return; // wait for more slots
      this.sharedSlots.set(v.subtask, s);
    }
    const batch = this.pendingDeploy;
    this.pendingDeploy = [];
    for (const v of batch) v.current.slot = this.sharedSlots.get(v.subtask);
    for (const v of batch) this.deploy(v);
  }

  private deploy(v: ExecutionVertex): void {
    const ex = v.current;
    const slot = ex.slot;
    if (slot === undefined) return;
    ex.state = 'DEPLOYING';
    const tdd = this.descriptor(v, slot);
    this.c.env.tracer.event('scheduler.deploy', { task: ex.attemptId, taskExecutor: slot.taskExecutor });
    this.c.gateway(slot.taskExecutor).submitTask(tdd).whenCompleteAsync(this.c.main, 'deploy-result', (_r, err) => {
      if (err !== undefined) this.handleTaskFailure(ex, `deployment failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  private descriptor(v: ExecutionVertex, slot: AllocatedSlot): TaskDeploymentDescriptor {
    const g = this.c.graph;
    const jg = g.jobGraph;
    const inputGates: InputGateDescriptor[] = inputsOf(jg, v.jobVertex.id).map((e) => {
      const producers = g.vertices[jg.vertices.findIndex((x) => x.id === e.source)] ?? [];
      const forward = e.partitioner === 'forward';
      const channels = (forward ? producers.filter((p) => p.subtask === v.subtask) : producers).map((p) => ({
        partitionId: partitionIdOf(e.index, p.current.attemptId),
        subpartition: forward ? 0 : v.subtask,
        producerHost: p.current.slot?.host ?? slot.host,
      }));
      return { edgeIndex: e.index, channels };
    });
    const producedPartitions: ResultPartitionDescriptor[] = outputsOf(jg, v.jobVertex.id).map((e) => {
      const target = jg.vertices.find((x) => x.id === e.target);
      return {
        edgeIndex: e.index,
        partitionId: partitionIdOf(e.index, v.current.attemptId),
        numSubpartitions: e.partitioner === 'forward' ? 1 : (target?.parallelism ?? 1),
        numTargetKeyGroups: g.maxParallelismOf(e.target),
      };
    });
    const cp = jg.checkpointing;
    const restore = this.restores.get(v.name);
    return {
      jobGraph: jg,
      jobRun: this.c.run.index,
      jobMasterAddress: this.c.run.address,
      checkpointStoragePrefix: this.c.run.storagePrefix,
      vertexId: v.jobVertex.id,
      subtaskIndex: v.subtask,
      attemptNumber: v.current.attemptNumber,
      attemptId: v.current.attemptId,
      maxParallelism: g.maxParallelismOf(v.jobVertex.id),
      slotIndex: slot.slotIndex,
      allocationId: slot.allocationId,
      inputGates,
      producedPartitions,
      checkpointingEnabled: cp !== undefined,
      ...(cp === undefined ? {} : {
        checkpointing: {
          mode: cp.mode, maxConcurrent: cp.maxConcurrent, checkpointsAfterTasksFinish: cp.checkpointsAfterTasksFinish,
        },
      }),
      ...(restore === undefined ? {} : { restore }),
    };
  }

  checkInvariants(): void {
    const status = this.c.graph.jobStatus;
    if (status !== 'RUNNING' && status !== 'RESTARTING') return;
    assert((status === 'RESTARTING') === (this.restart !== undefined),
      () => `job ${status} with ${this.restart === undefined ? 'no' : 'a'} restart pending`);
  }

  private checkJobFinished(): void {
    // Only a RUNNING job finishes (ExecutionGraph.jobFinished: RUNNING -> FINISHED).
    if (this.c.graph.jobStatus !== 'RUNNING') return;
    if (this.c.graph.allVertices().every((v) => v.current.state === 'FINISHED')) {
      this.c.graph.transitionState('FINISHED');
    }
  }
}
