/**
 * One deployed subtask attempt on a TaskExecutor: its execution state machine and its reports to
 * the JobMaster. The StreamTask it runs lives on the task's own mailbox thread.
 *
 * State machine: DEPLOYING -> INITIALIZING -> RUNNING -> FINISHED, and from any non-terminal
 * state CANCELING -> CANCELED or FAILED; a task that finishes while CANCELING ends CANCELED. Terminal states are reported until the JobMaster
 * acknowledges them (a lost report would otherwise leave the JobMaster waiting forever); a
 * failed report of a non-terminal state fails the task, as in Flink.
 *
 * @see org.apache.flink.runtime.taskmanager.Task
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { ExecutionAttemptId } from '../api/ids.ts';
import { NO_EVENT, type EventRef } from '../api/Tracer.ts';
import type { ClusterConfiguration } from '../cluster/ClusterConfiguration.ts';
import type { JobMasterGateway } from '../rpc/JobMasterGateway.ts';
import type { CheckpointOptions } from '../checkpoint/CheckpointBarrier.ts';
import type { OperatorSnapshot } from '../streaming/operators/StreamOperator.ts';
import { jobRunEnv } from '../jobmaster/JobRun.ts';
import { StreamTask } from '../streaming/runtime/StreamTask.ts';
import { assert } from '../util/assert.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import { isTerminal, type ExecutionState } from './ExecutionState.ts';
import type { TaskDeploymentDescriptor } from './TaskDeploymentDescriptor.ts';

export interface TaskServices {
  readonly jobMaster: JobMasterGateway;
  /** Called once when the task reached a terminal state and released its resources. */
  readonly onTerminal: (task: Task) => void;
}

export class Task {
  readonly attemptId: ExecutionAttemptId;
  private state: ExecutionState = 'DEPLOYING';
  private readonly mailbox: Executor;
  private readonly streamTask: StreamTask;
  /** The operators' state when the task finished (observed by the harness's oracles only). */
  finalState: readonly OperatorSnapshot[] | undefined;
  /** The trace event of its terminal state (task.finished, .canceled or .failed), once reached. */
  terminalEvent: EventRef = NO_EVENT;

  private readonly env: EngineEnv;

  /** @param hostEnv the TaskManager's environment; the task traces as part of its job run. */
  constructor(
    hostEnv: EngineEnv,
    private readonly config: ClusterConfiguration,
    readonly tdd: TaskDeploymentDescriptor,
    private readonly services: TaskServices,
  ) {
    this.env = jobRunEnv(hostEnv, tdd.jobRun);
    this.attemptId = tdd.attemptId;
    this.mailbox = this.env.executors.get(`mailbox/${tdd.attemptId}`);
    this.streamTask = new StreamTask(this.env, config, tdd, this.mailbox, {
      switchToInitializing: () => this.transition('INITIALIZING'),
      switchToRunning: () => this.transition('RUNNING'),
      finished: (finalState) => {
        this.finalState = finalState;
        // Canceled while it finished (the cancel's mail waited behind the one that finished it,
        // say a final checkpoint's notification): the cancel wins, as in Flink's Task.doRun,
        // where the failed RUNNING -> FINISHED transition ends the task CANCELED.
        this.terminate(this.state === 'CANCELING' ? 'CANCELED' : 'FINISHED');
      },
      failed: (e) => this.terminate('FAILED', e),
      // A lost event fails the task, as Flink's RpcTaskOperatorEventGateway does: the reader
      // would otherwise wait forever for the answer to a lost split request.
      sendEventToCoordinator: (uid, event) => {
        this.services.jobMaster.sendOperatorEventToCoordinator(this.attemptId, uid, event).whenComplete((_v, err) => {
          if (err !== undefined) this.failExternally(`an operator event to the coordinator of ${uid} was lost`);
        });
      },
      responder: {
        acknowledgeCheckpoint: (ack) => this.services.jobMaster.acknowledgeCheckpoint(ack),
        declineCheckpoint: (decline) => this.services.jobMaster.declineCheckpoint(decline),
      },
    });
  }

  get executionState(): ExecutionState {
    return this.state;
  }

  /** Deploys: reports DEPLOYING and starts the StreamTask on the mailbox thread. */
  start(): void {
    this.env.tracer.event('task.deploying', { task: this.attemptId });
    this.report('DEPLOYING');
    this.mailbox.execute('task-invoke', () => {
      if (this.state === 'DEPLOYING') this.streamTask.invoke();
    });
  }

  /** Cancels the task (TaskExecutor.cancelTask). */
  cancel(): void {
    if (isTerminal(this.state) || this.state === 'CANCELING') return;
    this.state = 'CANCELING';
    this.env.tracer.event('task.canceling', { task: this.attemptId });
    this.mailbox.execute('task-cancel', () => this.terminate('CANCELED'));
  }

  /** Fails the task from outside (its slot vanished, a report could not be sent). */
  failExternally(reason: string): void {
    if (isTerminal(this.state)) return;
    this.mailbox.execute('task-fail', () => this.terminate('FAILED', new Error(reason)));
  }

  /**
   * Task.triggerCheckpointBarrier: a task that is not RUNNING declines with
   * CHECKPOINT_DECLINED_TASK_NOT_READY; otherwise the StreamTask takes it as a mail.
   */
  triggerCheckpointBarrier(checkpointId: number, timestampUs: number, options: CheckpointOptions): void {
    if (this.state !== 'RUNNING') {
      this.services.jobMaster.declineCheckpoint({
        attemptId: this.attemptId, checkpointId, reason: 'CHECKPOINT_DECLINED_TASK_NOT_READY',
      });
      return;
    }
    this.streamTask.triggerCheckpointAsync({ id: checkpointId, timestampUs, options });
  }

  /** The synchronous savepoint a RUNNING task waits for (StreamTask.waitingForSynchronousSavepoint). */
  waitingForSynchronousSavepoint(): number | undefined {
    return this.state === 'RUNNING' ? this.streamTask.waitingForSynchronousSavepoint() : undefined;
  }

  /** Notifications are dropped unless the task is RUNNING (reference 2.1). */
  notifyCheckpointComplete(checkpointId: number): void {
    if (this.state === 'RUNNING') this.streamTask.notifyCheckpointCompleteAsync(checkpointId);
  }

  notifyCheckpointAborted(checkpointId: number, latestCompletedId: number): void {
    if (this.state === 'RUNNING') this.streamTask.notifyCheckpointAbortAsync(checkpointId, latestCompletedId);
  }

  notifyCheckpointSubsumed(checkpointId: number): void {
    if (this.state === 'RUNNING') this.streamTask.notifyCheckpointSubsumedAsync(checkpointId);
  }

  /** Hands an OperatorEvent to the task's mailbox; acknowledged once queued. */
  deliverOperatorEvent(operatorUid: string, event: unknown): CompletableFuture<void> {
    if (this.state !== 'RUNNING' && this.state !== 'INITIALIZING') {
      return CompletableFuture.failed(new Error(`task ${this.attemptId} is ${this.state}`));
    }
    this.streamTask.dispatchOperatorEvent(operatorUid, event);
    return CompletableFuture.completed<void>(undefined);
  }

  private transition(to: 'INITIALIZING' | 'RUNNING'): void {
    if (isTerminal(this.state) || this.state === 'CANCELING') return;
    this.state = to;
    this.env.tracer.event(to === 'RUNNING' ? 'task.running' : 'task.initializing', { task: this.attemptId });
    this.report(to);
  }

  private terminate(to: 'FINISHED' | 'CANCELED' | 'FAILED', error?: unknown): void {
    if (isTerminal(this.state)) return;
    assert(to !== 'FINISHED' || this.state === 'RUNNING', () => `task ${this.attemptId} finished from ${this.state}`);
    const message = error === undefined ? undefined : error instanceof Error ? error.message : String(error);
    this.state = to;
    this.streamTask.cleanUp(to === 'FINISHED');
    this.terminalEvent = this.env.tracer.event(`task.${to.toLowerCase()}`, message === undefined
      ? { task: this.attemptId } : { task: this.attemptId, error: message });
    this.services.onTerminal(this);
    this.report(to, message);
  }

  private report(state: ExecutionState, error?: string): void {
    const update = error === undefined ? { attemptId: this.attemptId, state } : { attemptId: this.attemptId, state, error };
    const main = this.env.executors.get('taskexecutor/main');
    this.services.jobMaster.updateTaskExecutionState(update).whenCompleteAsync(main, 'task-state-acked', (_v, err) => {
      if (err === undefined) return;
      if (isTerminal(state)) {
        // Keep telling the JobMaster until it hears it; it may have been cut off for a while.
        main.schedule('task-state-retry', this.config.rpcTimeoutUs, () => this.report(state, error));
      } else if (!isTerminal(this.state)) {
        this.failExternally(`could not report ${state} to the JobMaster`);
      }
    });
  }
}
