/**
 * The output of one producer subtask on one edge: a pipelined result partition with one
 * subpartition per consumer channel, a bounded buffer pool, and the output flusher. Records are
 * batched into buffers of `recordsPerBuffer` records; a partial buffer is finished when it is
 * full, after every record when `bufferTimeoutUs` is 0, or else by the flusher, which runs on
 * the task's executor every `bufferTimeoutUs` while records are pending (a flush that fell due
 * while the thread was busy runs when the task ends that work, runOverdueFlusher).
 *
 * Every subpartition is served on the data network under `subpartitionKey(partitionId, i)`; a
 * consumer may connect before or after records are produced. All callbacks (connections, credit,
 * upstream messages, the flusher, availability listeners) run on the task's executor. A broken
 * connection fails the task (onError); a consumer closing its connection (it read
 * EndOfPartition, or it was cancelled) is not an error, and another consumer may then connect.
 *
 * @see org.apache.flink.runtime.io.network.partition.PipelinedResultPartition,
 *      BufferWritingResultPartition, org.apache.flink.streaming.runtime.tasks.StreamTask
 *      (OutputFlusher)
 *
 * Invariants: the pool's buffers in use equal the sum over subpartitions of queued data buffers
 * plus non-empty partial buffers; the flusher is scheduled only while the partition is live and
 * has a positive buffer timeout; nothing is queued after release(); onError runs at most once,
 * never after release().
 */
import type { NetworkError } from '../api/DataNetwork.ts';
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Cancellable, Executor } from '../api/Executor.ts';
import type { RuntimeEvent } from '../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import { LocalBufferPool, type AvailabilityListener } from './LocalBufferPool.ts';
import type { NetworkBuffer } from './NetworkBuffer.ts';
import { subpartitionKey } from './NetworkBuffer.ts';
import { PipelinedSubpartition } from './PipelinedSubpartition.ts';

/** Options of {@link ResultPartition}. */
export interface ResultPartitionOptions {
  readonly env: EngineEnv;
  /** Names the partition on the network, e.g. `<edge>/<producer subtask>@<attempt>`. */
  readonly partitionId: string;
  readonly numSubpartitions: number;
  /** The task's executor (its mailbox thread). */
  readonly executor: Executor;
  /** Records per network buffer (positive). */
  readonly recordsPerBuffer: number;
  /** Flush interval in virtual microseconds; 0 finishes the buffer after every record. */
  readonly bufferTimeoutUs: number;
  /** Pooled buffers; default `numSubpartitions + 8`. */
  readonly poolSize?: number;
  /** Overdraft buffers beyond the pool (FLIP-227); default `poolSize`. */
  readonly maxOverdraftBuffers?: number;
  /** The serialized size of one record, bytes. */
  readonly recordSizeBytes: number;
  /** Called once when a consumer connection breaks; the task should fail over. */
  readonly onError: (error: Error) => void;
}

/** Options of {@link ResultPartition.broadcastEvent}. */
export interface BroadcastEventOptions {
  /** An unaligned barrier: overtakes queued data buffers. Default false. */
  readonly priority?: boolean;
}

/** Per subpartition, the data buffers a priority event overtook, in queue order. */
export type OvertakenBuffers = readonly (readonly NetworkBuffer[])[];

export class ResultPartition {
  readonly partitionId: string;
  private readonly env: EngineEnv;
  private readonly executor: Executor;
  private readonly bufferTimeoutUs: number;
  private readonly recordsPerBuffer: number;
  private readonly onErrorCallback: (error: Error) => void;
  private readonly pool: LocalBufferPool;
  private readonly subpartitions: PipelinedSubpartition[] = [];
  private serveHandles: Cancellable[] = [];
  private flusher: Cancellable | undefined;
  private unregisterInvariants: (() => void) | undefined;
  private state: 'created' | 'running' | 'finished' | 'released' = 'created';
  private failed = false;
  private backpressureMarked = false;

  constructor(options: ResultPartitionOptions) {
    const n = options.numSubpartitions;
    assert(Number.isInteger(n) && n >= 1, `numSubpartitions must be positive, got ${n}`);
    assert(Number.isInteger(options.recordsPerBuffer) && options.recordsPerBuffer >= 1,
      `recordsPerBuffer must be a positive integer, got ${options.recordsPerBuffer}`);
    assert(Number.isInteger(options.bufferTimeoutUs) && options.bufferTimeoutUs >= 0,
      `bufferTimeoutUs must be a non-negative integer, got ${options.bufferTimeoutUs}`);
    assert(options.recordSizeBytes >= 0, 'recordSizeBytes must not be negative');
    this.partitionId = options.partitionId;
    this.env = options.env;
    this.executor = options.executor;
    this.bufferTimeoutUs = options.bufferTimeoutUs;
    this.recordsPerBuffer = options.recordsPerBuffer;
    this.onErrorCallback = options.onError;
    const poolSize = options.poolSize ?? n + 8;
    this.pool = new LocalBufferPool({
      poolSize,
      maxOverdraftBuffers: options.maxOverdraftBuffers ?? poolSize,
      executor: options.executor,
      clock: options.env.clock,
    });
    const listener = {
      onConnectionError: (i: number, e: NetworkError): void => this.onConnectionError(i, e),
      trace: (type: string, i: number, attrs?: Record<string, string | number>): void => {
        this.env.tracer.event(type, { partition: this.partitionId, subpartition: i, ...attrs });
      },
    };
    for (let i = 0; i < n; i++) {
      this.subpartitions.push(new PipelinedSubpartition({
        index: i,
        pool: this.pool,
        recordsPerBuffer: options.recordsPerBuffer,
        recordSizeBytes: options.recordSizeBytes,
        listener,
      }));
    }
  }

  /** The number of subpartitions (consumer channels). */
  get numberOfSubpartitions(): number {
    return this.subpartitions.length;
  }

  /** Pooled buffers in use: partial buffers plus finished buffers not yet transmitted. */
  get buffersInUse(): number {
    return this.pool.buffersInUse;
  }

  /** The most pooled buffers ever in use at once. */
  get peakBuffersInUse(): number {
    return this.pool.peakBuffersInUse;
  }

  /** The size of the buffer pool. */
  get poolSize(): number {
    return this.pool.poolSize;
  }

  /** Serves every subpartition on the data network. Call once, before emitting. */
  setup(): void {
    assert(this.state === 'created', () => `partition ${this.partitionId} set up twice`);
    this.state = 'running';
    this.serveHandles = this.subpartitions.map((sp) =>
      this.env.network.serve(subpartitionKey(this.partitionId, sp.index), this.executor,
        (end) => {
          if (this.state !== 'released') sp.connect(end);
          else end.close();
        }));
    this.unregisterInvariants = this.env.invariants.register(
      `ResultPartition ${this.partitionId}`, () => this.checkInvariants());
  }

  /** Appends `record` to subpartition `subpartition`. Ignored after release(). */
  emitRecord(record: StreamRecord, subpartition: number): void {
    if (this.state === 'released') return;
    if (this.state !== 'running') this.checkProducing();
    const sp = this.subpartitions[subpartition];
    if (sp === undefined) assert(false, `no subpartition ${subpartition} in ${this.partitionId}`);
    sp.add(record, this.bufferTimeoutUs === 0);
    this.afterEmit();
  }

  /** Appends `record` to every subpartition. Ignored after release(). */
  broadcastRecord(record: StreamRecord): void {
    if (this.state === 'released') return;
    this.checkProducing();
    const flushNow = this.bufferTimeoutUs === 0;
    for (const sp of this.subpartitions) sp.add(record, flushNow);
    this.afterEmit();
  }

  /**
   * Flushes every partial buffer, then queues `event` on every subpartition. An aligned barrier
   * blocks each subpartition once transmitted, until the consumer resumes consumption. With
   * `priority` (only for unaligned barriers) the event overtakes the queued data buffers.
   * @returns per subpartition the data buffers overtaken (all empty without `priority`).
   * @see BufferWritingResultPartition#broadcastEvent, PipelinedSubpartition#add
   */
  broadcastEvent(event: RuntimeEvent, options: BroadcastEventOptions = {}): OvertakenBuffers {
    const priority = options.priority ?? false;
    assert(event.type !== 'end-of-partition', 'use finish() to end the partition');
    const unaligned = event.type === 'barrier' && event.barrier.options.alignment === 'UNALIGNED';
    assert(!priority || unaligned,
      () => `only unaligned barriers are priority events, got ${JSON.stringify(event)}`);
    if (this.state === 'released') return this.subpartitions.map(() => []);
    this.checkProducing();
    const overtaken = this.subpartitions.map((sp) => sp.addEvent(event, priority));
    if (priority) {
      const count = overtaken.reduce((sum, list) => sum + list.length, 0);
      const checkpoint = event.type === 'barrier' ? event.barrier.id : -1;
      this.env.tracer.event('io.partition.priority-event',
        { partition: this.partitionId, checkpoint, overtaken: count });
      if (count > 0) this.env.tracer.mark('io.priority-event-overtook-data', { checkpoint });
    }
    return overtaken;
  }

  /** Finishes every partial buffer so it can be transmitted (Flink's flushAll). */
  flushAll(): void {
    if (this.state === 'released') return;
    for (const sp of this.subpartitions) sp.flush();
  }

  /**
   * How many more records can be emitted here, each adding at most one record to one
   * subpartition (to every one, with `broadcast`), while no buffer is finished (so nothing can
   * leave) and the pool stays available before each of them. The task's lazy batches (see
   * MailboxProcessor) process that many records late, where nobody can tell. 0 when every record
   * is flushed at once or the partition is not producing.
   */
  quietRecordCapacity(broadcast: boolean): number {
    if (this.bufferTimeoutUs === 0 || this.state !== 'running') return 0;
    const free = this.pool.poolSize - this.pool.buffersInUse;
    if (free <= 0) return 0;
    let fullest = 0;
    let empty = 0;
    for (const sp of this.subpartitions) {
      const n = sp.numberOfPartialRecords;
      if (n > fullest) fullest = n;
      if (n === 0) empty++;
    }
    const room = this.recordsPerBuffer - 1 - fullest;
    // Only a record into an empty partial buffer takes a pooled buffer: with fewer empty ones
    // than free buffers the pool cannot run out; else one record (broadcast: all at once) per
    // free buffer.
    if (empty < free) return room;
    return Math.min(room, broadcast ? 1 : free);
  }

  /**
   * Runs the output flusher now if its timer has fired while its flush still waits for the
   * task's thread, which it shares (the thread was busy with a batch of records, see
   * MailboxProcessor): the end of that work, before the next record, is when the thread would
   * first take it. The flush found queued later then does nothing.
   */
  runOverdueFlusher(): void {
    const timer = this.flusher;
    if (timer !== undefined && !timer.pending) this.flush();
  }

  /** False while the buffer pool is exhausted: the task must not process more input. */
  isAvailable(): boolean {
    return this.pool.isAvailable();
  }

  /**
   * Runs `callback` once, as a task on the executor, when the partition is available, with the
   * virtual µs at which it became so (see LocalBufferPool).
   */
  onAvailable(callback: AvailabilityListener): void {
    this.pool.onAvailable(callback);
  }

  /** Flushes and queues EndOfPartition on every subpartition; nothing may be emitted after. */
  finish(): void {
    if (this.state === 'released') return;
    this.checkProducing();
    for (const sp of this.subpartitions) sp.addEvent({ type: 'end-of-partition' }, false);
    this.state = 'finished';
    this.cancelFlusher();
    this.env.tracer.event('io.partition.finished', { partition: this.partitionId });
  }

  /** True after {@link finish}. */
  isFinished(): boolean {
    return this.state === 'finished';
  }

  /**
   * Stops serving, closes every connection and discards queued buffers. Idempotent. Errors of
   * the connections after this are ignored. A finished partition should be released only once
   * its consumers have read EndOfPartition, or on cancellation.
   */
  release(): void {
    if (this.state === 'released') return;
    this.state = 'released';
    for (const handle of this.serveHandles) handle.cancel();
    this.serveHandles = [];
    this.cancelFlusher();
    for (const sp of this.subpartitions) sp.release();
    this.pool.destroy();
    this.unregisterInvariants?.();
    this.unregisterInvariants = undefined;
    this.env.tracer.event('io.partition.released', { partition: this.partitionId });
  }

  /** True after {@link release}. */
  isReleased(): boolean {
    return this.state === 'released';
  }

  /** True when subpartition `i` transmitted an aligned barrier and was not resumed yet. */
  isBlocked(i: number): boolean {
    return this.subpartition(i).isBlocked();
  }

  /** Finished buffers and events waiting in subpartition `i`. */
  getNumberOfQueuedBuffers(i: number): number {
    return this.subpartition(i).getNumberOfQueuedBuffers();
  }

  /** Data buffers waiting for credit in subpartition `i` (Flink's backlog). */
  getBuffersInBacklog(i: number): number {
    return this.subpartition(i).getBuffersInBacklog();
  }

  /** Buffers and events subpartition `i` has transmitted. */
  getBuffersSent(i: number): number {
    return this.subpartition(i).getBuffersSent();
  }

  /** @throws AssertionError when an invariant of the file header does not hold. */
  checkInvariants(): void {
    let held = 0;
    for (const sp of this.subpartitions) {
      sp.checkInvariants();
      held += sp.buffersHeld();
    }
    this.pool.checkInvariants();
    assert(held === this.pool.buffersInUse, () =>
      `${this.partitionId}: subpartitions hold ${held} buffers, ` +
      `pool counts ${this.pool.buffersInUse}`);
    assert(this.flusher === undefined || (this.state === 'running' && this.bufferTimeoutUs > 0),
      'flusher scheduled on a partition that is not running');
    assert(this.state !== 'released' || held === 0, 'released partition holds buffers');
  }

  private subpartition(i: number): PipelinedSubpartition {
    const sp = this.subpartitions[i];
    assert(sp !== undefined, () => `no subpartition ${i} in ${this.partitionId}`);
    return sp;
  }

  private checkProducing(): void {
    assert(this.state === 'running', () =>
      `partition ${this.partitionId} is ${this.state}, not producing`);
  }

  private afterEmit(): void {
    if (this.bufferTimeoutUs > 0 && this.flusher === undefined) this.scheduleFlusher();
    if (!this.backpressureMarked && !this.pool.isAvailable()) {
      this.backpressureMarked = true;
      this.env.tracer.mark('io.partition.backpressured', { partition: this.partitionId });
    }
  }

  /**
   * The OutputFlusher: flushes every `bufferTimeoutUs` while records are pending, and stops
   * when a period passes with nothing pending so that an idle partition leaves no timers.
   */
  private scheduleFlusher(): void {
    const timer = this.executor.schedule('io.output-flusher', this.bufferTimeoutUs, () => {
      if (this.flusher === timer) this.flush();
    });
    this.flusher = timer;
  }

  private flush(): void {
    this.flusher = undefined;
    if (this.state !== 'running') return;
    if (this.subpartitions.some((sp) => sp.hasPartialRecords())) {
      this.flushAll();
      this.scheduleFlusher();
    }
  }

  private cancelFlusher(): void {
    this.flusher?.cancel();
    this.flusher = undefined;
  }

  private onConnectionError(subpartition: number, error: NetworkError): void {
    if (this.state === 'released' || this.failed) return;
    this.failed = true;
    this.env.tracer.event('io.partition.error',
      { partition: this.partitionId, subpartition, reason: error.reason });
    this.onErrorCallback(error);
  }
}
