/**
 * One input channel of an InputGate: the consumer end of the connection to one remote
 * subpartition, with its queue of received buffers and its credit. The channel grants
 * `exclusiveCredit` credits when it connects and one more each time the task recycles a data
 * buffer, so the data it holds (queued, or taken by the task and not yet recycled) never exceeds
 * `exclusiveCredit`: that bound is what keeps buffers bounded and back-pressures the producer.
 *
 * A request that finds nothing served is retried with Flink's partition-request backoff
 * (initial, doubling, capped at the maximum; one more request at the maximum, then failure).
 *
 * A priority buffer (an unaligned barrier) is queued after earlier priority buffers and ahead of
 * the data, and remembers the data buffers it overtook.
 *
 * @see org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel,
 *      InputChannel#increaseBackoff
 *
 * Invariants: data received <= credit granted while connected; data held <= exclusiveCredit;
 * the first `numPriority` queue elements are the priority ones; a finished or closed channel
 * queues nothing; the channel is blocked only after handing out an aligned barrier and until
 * resumeConsumption.
 */
import type { ConsumerEnd, NetworkError } from '../api/DataNetwork.ts';
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Cancellable, Executor } from '../api/Executor.ts';
import type { HostId } from '../api/ids.ts';
import { isBlockingBarrier } from '../checkpoint/CheckpointBarrier.ts';
import { assert } from '../util/assert.ts';
import type { NetworkBuffer, UpstreamMessage } from './NetworkBuffer.ts';
import { subpartitionKey } from './NetworkBuffer.ts';
import { PartitionNotFoundException } from './PartitionNotFoundException.ts';

/** What a channel reports to its gate. */
export interface InputChannelListener {
  /** A buffer was queued; `priority` for an unaligned barrier. */
  onBufferQueued(channel: number, priority: boolean): void;
  /** The channel failed; nothing more arrives. */
  onChannelError(channel: number, error: Error): void;
}

/** Options of {@link InputChannel}. */
export interface InputChannelOptions {
  readonly env: EngineEnv;
  readonly executor: Executor;
  readonly index: number;
  readonly partitionId: string;
  readonly subpartition: number;
  readonly producerHost: HostId;
  readonly exclusiveCredit: number;
  readonly initialBackoffUs: number;
  readonly maxBackoffUs: number;
  readonly listener: InputChannelListener;
}

/** A queued buffer; a priority one carries the data buffers it overtook in this channel. */
export interface QueuedInput {
  readonly buffer: NetworkBuffer;
  readonly priority: boolean;
  readonly overtaken: readonly NetworkBuffer[];
}

type ChannelState = 'created' | 'requesting' | 'backoff' | 'connected' | 'finished' | 'closed'
  | 'failed';

const NONE: readonly NetworkBuffer[] = Object.freeze([]);

/** True for the buffers that overtake queued data: unaligned barriers. */
export function isPriorityBuffer(buffer: NetworkBuffer): boolean {
  return buffer.kind === 'event' && buffer.event.type === 'barrier' &&
    buffer.event.barrier.options.alignment === 'UNALIGNED';
}

export class InputChannel {
  readonly index: number;
  readonly partitionId: string;
  readonly subpartition: number;
  private readonly options: InputChannelOptions;
  private state: ChannelState = 'created';
  private end: ConsumerEnd | undefined;
  private attempt = 0;
  private currentBackoffUs = 0;
  private retryTimer: Cancellable | undefined;
  private readonly queue: QueuedInput[] = [];
  private numPriority = 0;
  private queuedData = 0;
  private creditGranted = 0;
  private dataReceived = 0;
  private dataPolled = 0;
  private dataRecycled = 0;
  private endOfPartitionReceived = false;
  private blocked = false;

  constructor(options: InputChannelOptions) {
    this.options = options;
    this.index = options.index;
    this.partitionId = options.partitionId;
    this.subpartition = options.subpartition;
  }

  /** True when a buffer is queued. */
  hasData(): boolean {
    return this.queue.length > 0;
  }

  /** True when the head of the queue is a priority buffer. */
  hasPriorityData(): boolean {
    return this.numPriority > 0;
  }

  /** True once the task has taken this channel's EndOfPartition. */
  isFinished(): boolean {
    return this.state === 'finished';
  }

  /** True between handing out an aligned barrier and {@link resumeConsumption}. */
  isBlocked(): boolean {
    return this.blocked;
  }

  /** The queued data buffers, in order (unconsumed in-flight data of this channel). */
  getQueuedDataBuffers(): NetworkBuffer[] {
    const out: NetworkBuffer[] = [];
    for (const q of this.queue) if (q.buffer.kind === 'data') out.push(q.buffer);
    return out;
  }

  /** Requests the subpartition from its producer (Flink's requestSubpartition). */
  requestSubpartition(): void {
    assert(this.state === 'created' || this.state === 'backoff', () =>
      `channel ${this.index} requested in state ${this.state}`);
    assert(this.dataReceived === 0, 'a channel that received data cannot request again');
    this.state = 'requesting';
    this.retryTimer = undefined;
    const attempt = ++this.attempt;
    const o = this.options;
    this.creditGranted = o.exclusiveCredit;
    this.end = o.env.network.connect({
      key: subpartitionKey(this.partitionId, this.subpartition),
      producerHost: o.producerHost,
      executor: o.executor,
      initialCredit: o.exclusiveCredit,
      handlers: {
        onConnected: () => {
          if (attempt === this.attempt && this.state === 'requesting') this.state = 'connected';
        },
        onPayload: (payload) => {
          if (attempt === this.attempt) this.onPayload(payload as NetworkBuffer);
        },
        onError: (error) => {
          if (attempt === this.attempt) this.onError(error);
        },
      },
    });
  }

  /** Takes the head of the queue; an EndOfPartition finishes the channel and closes it. */
  poll(): QueuedInput | undefined {
    const head = this.queue.shift();
    if (head === undefined) return undefined;
    if (head.priority) this.numPriority--;
    const buffer = head.buffer;
    if (buffer.kind === 'data') {
      this.queuedData--;
      this.dataPolled++;
    } else if (buffer.event.type === 'end-of-partition') {
      assert(this.queue.length === 0, 'buffers queued after EndOfPartition');
      this.state = 'finished';
      this.closeEnd();
    } else if (buffer.event.type === 'barrier' && isBlockingBarrier(buffer.event.barrier)) {
      this.blocked = true;
    }
    return head;
  }

  /**
   * Asks the producer to send again after an aligned barrier.
   * @throws AssertionError if the channel is not blocked.
   */
  resumeConsumption(): void {
    assert(this.blocked, () => `resumeConsumption on unblocked channel ${this.index}`);
    this.blocked = false;
    if (this.state === 'connected') {
      const message: UpstreamMessage = { type: 'resume-consumption' };
      (this.end as ConsumerEnd).sendUpstream(message);
    }
  }

  /**
   * The task is done with one data buffer of this channel: returns its credit to the producer.
   * @throws AssertionError if no data buffer of this channel is held by the task.
   */
  recycle(): void {
    // Per buffer: guarded, as a lazy-message arrow would allocate a closure per call.
    if (!(this.dataPolled > this.dataRecycled)) {
      assert(false, `channel ${this.index}: recycled a buffer the task does not hold`);
    }
    this.dataRecycled++;
    if (this.state === 'connected') {
      this.creditGranted++;
      (this.end as ConsumerEnd).grantCredit(1);
    }
  }

  /** Closes the connection and drops queued buffers; later callbacks are ignored. */
  close(): void {
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    if (this.state !== 'finished' && this.state !== 'failed') this.closeEnd();
    if (this.state !== 'finished') this.state = 'closed';
    this.attempt++;
    this.queue.length = 0;
    this.numPriority = 0;
    this.queuedData = 0;
  }

  /** @throws AssertionError when an invariant of the file header does not hold. */
  checkInvariants(): void {
    const o = this.options;
    if (this.state === 'connected') {
      assert(this.dataReceived <= this.creditGranted, () =>
        `channel ${this.index}: received ${this.dataReceived} data buffers with ` +
        `${this.creditGranted} credit`);
    }
    const held = this.queuedData + this.dataPolled - this.dataRecycled;
    assert(this.dataPolled >= this.dataRecycled, 'recycled more than polled');
    assert(held <= o.exclusiveCredit, () =>
      `channel ${this.index}: holds ${held} data buffers, exclusive credit ${o.exclusiveCredit}`);
    let data = 0;
    this.queue.forEach((q, i) => {
      assert(q.priority === i < this.numPriority, 'priority buffer out of place');
      if (q.buffer.kind === 'data') data++;
    });
    assert(data === this.queuedData, 'queued data count out of sync');
    assert(this.queue.length === 0 || this.state === 'connected' || this.state === 'requesting',
      () => `channel ${this.index} queues buffers in state ${this.state}`);
  }

  private onPayload(buffer: NetworkBuffer): void {
    if (this.state !== 'connected' && this.state !== 'requesting') return;
    assert(buffer.kind === 'data' || buffer.kind === 'event', 'payload is not a NetworkBuffer');
    assert(!this.endOfPartitionReceived, 'payload after EndOfPartition');
    if (buffer.kind === 'data') {
      this.dataReceived++;
      this.queuedData++;
      if (!(this.dataReceived <= this.creditGranted)) {
        assert(false, `channel ${this.index}: data buffer arrived without credit`);
      }
    } else if (buffer.event.type === 'end-of-partition') {
      this.endOfPartitionReceived = true;
    }
    const priority = isPriorityBuffer(buffer);
    if (priority) {
      const overtaken: NetworkBuffer[] = [];
      for (let i = this.numPriority; i < this.queue.length; i++) {
        const q = this.queue[i] as QueuedInput;
        if (q.buffer.kind === 'data') overtaken.push(q.buffer);
      }
      this.queue.splice(this.numPriority, 0, { buffer, priority, overtaken });
      this.numPriority++;
    } else {
      this.queue.push({ buffer, priority, overtaken: NONE });
    }
    this.options.listener.onBufferQueued(this.index, priority);
  }

  private onError(error: NetworkError): void {
    if (this.state === 'finished' || this.state === 'closed' || this.state === 'failed') return;
    // Everything up to EndOfPartition arrived: the producer releasing its partition is normal.
    if (this.endOfPartitionReceived) return;
    this.end = undefined;
    if (error.reason === 'not-found' && this.state === 'requesting') {
      if (this.increaseBackoff()) {
        this.state = 'backoff';
        this.options.env.tracer.event('io.gate.partition-request-retry', {
          partition: this.partitionId, subpartition: this.subpartition,
          backoffUs: this.currentBackoffUs,
        });
        // A fired timer whose task waits behind a busy executor can no longer be cancelled,
        // so the retry checks that the channel still waits for it (Flink's retrigger does
        // nothing once the gate is closed).
        this.retryTimer = this.options.executor.schedule('io.partition-request-retry',
          this.currentBackoffUs, () => {
            if (this.state === 'backoff') this.requestSubpartition();
          });
        return;
      }
      this.fail(new PartitionNotFoundException(this.partitionId, this.subpartition, this.attempt));
      return;
    }
    this.fail(error);
  }

  private fail(error: Error): void {
    this.state = 'failed';
    this.queue.length = 0;
    this.numPriority = 0;
    this.queuedData = 0;
    this.options.listener.onChannelError(this.index, error);
  }

  /** Flink's InputChannel#increaseBackoff: initial, then doubling up to the maximum. */
  private increaseBackoff(): boolean {
    const o = this.options;
    if (this.currentBackoffUs === 0) {
      this.currentBackoffUs = o.initialBackoffUs;
      return true;
    }
    if (this.currentBackoffUs < o.maxBackoffUs) {
      this.currentBackoffUs = Math.min(this.currentBackoffUs * 2, o.maxBackoffUs);
      return true;
    }
    return false;
  }

  private closeEnd(): void {
    const end = this.end;
    this.end = undefined;
    end?.close();
  }
}
