/**
 * StreamTask: runs one subtask's OperatorChain on its mailbox thread. Its default action either
 * pulls the next record from the source operator (source tasks) or takes the next record or
 * event from the input gates and pushes it through the chain; outputs go to the record writers.
 * Back pressure: while any output partition has no free buffer, the default action is suspended.
 *
 * The default action handles one input element per call; the mailbox may run it several times
 * in one step (a batch, see MailboxProcessor) while {@link StreamTask.canContinueBatch} allows:
 * a source task reads up to `recordsPerBuffer` records, a consumer task takes one network buffer
 * and its records; a batch never crosses an event, unavailable output, or a processing-time timer
 * falling due within the batch. The output flusher is not a bound: in Flink it is a thread of its
 * own, so it never waits for the task thread, and here it runs right after the batch.
 *
 * Checkpointing (barrier handling, SubtaskCheckpointCoordinator, the final checkpoint) hooks in
 * at the marked places in the checkpoint issue.
 *
 * @see org.apache.flink.streaming.runtime.tasks.StreamTask, OneInputStreamTask,
 *      SourceOperatorStreamTask, org.apache.flink.streaming.runtime.io.StreamOneInputProcessor
 */
import type { EngineEnv } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { ClusterConfiguration } from '../../cluster/ClusterConfiguration.ts';
import { InputGate } from '../../io/InputGate.ts';
import type { NetworkBuffer } from '../../io/NetworkBuffer.ts';
import { createChannelSelector } from '../../io/ChannelSelector.ts';
import { RecordWriter } from '../../io/RecordWriter.ts';
import { ResultPartition } from '../../io/ResultPartition.ts';
import { outputsOf, vertexById, type JobVertex } from '../../jobgraph/JobGraph.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { createOperator } from '../operators/OperatorFactory.ts';
import type {
  OperatorSnapshot, Output, SourceStreamOperator, StreamOperator, StreamOperatorContext,
} from '../operators/StreamOperator.ts';
import { MailboxProcessor } from './MailboxProcessor.ts';
import { OperatorChain } from './OperatorChain.ts';

/** The checkpoint id used for the final-state snapshot a finished task reports to oracles. */
export const FINAL_STATE_SNAPSHOT = -1;

/** How the StreamTask talks back to its Task. */
export interface StreamTaskCallbacks {
  switchToInitializing(): void;
  switchToRunning(): void;
  /** The task finished; `finalState` is its operators' state at the end (for oracles). */
  finished(finalState: readonly OperatorSnapshot[]): void;
  failed(error: unknown): void;
  sendEventToCoordinator(operatorUid: string, event: unknown): void;
}

export class StreamTask {
  readonly mailbox: MailboxProcessor;
  private readonly vertex: JobVertex;
  private chain: OperatorChain | undefined;
  private readonly partitions: ResultPartition[] = [];
  private readonly writers: RecordWriter[] = [];
  private readonly gates: InputGate[] = [];
  private current: { gate: InputGate; channel: number; records: readonly StreamRecord[]; next: number } | undefined;
  private readonly chainCostUs: number;
  private nextGate = 0;
  /** Due times (µs) of processing-time timers registered and not yet fired or cancelled. */
  private readonly pendingTimers = new Set<{ readonly dueUs: number }>();
  private ended = false;
  private cleanedUp = false;

  constructor(
    private readonly env: EngineEnv,
    private readonly config: ClusterConfiguration,
    private readonly tdd: TaskDeploymentDescriptor,
    private readonly executor: Executor,
    private readonly callbacks: StreamTaskCallbacks,
  ) {
    this.vertex = vertexById(tdd.jobGraph, tdd.vertexId);
    this.chainCostUs = this.vertex.operators.reduce((sum, op) => sum + op.costUs, 0);
    this.mailbox = new MailboxProcessor(executor, (e) => this.callbacks.failed(e),
      () => env.clock.nowUs());
    env.invariants.register(`StreamTask ${tdd.attemptId}`, () => this.mailbox.checkInvariants());
  }

  /** Sets up the network, creates and restores the operators and starts processing. */
  invoke(): void {
    this.callbacks.switchToInitializing();
    try {
      this.setUpOutputs();
      this.setUpInputs();
      this.chain = new OperatorChain(this.createOperators(), this.tailOutput());
      this.chain.initializeStateAndOpen(() => undefined);
    } catch (e) {
      this.callbacks.failed(e);
      return;
    }
    this.callbacks.switchToRunning();
    this.mailbox.start(() => this.processInput(), {
      // A consumer's batch is one buffer: its poll plus its records.
      maxActions: this.config.recordsPerBuffer + (this.vertex.isSource ? 0 : 1),
      canContinue: (busyUs) => this.canContinueBatch(busyUs),
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
   * Stops processing and releases everything; safe to call more than once. A finished task
   * keeps its result partitions so consumers can still read what is queued (Flink releases them
   * once consumed).
   */
  cleanUp(finished = false): void {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    this.mailbox.close();
    try {
      this.chain?.close();
    } catch {
      // Closing after a failure or cancel is best effort, as in Flink's cleanup path.
    }
    for (const g of this.gates) g.close();
    if (!finished) for (const p of this.partitions) p.release();
  }

  private fail(e: unknown): void {
    if (this.cleanedUp) return;
    this.callbacks.failed(e);
  }

  private setUpOutputs(): void {
    const outEdges = outputsOf(this.tdd.jobGraph, this.vertex.id);
    for (const pd of this.tdd.producedPartitions) {
      const edge = outEdges.find((e) => e.index === pd.edgeIndex);
      if (edge === undefined) throw new Error(`no output edge ${pd.edgeIndex}`);
      const target = vertexById(this.tdd.jobGraph, edge.target);
      const partition = new ResultPartition({
        env: this.env,
        partitionId: pd.partitionId,
        numSubpartitions: pd.numSubpartitions,
        executor: this.executor,
        recordsPerBuffer: this.config.recordsPerBuffer,
        bufferTimeoutUs: this.config.bufferTimeoutUs,
        poolSize: pd.numSubpartitions + this.config.floatingBuffersPerPartition,
        recordSizeBytes: this.config.recordSizeBytes,
        onError: (e) => this.fail(e),
      });
      partition.setup();
      this.partitions.push(partition);
      this.writers.push(new RecordWriter(partition, createChannelSelector({
        partitioner: edge.partitioner,
        numberOfChannels: pd.numSubpartitions,
        subtaskIndex: this.tdd.subtaskIndex,
        downstreamMaxParallelism: target.maxParallelism,
        ...(edge.keySelector === undefined ? {} : { keySelector: edge.keySelector }),
      })));
    }
  }

  private setUpInputs(): void {
    this.tdd.inputGates.forEach((gd, i) => {
      const gate = new InputGate({
        env: this.env,
        executor: this.executor,
        gateIndex: i,
        channels: gd.channels,
        exclusiveCredit: this.config.exclusiveBuffersPerChannel,
        onError: (e) => this.fail(e),
      });
      gate.setup();
      this.gates.push(gate);
    });
  }

  private createOperators(): StreamOperator[] {
    const inEdge = this.tdd.jobGraph.edges.find((e) => e.target === this.vertex.id);
    return this.vertex.operators.map((node, i) => {
      const ctx: StreamOperatorContext = {
        env: this.env,
        taskName: `${this.vertex.id}#${this.tdd.subtaskIndex}`,
        subtaskIndex: this.tdd.subtaskIndex,
        parallelism: this.vertex.parallelism,
        maxParallelism: node.maxParallelism,
        attemptNumber: this.tdd.attemptNumber,
        mailbox: this.executor,
        processingTime: {
          nowUs: () => this.env.clock.nowUs(),
          registerTimer: (timeUs, label, callback) => this.registerTimer(timeUs, label, callback),
        },
        eventGateway: { sendEventToCoordinator: (event) => this.callbacks.sendEventToCoordinator(node.uid, event) },
        failTask: (e) => this.fail(e),
      };
      const keySelector = i === 0 ? inEdge?.keySelector : undefined;
      return createOperator(node, ctx, {
        ...(keySelector === undefined ? {} : { inputKeySelector: keySelector }),
        checkpointingEnabled: this.tdd.checkpointingEnabled,
      });
    });
  }

  /** A processing-time timer: a mail at `timeUs`, remembered so batches stop before it. */
  private registerTimer(timeUs: number, label: string, callback: () => void): { cancel(): void } {
    const nowUs = this.env.clock.nowUs();
    const pending = { dueUs: Math.max(nowUs, timeUs) };
    this.pendingTimers.add(pending);
    const t = this.executor.schedule(label, pending.dueUs - nowUs, () => {
      this.pendingTimers.delete(pending);
      this.mailbox.put({ label, run: callback });
    });
    return {
      cancel: () => {
        this.pendingTimers.delete(pending);
        t.cancel();
      },
    };
  }

  /**
   * Whether the default action may run again in the current mailbox step, which has been busy
   * `busyUs` so far: only within the current buffer (consumer) or while the source has a record
   * ready, while every output is available, and while no processing-time timer falls due
   * before the batch would end. After a consumer's buffer, one more call is allowed when no
   * gate has anything: it only suspends the default action (the mailbox keeps the thread busy
   * for the batch's cost), which saves a step that would find nothing.
   */
  private canContinueBatch(busyUs: number): boolean {
    if (this.ended) return false;
    if (this.vertex.isSource) {
      if (!(this.chain?.head as SourceStreamOperator | undefined)?.hasRecordAvailable()) return false;
    } else if (this.current === undefined) {
      return this.gates.every((g) => !g.isAvailable() && !g.isFinished());
    }
    for (const p of this.partitions) if (!p.isAvailable()) return false;
    if (this.pendingTimers.size > 0) {
      const endUs = this.env.clock.nowUs() + busyUs;
      for (const t of this.pendingTimers) if (t.dueUs <= endUs) return false;
    }
    return true;
  }

  private tailOutput(): Output {
    const writers = this.writers;
    return { collect: (r) => { for (const w of writers) w.emit(r); } };
  }

  private outputsAvailable(): boolean {
    for (const p of this.partitions) {
      if (!p.isAvailable()) {
        p.onAvailable(() => this.mailbox.resume());
        return false;
      }
    }
    return true;
  }

  /** The default action: one record (or event, or a buffer taken from a gate) per call. */
  private processInput(): number | 'suspend' | 'done' {
    const chain = this.chain;
    if (chain === undefined || this.ended) return 'done';
    if (!this.outputsAvailable()) return 'suspend';
    if (this.vertex.isSource) return this.emitFromSource(chain);
    if (this.current !== undefined) {
      const c = this.current;
      const r = c.records[c.next++];
      if (c.next >= c.records.length) {
        c.gate.recycle(c.channel);
        this.current = undefined;
      }
      if (r !== undefined) chain.head.processElement(r);
      return this.chainCostUs;
    }
    for (let k = 0; k < this.gates.length; k++) {
      const gi = (this.nextGate + k) % this.gates.length;
      const gate = this.gates[gi];
      const next = gate?.pollNext();
      if (gate === undefined || next === undefined) continue;
      this.nextGate = (gi + 1) % this.gates.length;
      this.handleBuffer(gate, next.channel, next.buffer);
      return 0;
    }
    if (this.gates.every((g) => g.isFinished())) {
      this.endOfInput(chain);
      return 'done';
    }
    for (const g of this.gates) g.onAvailable(() => this.mailbox.resume());
    return 'suspend';
  }

  private handleBuffer(gate: InputGate, channel: number, buffer: NetworkBuffer): void {
    if (buffer.kind === 'data') {
      if (buffer.records.length === 0) gate.recycle(channel);
      else this.current = { gate, channel, records: buffer.records, next: 0 };
      return;
    }
    const ev = buffer.event;
    if (ev.type === 'barrier') {
      // Until checkpointing is built, a barrier only needs its channel resumed.
      gate.resumeConsumption(channel);
    }
  }

  private emitFromSource(chain: OperatorChain): number | 'suspend' | 'done' {
    const source = chain.head as SourceStreamOperator;
    const headOutput = chain.outputs[0];
    if (headOutput === undefined) return 'done';
    const status = source.emitNext(headOutput);
    if (status === 'MORE_AVAILABLE') return this.chainCostUs;
    if (status === 'NOTHING_AVAILABLE') {
      source.onAvailable(() => this.mailbox.resume());
      return 'suspend';
    }
    this.endOfInput(chain);
    return 'done';
  }

  /** All input has ended: finish the operators, then the outputs, then the task. */
  private endOfInput(chain: OperatorChain): void {
    this.ended = true;
    chain.endInputAndFinish();
    for (const p of this.partitions) p.broadcastEvent({ type: 'end-of-data' }, {});
    // Checkpoint issue: with checkpointing on, wait here for the final checkpoint (reference 5.7).
    for (const p of this.partitions) p.finish();
    // Only keyed operators: snapshotting a sink would pre-commit a transaction (a side effect).
    const finalState: OperatorSnapshot[] = [];
    chain.operators.forEach((op, i) => {
      if (this.vertex.operators[i]?.spec.kind !== 'keyedProcess') return;
      const snap = op.snapshotState(FINAL_STATE_SNAPSHOT);
      if (snap !== undefined) finalState.push(snap);
    });
    this.callbacks.finished(finalState);
  }
}
