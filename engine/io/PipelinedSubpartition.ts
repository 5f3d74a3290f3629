/**
 * One subpartition of a ResultPartition: the queue of finished buffers and events for one
 * consumer, the partial buffer being filled (Flink's BufferBuilder), and the consumer's network
 * connection. It transmits whenever it can: a data buffer needs one credit, an event needs none
 * (events go to the port with `priority: true`, which there only means "no credit"); the order
 * of this queue is what keeps the stream FIFO, so an event never leaves ahead of earlier data
 * unless it is a priority (unaligned) event, which is queued ahead of the data on purpose.
 *
 * After transmitting an aligned barrier the subpartition is blocked and transmits nothing until
 * the consumer sends `resume-consumption` (Flink blocks upstream by the network, not in the
 * barrier handler).
 *
 * @see org.apache.flink.runtime.io.network.partition.PipelinedSubpartition
 *
 * Invariants: the first `numPriority` queue elements are priority events and no other element
 * is; nothing follows an EndOfPartition in the queue; one pooled buffer is held per queued data
 * buffer plus one while the partial buffer holds records; a finished subpartition has no
 * partial records; a released one holds nothing.
 */
import type { NetworkError, ProducerEnd } from '../api/DataNetwork.ts';
import type { RuntimeEvent } from '../checkpoint/CheckpointBarrier.ts';
import { isBlockingBarrier } from '../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import type { LocalBufferPool } from './LocalBufferPool.ts';
import type { NetworkBuffer, UpstreamMessage } from './NetworkBuffer.ts';

/** The size of a serialized event on the wire, bytes (a barrier with its options). */
export const EVENT_SIZE_BYTES = 32;

/** What the subpartition reports to its partition. */
export interface SubpartitionListener {
  /** The consumer's connection broke (not a close by the consumer). */
  onConnectionError(subpartition: number, error: NetworkError): void;
  /** A trace event of this subpartition (rare moments only). */
  trace(type: string, subpartition: number, attrs?: Record<string, string | number>): void;
}

/** Options of {@link PipelinedSubpartition}. */
export interface PipelinedSubpartitionOptions {
  readonly index: number;
  readonly pool: LocalBufferPool;
  readonly recordsPerBuffer: number;
  readonly recordSizeBytes: number;
  readonly listener: SubpartitionListener;
}

type QueuedBuffer = { readonly buffer: NetworkBuffer; readonly priority: boolean };

export class PipelinedSubpartition {
  readonly index: number;
  private readonly pool: LocalBufferPool;
  private readonly recordsPerBuffer: number;
  private readonly recordSizeBytes: number;
  private readonly listener: SubpartitionListener;

  private readonly queue: QueuedBuffer[] = [];
  private numPriority = 0;
  private numDataBuffers = 0;
  private partial: StreamRecord[] = [];
  private connection: ProducerEnd | undefined;
  private blocked = false;
  private finished = false;
  private released = false;
  private buffersSent = 0;

  constructor(options: PipelinedSubpartitionOptions) {
    this.index = options.index;
    this.pool = options.pool;
    this.recordsPerBuffer = options.recordsPerBuffer;
    this.recordSizeBytes = options.recordSizeBytes;
    this.listener = options.listener;
  }

  /** True after an aligned barrier was transmitted and before the consumer resumed. */
  isBlocked(): boolean {
    return this.blocked;
  }

  /** True when records wait in the partial buffer (the output flusher has work). */
  hasPartialRecords(): boolean {
    return this.partial.length > 0;
  }

  /** Records in the partial buffer. */
  get numberOfPartialRecords(): number {
    return this.partial.length;
  }

  /** Finished buffers and events waiting for transmission. */
  getNumberOfQueuedBuffers(): number {
    return this.queue.length;
  }

  /** Data buffers waiting for transmission (Flink's backlog). */
  getBuffersInBacklog(): number {
    return this.numDataBuffers;
  }

  /**
   * Appends `record` to the partial buffer, taking a pooled buffer when a new one starts, and
   * finishes the buffer when it holds `recordsPerBuffer` records or `flushNow` is set.
   */
  add(record: StreamRecord, flushNow: boolean): void {
    if (this.finished) assert(false, `record added to finished subpartition ${this.index}`);
    if (this.partial.length === 0) this.pool.requestBuffer();
    this.partial.push(record);
    if (flushNow || this.partial.length >= this.recordsPerBuffer) this.flush();
  }

  /** Finishes the partial buffer, if any, and transmits what credit allows. */
  flush(): void {
    if (this.partial.length === 0) return;
    const records = this.partial;
    this.partial = [];
    const buffer: NetworkBuffer = {
      kind: 'data', records, sizeBytes: records.length * this.recordSizeBytes,
    };
    this.queue.push({ buffer, priority: false });
    this.numDataBuffers++;
    this.transmit();
  }

  /**
   * Flushes the partial buffer and queues `event`. A priority event goes after earlier priority
   * events and ahead of every queued data buffer; the data buffers it overtakes are returned (in
   * queue order) for the channel state of an unaligned checkpoint. They stay queued and are
   * still transmitted after the event.
   */
  addEvent(event: RuntimeEvent, priority: boolean): NetworkBuffer[] {
    assert(!this.finished, () =>
      `event ${event.type} added to finished subpartition ${this.index}`);
    this.flush();
    const element: QueuedBuffer = {
      buffer: { kind: 'event', event, sizeBytes: EVENT_SIZE_BYTES }, priority,
    };
    const overtaken: NetworkBuffer[] = [];
    if (priority) {
      for (let i = this.numPriority; i < this.queue.length; i++) {
        const queued = this.queue[i];
        if (queued !== undefined && queued.buffer.kind === 'data') overtaken.push(queued.buffer);
      }
      this.queue.splice(this.numPriority, 0, element);
      this.numPriority++;
    } else {
      this.queue.push(element);
    }
    if (event.type === 'end-of-partition') this.finished = true;
    this.transmit();
    return overtaken;
  }

  /**
   * Takes the consumer connection of this subpartition. A second consumer while one is
   * connected is refused by closing its connection (pipelined subpartitions can be consumed
   * once); a connection that broke or was closed is replaced.
   */
  connect(end: ProducerEnd): void {
    if (this.released || this.connection !== undefined) {
      end.setHandlers({ onCredit: () => {}, onUpstream: () => {}, onError: () => {} });
      end.close();
      this.listener.trace('io.partition.connection-refused', this.index,
        { consumer: end.consumerHost });
      return;
    }
    this.connection = end;
    end.setHandlers({
      onCredit: () => {
        if (this.connection === end) this.transmit();
      },
      onUpstream: (message) => {
        if (this.connection === end) this.onUpstream(message as UpstreamMessage);
      },
      onError: (error) => {
        if (this.connection !== end) return;
        this.connection = undefined;
        if (error.reason === 'closed') {
          this.listener.trace('io.partition.consumer-closed', this.index);
        } else {
          this.listener.onConnectionError(this.index, error);
        }
      },
    });
    this.listener.trace('io.partition.consumer-connected', this.index,
      { consumer: end.consumerHost });
    this.transmit();
  }

  /** Discards every queued buffer and closes the connection; later calls do nothing. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const end = this.connection;
    this.connection = undefined;
    if (end !== undefined) end.close();
    this.queue.length = 0;
    this.numPriority = 0;
    this.numDataBuffers = 0;
    this.partial = [];
  }

  /** @throws AssertionError when an invariant of the file header does not hold. */
  checkInvariants(): void {
    assert(this.numPriority >= 0 && this.numPriority <= this.queue.length,
      'priority count out of range');
    let data = 0;
    this.queue.forEach((q, i) => {
      assert(q.priority === i < this.numPriority, () =>
        `subpartition ${this.index}: priority element out of place at ${i}`);
      if (q.buffer.kind === 'data') {
        data++;
        assert(q.buffer.records.length > 0, 'empty data buffer queued');
      } else if (q.buffer.event.type === 'end-of-partition') {
        assert(i === this.queue.length - 1, 'element queued after EndOfPartition');
      }
    });
    assert(data === this.numDataBuffers, 'data buffer count out of sync');
    assert(this.partial.length < this.recordsPerBuffer, 'partial buffer overfull');
    assert(!this.finished || this.partial.length === 0, 'finished subpartition has records');
    assert(!this.released || (this.queue.length === 0 && this.connection === undefined),
      'released subpartition holds buffers or a connection');
  }

  /** Pooled buffers this subpartition holds. */
  buffersHeld(): number {
    return this.numDataBuffers + (this.partial.length > 0 ? 1 : 0);
  }

  /** Buffers and events transmitted so far, over every connection. */
  getBuffersSent(): number {
    return this.buffersSent;
  }

  private onUpstream(message: UpstreamMessage): void {
    assert(message.type === 'resume-consumption', () =>
      `unknown upstream message ${JSON.stringify(message)}`);
    // Flink's PipelinedSubpartition.resumeConsumption: checkState(isBlocked).
    assert(this.blocked, () => `resume-consumption on unblocked subpartition ${this.index}`);
    this.blocked = false;
    this.listener.trace('io.partition.resumed', this.index);
    this.transmit();
  }

  /** Sends queued elements, in order, while connected, unblocked and (for data) credited. */
  private transmit(): void {
    const end = this.connection;
    if (end === undefined) return;
    while (!this.blocked && this.queue.length > 0) {
      const head = this.queue[0] as QueuedBuffer;
      const buffer = head.buffer;
      if (buffer.kind === 'data') {
        if (end.credit <= 0) return;
        this.queue.shift();
        this.numDataBuffers--;
        end.send(buffer, { sizeBytes: buffer.sizeBytes });
        this.pool.recycle();
      } else {
        this.queue.shift();
        if (head.priority) this.numPriority--;
        end.send(buffer, { priority: true, sizeBytes: buffer.sizeBytes });
        if (buffer.event.type === 'barrier' && isBlockingBarrier(buffer.event.barrier)) {
          this.blocked = true;
          this.listener.trace('io.partition.blocked', this.index,
            { checkpoint: buffer.event.barrier.id });
        }
      }
      this.buffersSent++;
      // A send may synchronously break the connection in some networks; stop if it did.
      if (this.connection !== end) return;
    }
  }
}
