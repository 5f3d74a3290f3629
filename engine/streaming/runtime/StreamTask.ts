/**
 * StreamTask: runs one subtask's OperatorChain on its mailbox thread. Its default action either
 * pulls the next record from the source operator (source tasks) or takes the next record or
 * event from the input gates and pushes it through the chain; outputs go to the record writers.
 * Back pressure: while any output partition has no free buffer, the default action is suspended;
 * the wait is timed as Flink's back-pressured time (BackPressureTimer).
 *
 * The default action handles one input element per call; the mailbox runs calls lazily in
 * batches (see MailboxProcessor) as far as {@link StreamTask.lazyRecords} allows: the records
 * after the one just processed that could be processed late without anything outside the task
 * telling, all within one network buffer. Operators see each record's own virtual time (their
 * clock and processing-time service read the mailbox's), and processing-time timers fire on a
 * timer thread of their own that puts a mail (Flink's SystemProcessingTimeService), so a timer,
 * like any mail, is handled between the records in progress when it falls due.
 *
 * Checkpoints: sources are triggered by RPC (a mail); other tasks by barriers, which go to the
 * barrier handler (aligned or the at-least-once tracker); SubtaskCheckpointCoordinator performs
 * them. Notifications arrive as mails. With checkpointing on, a task whose input ended finishes
 * its operators, then waits for a checkpoint triggered after that to complete and be notified;
 * then its mailbox loop ends, and afterInvoke runs the mails still queued, waits for pending
 * checkpoints, emits EndOfPartition and turns it FINISHED (reference 5.7).
 *
 * Stop-with-savepoint (reference 5.6): a source task triggered for a synchronous savepoint first
 * stops its source (a mail): with drain (TERMINATE) the source's data ends as at the end of its
 * input and the operators finish before the snapshot; without (SUSPEND) it only stops, and the
 * task ends its data with the operators unfinished (StopMode NO_DRAIN), the snapshot being taken
 * right after the stop. Downstream tasks end their data the same way once EndOfData reached them
 * on every channel (drained only when every channel's said DRAIN). A task that performed the
 * synchronous savepoint waits for exactly its notification before it finishes; its abort makes
 * the task fail ("Stop-with-savepoint failed."), and nothing resends a lost one.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask, OneInputStreamTask,
 *      SourceOperatorStreamTask, org.apache.flink.streaming.runtime.io.StreamOneInputProcessor
 */
import { assert } from '../../util/assert.ts';
import type { EngineEnv } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { TaskIOMetricGroup } from '../../api/MetricGroups.ts';
import type { CheckpointBarrier, RuntimeEvent, StopMode } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointFailureReason } from '../../checkpoint/CheckpointFailureReason.ts';
import type { BarrierMetrics } from '../../checkpoint/CheckpointMetrics.ts';
import type { ClusterConfiguration } from '../../cluster/ClusterConfiguration.ts';
import type { CheckpointBarrierHandler } from '../../io/checkpointing/CheckpointBarrierHandler.ts';
import type { InputGate } from '../../io/InputGate.ts';
import type { NetworkBuffer } from '../../io/NetworkBuffer.ts';
import type { RecordWriter } from '../../io/RecordWriter.ts';
import type { ResultPartition } from '../../io/ResultPartition.ts';
import { vertexById, type JobVertex } from '../../jobgraph/JobGraph.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import type { OperatorSnapshot, Output, SourceStreamOperator } from '../operators/StreamOperator.ts';
import type { CheckpointResponder } from './CheckpointResponder.ts';
import { BackPressureTimer } from './BackPressureTimer.ts';
import { FinalCheckpointTracker } from './FinalCheckpointTracker.ts';
import { afterInvoke } from './afterInvoke.ts';
import { endData } from './endData.ts';
import { InputEndTracker } from './InputEndTracker.ts';
import { MailboxProcessor, MAX_PRIORITY } from './MailboxProcessor.ts';
import { OperatorChain } from './OperatorChain.ts';
import {
  createOperators, createTaskBarrierHandler, readOperatorStates, setUpInputs, setUpOutputs, timerRegistrar,
  type StreamTaskSetupContext,
} from './StreamTaskSetup.ts';
import { SubtaskCheckpointCoordinator } from './SubtaskCheckpointCoordinator.ts';

/** How the StreamTask talks back to its Task. */
export interface StreamTaskCallbacks {
  switchToInitializing(): void;
  switchToRunning(): void;
  /**
   * The task finished; `finalState` is its keyed operators' state at the end (for oracles), or
   * undefined when this attempt did not process the job's input (deployed as finished).
   */
  finished(finalState: readonly OperatorSnapshot[] | undefined): void;
  failed(error: unknown): void;
  sendEventToCoordinator(operatorUid: string, event: unknown): void;
  readonly responder: CheckpointResponder;
}

export class StreamTask {
  readonly mailbox: MailboxProcessor;
  private readonly vertex: JobVertex;
  private chain: OperatorChain | undefined;
  private partitions: ResultPartition[] = [];
  private writers: RecordWriter[] = [];
  private gates: InputGate[] = [];
  private current: { gate: InputGate; channel: number; records: readonly StreamRecord[]; next: number } | undefined;
  private readonly chainCostUs: number;
  private nextGate = 0;
  /** Input ended and the operators finished (endInput + finish). */
  private operatorsFinished = false;
  /** Every input gate delivered EndOfPartition on every channel (or there are none). */
  private inputsDrained = false;
  private finishedOnRestore = false;
  private finalState: OperatorSnapshot[] = [];
  /** The final checkpoint and the synchronous savepoint: when the task may finish. */
  private readonly finalCheckpoint = new FinalCheckpointTracker();
  /** Which input channels ended their data or partition (set up with the gates). */
  private inputEnds = new InputEndTracker([]);
  private running = false;
  private cleanedUp = false;
  private barrierHandler: CheckpointBarrierHandler | undefined;
  private readonly checkpointCoordinator: SubtaskCheckpointCoordinator;
  /**
   * Resumes the default action (an availability listener). One function for the task: an arrow
   * written inside the per-record methods would make each call allocate a closure context.
   */
  private readonly resumeMailbox = (): void => this.mailbox.resume();
  private readonly ioMetrics: TaskIOMetricGroup;
  private readonly backPressure: BackPressureTimer;
  /** An output had a free buffer again at `availableAtUs`: the wait ends then, and the task resumes. */
  private readonly resumeAfterBackPressure = (availableAtUs: number): void => {
    this.backPressure.bufferAvailable(availableAtUs);
    this.mailbox.resume();
  };

  constructor(
    private readonly env: EngineEnv,
    private readonly config: ClusterConfiguration,
    private readonly tdd: TaskDeploymentDescriptor,
    private readonly executor: Executor,
    private readonly callbacks: StreamTaskCallbacks,
  ) {
    this.vertex = vertexById(tdd.jobGraph, tdd.vertexId);
    this.chainCostUs = this.vertex.operators.reduce((sum, op) => sum + op.costUs, 0);
    this.mailbox = new MailboxProcessor(executor, (e) => callbacks.failed(e), () => env.clock.nowUs(), env.tracer);
    this.ioMetrics = env.metrics.taskIO(tdd.attemptId);
    this.backPressure = new BackPressureTimer(this.ioMetrics);
    this.checkpointCoordinator = new SubtaskCheckpointCoordinator({
      env,
      attemptId: tdd.attemptId,
      asyncExecutor: env.executors.get(`async/${tdd.attemptId}`),
      checkpointStoragePrefix: tdd.checkpointStoragePrefix,
      responder: callbacks.responder,
      maxConcurrentCheckpoints: tdd.checkpointing?.maxConcurrent ?? 1,
      broadcastEvent: (ev) => this.broadcastEvent(ev),
      acknowledgeToCoordinators: (id) => this.acknowledgeToCoordinators(id),
      isTaskRunning: () => this.running && !this.cleanedUp,
      isTaskFinished: () => this.operatorsFinished,
      isTaskDeployedAsFinished: () => this.finishedOnRestore,
    });
    env.invariants.register(`StreamTask ${tdd.attemptId}`, () => {
      this.mailbox.checkInvariants();
      this.checkpointCoordinator.checkInvariants();
      this.barrierHandler?.checkInvariants();
    });
  }

  /** Sets up the network, restores and opens the operators, then starts processing. */
  invoke(): void {
    this.callbacks.switchToInitializing();
    let restored: CompletableFuture<Map<string, unknown>>;
    try {
      const setup = this.setupContext();
      ({ partitions: this.partitions, writers: this.writers } = setUpOutputs(setup));
      this.gates = setUpInputs(setup);
      this.inputEnds = new InputEndTracker(this.gates);
      this.chain = new OperatorChain(createOperators(setup), this.tailOutput());
      this.barrierHandler = this.createBarrierHandler();
      restored = this.readRestoredState();
    } catch (e) {
      this.callbacks.failed(e);
      return;
    }
    restored.whenCompleteAsync(this.executor, 'task-restore', (states, error) => {
      if (this.cleanedUp) return;
      if (error !== undefined || states === undefined) {
        this.callbacks.failed(error ?? new Error('restore failed'));
        return;
      }
      this.startRunning(states);
    });
  }

  /** An OperatorEvent from the coordinator, handled as a mail. */
  dispatchOperatorEvent(operatorUid: string, event: unknown): void {
    this.mailbox.put({
      label: 'operator-event',
      run: () => this.chain?.operator(operatorUid)?.handleOperatorEvent(event),
    });
  }

  /**
   * A checkpoint triggered by RPC (sources; tasks whose inputs all finished), run as a mail
   * (StreamTask.triggerCheckpointAsync). With unfinished inputs the barrier goes to the barrier
   * handler for the channels still open, marked RPC-triggered so nothing is blocked.
   */
  triggerCheckpointAsync(barrier: CheckpointBarrier): void {
    // Flink's mailbox rejects the mail once the task is closing, and Task declines.
    if (!this.mailbox.acceptsMails) {
      this.decline(barrier.id, 'CHECKPOINT_DECLINED_TASK_CLOSING');
      return;
    }
    if (this.vertex.isSource && barrier.options.snapshotType === 'SYNC_SAVEPOINT') {
      this.triggerStopWithSavepointAsync(barrier);
      return;
    }
    this.putTriggerMail(barrier);
  }

  /**
   * SourceOperatorStreamTask.triggerStopWithSavepointAsync: a mail marks the synchronous savepoint
   * and stops the source (drain for TERMINATE); once the source's operators finished (at once
   * without drain, after the task ended its data with drain) the checkpoint is triggered as usual.
   */
  private triggerStopWithSavepointAsync(barrier: CheckpointBarrier): void {
    this.mailbox.put({
      label: 'stop-source-for-stop-with-savepoint',
      run: () => {
        this.finalCheckpoint.setSynchronousSavepoint(barrier.id);
        const mode: StopMode = barrier.options.postCheckpointAction === 'TERMINATE' ? 'DRAIN' : 'NO_DRAIN';
        this.env.tracer.event('task.stopSourceForSavepoint', { checkpointId: barrier.id, task: this.tdd.attemptId, mode });
        const source = this.chain?.head as SourceStreamOperator | undefined;
        if (this.operatorsFinished || mode === 'NO_DRAIN' || source === undefined) {
          source?.stop(mode);
          this.putTriggerMail(barrier);
          return;
        }
        this.afterSourceDrained = () => this.putTriggerMail(barrier);
        source.stop(mode);
      },
    });
  }

  /** Called once when a draining source's operators finished: the stop's checkpoint mail. */
  private afterSourceDrained: (() => void) | undefined;

  /** The synchronous savepoint this live task waits for, if any (FinalCheckpointTracker.waiting). */
  waitingForSynchronousSavepoint(): number | undefined {
    return this.cleanedUp ? undefined : this.finalCheckpoint.waiting();
  }

  private putTriggerMail(barrier: CheckpointBarrier): void {
    // Only a stop's mail run in afterInvoke's drain gets here with the mailbox closing: Flink's
    // trigger after the stop is rejected, and Task declines the failed future as TASK_FAILURE.
    if (!this.mailbox.acceptsMails) {
      this.decline(barrier.id, 'TASK_FAILURE');
      return;
    }
    this.mailbox.put({
      label: 'trigger-checkpoint',
      run: () => {
        this.env.tracer.event('checkpoint.taskTriggered', { checkpointId: barrier.id, task: this.tdd.attemptId });
        const handler = this.barrierHandler;
        if (handler === undefined || this.inputsDrained) {
          // An RPC-triggered checkpoint has no alignment; its start delay ends when this mail runs.
          this.performCheckpoint(barrier, {
            checkpointStartDelayUs: Math.max(0, this.env.clock.nowUs() - barrier.timestampUs),
            alignmentDurationUs: 0, bytesProcessedDuringAlignment: 0,
          });
          return;
        }
        for (const ch of this.inputEnds.openChannels()) handler.processBarrier(barrier, ch, true);
      },
    });
  }

  /** notifyCheckpointComplete as a MAX_PRIORITY mail (StreamTask.notifyCheckpointOperation). */
  notifyCheckpointCompleteAsync(checkpointId: number): void {
    this.mailbox.put({
      label: 'notify-checkpoint-complete',
      priority: MAX_PRIORITY,
      run: () => this.notifyCheckpointComplete(checkpointId),
    });
  }

  /**
   * notifyCheckpointSubsumed as a MAX_PRIORITY mail: forwarded to the operators, tail to head,
   * while the task runs. Unlike a completion it is not compared with the latest completed id,
   * and INVALID_CHECKPOINT_ID (-1, nothing subsumed) is forwarded too, as in Flink.
   */
  notifyCheckpointSubsumedAsync(checkpointId: number): void {
    this.mailbox.put({
      label: 'notify-checkpoint-subsumed',
      priority: MAX_PRIORITY,
      run: () => this.checkpointCoordinator.notifyCheckpointSubsumed(checkpointId, this.chain),
    });
  }

  /**
   * notifyCheckpointAborted as a MAX_PRIORITY mail; catches up on a lost completion first (2.2).
   */
  notifyCheckpointAbortAsync(checkpointId: number, latestCompletedId: number): void {
    this.mailbox.put({
      label: 'notify-checkpoint-aborted',
      priority: MAX_PRIORITY,
      run: () => {
        if (latestCompletedId > 0) this.notifyCheckpointComplete(latestCompletedId);
        this.env.tracer.event('checkpoint.taskNotifiedAborted',
          { checkpointId, task: this.tdd.attemptId });
        // The mail fails the task: its region restarts, as the stop failed (StreamTask).
        if (this.finalCheckpoint.isCurrentSyncSavepoint(checkpointId)) throw new Error('Stop-with-savepoint failed.');
        this.checkpointCoordinator.notifyCheckpointAborted(checkpointId);
        if (!this.finishedOnRestore) this.chain?.notifyCheckpointAborted(checkpointId);
      },
    });
  }

  /** Stops processing and releases everything; a finished task keeps its partitions. */
  cleanUp(finished = false): void {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    this.running = false;
    this.backPressure.stop(this.env.clock.nowUs());
    this.mailbox.close();
    this.checkpointCoordinator.close();
    this.barrierHandler?.close();
    try {
      this.chain?.close();
    } catch {
      // Closing after a failure or cancel is best effort, as in Flink's cleanup path.
    }
    for (const g of this.gates) g.close();
    if (!finished) for (const p of this.partitions) p.release();
  }

  private setupContext(): StreamTaskSetupContext {
    return {
      env: this.env,
      config: this.config,
      tdd: this.tdd,
      vertex: this.vertex,
      executor: this.executor,
      metrics: this.ioMetrics,
      processingTime: {
        nowUs: () => this.mailbox.currentTimeUs(),
        registerTimer: timerRegistrar(this.env, this.tdd.attemptId, this.mailbox),
      },
      fail: (e) => this.fail(e),
      sendEventToCoordinator: (uid, event) => this.callbacks.sendEventToCoordinator(uid, event),
    };
  }

  private createBarrierHandler(): CheckpointBarrierHandler | undefined {
    return createTaskBarrierHandler(this.env, this.tdd, this.gates, {
      triggerCheckpointOnBarrier: (barrier, metrics) => this.performCheckpoint(barrier, metrics),
      abortCheckpointOnBarrier: (id, reason) => {
        if (this.finalCheckpoint.isCurrentSyncSavepoint(id)) throw new Error('Stop-with-savepoint failed.');
        this.checkpointCoordinator.abortCheckpointOnBarrier(id, reason);
      },
    });
  }

  /** Reads the restored operator state files (the task fails if one is missing). */
  private readRestoredState(): CompletableFuture<Map<string, unknown>> {
    const restore = this.tdd.restore;
    if (restore === undefined) return CompletableFuture.completed(new Map());
    this.finalCheckpoint.latestReportCheckpointId = restore.restoreCheckpointId;
    this.env.tracer.mark('restore-from-checkpoint', { checkpointId: restore.restoreCheckpointId, task: this.tdd.attemptId });
    if (restore.taskStateSnapshot.isTaskDeployedAsFinished) {
      this.finishedOnRestore = true;
      return CompletableFuture.completed(new Map());
    }
    return readOperatorStates(this.env, restore, this.executor);
  }

  private startRunning(states: Map<string, unknown>): void {
    const chain = this.chain;
    if (chain === undefined) return;
    try {
      if (!this.finishedOnRestore) chain.initializeStateAndOpen((uid) => states.get(uid));
    } catch (e) {
      this.callbacks.failed(e);
      return;
    }
    this.running = true;
    this.callbacks.switchToRunning();
    if (this.finishedOnRestore) {
      // Deployed as finished (FLIP-147): no operators, no records; it ends like a finished task.
      this.operatorsFinished = true;
      for (const p of this.partitions) p.broadcastEvent({ type: 'end-of-data', stopMode: 'DRAIN' }, {});
      if (this.vertex.isSource || this.gates.length === 0) {
        this.inputsDrained = true;
        this.maybeFinishTask();
        return;
      }
      // With inputs it still takes part in checkpoints: barriers reach it through its input
      // gates (it is triggered by RPC only when no predecessor runs), and its upstream's
      // EndOfPartition drains them (Flink's FinishedOnRestoreInput).
    }
    this.mailbox.start(() => this.processInput(), {
      lazyCalls: () => this.lazyRecords(),
      // The flusher shares the thread: one that fell due during the batch flushes before the
      // next record, so the next batch starts with empty buffers (see lazyRecords).
      batchEnded: () => { for (const p of this.partitions) p.runOverdueFlusher(); },
    });
  }

  private fail(e: unknown): void {
    if (this.cleanedUp) return;
    this.callbacks.failed(e);
  }

  private decline(checkpointId: number, reason: CheckpointFailureReason): void {
    this.callbacks.responder.declineCheckpoint({ attemptId: this.tdd.attemptId, checkpointId, reason });
  }

  /**
   * How many records after the one just processed may be processed late, in one lazy batch
   * (MailboxProcessor): none once the operators finished; else at most the rest of one network
   * buffer, and only records whose processing nothing outside the task can tell the time of. A
   * source's next records must come from its current split without ending it (the record that
   * ends a split asks for another); a consumer's from its current buffer (the last of them hands
   * the buffer back when the batch ends, one record's cost after its own time, which spares a
   * second event per buffer); and every output must take them without finishing a buffer or
   * running out of buffers (exact when each operator emits at most one record per input, as
   * sources, maps and filters do).
   */
  private lazyRecords(): number {
    if (this.operatorsFinished) return 0;
    let n = this.config.recordsPerBuffer - 1;
    if (this.vertex.isSource) {
      const source = this.chain?.head as SourceStreamOperator | undefined;
      n = Math.min(n, source?.quietRecordsAhead() ?? 0);
    } else {
      const c = this.current;
      if (c === undefined) return 0;
      n = Math.min(n, c.records.length - c.next);
    }
    for (const w of this.writers) {
      if (n <= 0) return 0;
      n = Math.min(n, w.quietRecordCapacity());
    }
    return Math.max(0, n);
  }

  private tailOutput(): Output {
    const writers = this.writers;
    const only = writers.length === 1 ? writers[0] : undefined;
    // One writer (every edge but a side output fan-out): no loop per record.
    if (only !== undefined) return { collect: (r) => only.emit(r) };
    return { collect: (r) => { for (const w of writers) w.emit(r); } };
  }

  private outputsAvailable(): boolean {
    for (const p of this.partitions) {
      if (!p.isAvailable()) {
        // The record's own time: inside a lazy batch, earlier than the clock (MailboxProcessor).
        this.backPressure.start(this.mailbox.currentTimeUs());
        p.onAvailable(this.resumeAfterBackPressure);
        return false;
      }
    }
    return true;
  }

  /** The default action: one record (or event, or a buffer taken from a gate) per call. */
  private processInput(): number | 'suspend' | 'done' {
    const chain = this.chain;
    if (chain === undefined || this.inputsDrained) return 'done';
    if (!this.operatorsFinished && !this.outputsAvailable()) return 'suspend';
    if (this.vertex.isSource) return this.emitFromSource(chain);
    if (this.current !== undefined) {
      const c = this.current;
      const r = c.records[c.next++];
      if (c.next >= c.records.length) {
        c.gate.recycle(c.channel);
        this.current = undefined;
      }
      if (r !== undefined) {
        // Every upstream had ended its input before this subtask finished, so none can send
        // records to a task deployed as finished (Flink fails such a task too).
        if (this.finishedOnRestore) assert(false, `${this.tdd.attemptId} was deployed as finished and got a record`);
        chain.head.processElement(r);
      }
      return this.chainCostUs;
    }
    for (let k = 0; k < this.gates.length; k++) {
      const gi = (this.nextGate + k) % this.gates.length;
      const gate = this.gates[gi];
      const next = gate?.pollNext();
      if (gate === undefined || next === undefined) continue;
      this.nextGate = (gi + 1) % this.gates.length;
      this.handleBuffer(gi, next.channel, next.buffer);
      return 0;
    }
    if (this.gates.every((g) => g.isFinished())) {
      this.inputsDrained = true;
      if (!this.operatorsFinished) this.endData(chain, 'DRAIN');
      this.maybeFinishTask();
      return 'done';
    }
    for (const g of this.gates) g.onAvailable(this.resumeMailbox);
    return 'suspend';
  }

  private handleBuffer(gi: number, channel: number, buffer: NetworkBuffer): void {
    const gate = this.gates[gi];
    if (gate === undefined) return;
    if (buffer.kind === 'data') {
      this.barrierHandler?.addProcessedBytes(buffer.sizeBytes);
      if (buffer.records.length === 0) gate.recycle(channel);
      else this.current = { gate, channel, records: buffer.records, next: 0 };
      return;
    }
    const ev = buffer.event;
    const ch = { gate: gi, channel };
    switch (ev.type) {
      case 'barrier':
        if (this.barrierHandler !== undefined) this.barrierHandler.processBarrier(ev.barrier, ch, false);
        else if (gate.isBlocked(channel)) gate.resumeConsumption(channel);
        return;
      case 'cancel-checkpoint':
        this.barrierHandler?.processCancellationBarrier(ev.checkpointId, ch);
        return;
      case 'end-of-data': {
        const mode = this.inputEnds.endOfDataOn(ch, ev.stopMode);
        if (mode !== undefined && !this.operatorsFinished && this.chain !== undefined) this.endData(this.chain, mode);
        return;
      }
      case 'end-of-partition':
        this.inputEnds.endOfPartitionOn(ch);
        this.barrierHandler?.processEndOfPartition(ch);
        return;
    }
  }

  private emitFromSource(chain: OperatorChain): number | 'suspend' | 'done' {
    if (this.operatorsFinished) return 'done';
    const source = chain.head as SourceStreamOperator;
    const headOutput = chain.outputs[0];
    if (headOutput === undefined) return 'done';
    const status = source.emitNext(headOutput);
    if (status === 'MORE_AVAILABLE') return this.chainCostUs;
    if (status === 'NOTHING_AVAILABLE') {
      source.onAvailable(this.resumeMailbox);
      return 'suspend';
    }
    this.inputsDrained = true;
    this.endData(chain, status === 'STOPPED' ? 'NO_DRAIN' : 'DRAIN');
    const drained = this.afterSourceDrained;
    this.afterSourceDrained = undefined;
    drained?.();
    this.maybeFinishTask();
    return 'done';
  }

  /** The task's data ended (see endData): from now on its operators count as finished. */
  private endData(chain: OperatorChain, mode: StopMode): void {
    this.operatorsFinished = true;
    this.finalState = endData({
      chain, mode, vertex: this.vertex, partitions: this.partitions, tracer: this.env.tracer, attemptId: this.tdd.attemptId,
    });
  }

  /**
   * Ends the mailbox loop once the operators finished, the inputs drained and, with checkpointing
   * on, a checkpoint performed after finishing completed and was notified (reference 5.7), or, in
   * a stop-with-savepoint, the synchronous savepoint was (StreamTask.afterInvoke's termination
   * conditions); afterInvoke then finishes the task. Called again later, it changes nothing.
   */
  private maybeFinishTask(): void {
    if (!this.operatorsFinished || !this.inputsDrained || this.cleanedUp) return;
    const waits = this.tdd.checkpointingEnabled || this.finalCheckpoint.synchronousSavepoint !== undefined;
    if (waits && !this.finalCheckpoint.finalCheckpointCompleted) return;
    this.mailbox.allActionsCompleted(() => afterInvoke({
      mailbox: this.mailbox, executor: this.executor, checkpointCoordinator: this.checkpointCoordinator,
      partitions: this.partitions, checkpointsWithFinishedTasks: this.tdd.checkpointing?.checkpointsAfterTasksFinish ?? false,
      isCleanedUp: () => this.cleanedUp, stopRunning: () => { this.running = false; },
      // A task deployed as finished ran none of the job's input: it reports no final state, so
      // the harness keeps the attempt's that did finish the input.
      finished: () => this.callbacks.finished(this.finishedOnRestore ? undefined : this.finalState),
    }));
  }

  /** Performs a checkpoint (from a barrier or an RPC trigger); false if it could not. */
  private performCheckpoint(barrier: CheckpointBarrier, metrics: BarrierMetrics): void {
    const chain = this.chain;
    if (chain === undefined || !this.running || this.cleanedUp) {
      this.broadcastEvent({ type: 'cancel-checkpoint', checkpointId: barrier.id });
      this.decline(barrier.id, 'CHECKPOINT_DECLINED_TASK_NOT_READY');
      return;
    }
    if (barrier.options.snapshotType === 'SYNC_SAVEPOINT') this.finalCheckpoint.setSynchronousSavepoint(barrier.id);
    if (!this.checkpointCoordinator.checkpointState(barrier, chain, metrics)) return;
    this.finalCheckpoint.performedCheckpoint(barrier, this.operatorsFinished);
  }

  private notifyCheckpointComplete(checkpointId: number): void {
    const notified = this.finalCheckpoint.notified(checkpointId, this.running);
    if (notified === undefined) return;
    if (notified.skipped) this.env.tracer.mark('notify-complete-skipped', { checkpointId, task: this.tdd.attemptId });
    this.env.tracer.event('checkpoint.taskNotified', { checkpointId, task: this.tdd.attemptId });
    // Deployed as finished, the operators were never initialized: Flink's FinishedOperatorChain.
    if (!this.finishedOnRestore) this.chain?.notifyCheckpointComplete(checkpointId);
    this.maybeFinishTask();
  }

  private broadcastEvent(ev: RuntimeEvent): void {
    for (const p of this.partitions) p.broadcastEvent(ev, {});
  }

  private acknowledgeToCoordinators(checkpointId: number): void {
    for (const node of this.vertex.operators) {
      if (node.spec.kind !== 'source') continue;
      this.callbacks.sendEventToCoordinator(node.uid, { type: 'AcknowledgeCheckpointEvent', checkpointId });
    }
  }
}
