/**
 * The input of one consumer subtask on one edge: one InputChannel per producer subpartition,
 * and the queue of channels with data that decides the order in which the task sees buffers.
 * Channels enter the queue in the order their data became available; `pollNext` takes the head
 * channel, pops one buffer and puts the channel back at the tail if it still has data. A channel
 * that receives a priority buffer (an unaligned barrier) moves to the priority section at the
 * front of the queue (behind channels that got priority earlier), and the buffer goes to the
 * front of its channel.
 *
 * The gate never blocks a channel itself: after an aligned barrier the producer stops sending
 * until the task calls {@link InputGate.resumeConsumption}. The task recycles every data buffer
 * it took ({@link InputGate.recycle}), which returns one credit to the producer.
 *
 * All callbacks run on the task's executor.
 *
 * @see org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate,
 *      org.apache.flink.runtime.io.network.partition.PrioritizedDeque
 *
 * Invariants: a channel is in the queue at most once, and exactly when it has queued buffers;
 * the first `numPriorityChannels` queued channels are exactly those whose head is a priority
 * buffer; the gate is finished exactly when every channel took its EndOfPartition; onError runs
 * at most once, never after close().
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import type { Executor } from '../api/Executor.ts';
import type { HostId } from '../api/ids.ts';
import { assert } from '../util/assert.ts';
import { InputChannel } from './InputChannel.ts';
import type { NetworkBuffer } from './NetworkBuffer.ts';

/** Where one channel of the gate reads from. */
export interface InputChannelDescriptor {
  readonly partitionId: string;
  readonly subpartition: number;
  readonly producerHost: HostId;
}

/** Options of {@link InputGate}. */
export interface InputGateOptions {
  readonly env: EngineEnv;
  /** The task's executor (its mailbox thread). */
  readonly executor: Executor;
  /** The index of this gate among the task's inputs. */
  readonly gateIndex: number;
  readonly channels: readonly InputChannelDescriptor[];
  /** Credits (buffers) per channel; default 2. */
  readonly exclusiveCredit?: number;
  /** First partition-request backoff, µs; default 1000. */
  readonly initialBackoffUs?: number;
  /** Largest partition-request backoff, µs; default 10000. */
  readonly maxBackoffUs?: number;
  /** Called once when a channel fails; the task should fail over. */
  readonly onError: (error: Error) => void;
}

/** One buffer taken from the gate (Flink's BufferOrEvent). */
export interface BufferOrEvent {
  /** The channel index within the gate. */
  readonly channel: number;
  readonly buffer: NetworkBuffer;
  /** For a priority buffer: the data buffers of its channel it overtook; otherwise empty. */
  readonly overtakenBuffers: readonly NetworkBuffer[];
  /** True when more buffers are available now. */
  readonly moreAvailable: boolean;
}

export class InputGate {
  readonly gateIndex: number;
  private readonly env: EngineEnv;
  private readonly executor: Executor;
  private readonly onErrorCallback: (error: Error) => void;
  private readonly channels: InputChannel[];
  /** Channel indexes with data; the first `numPriorityChannels` have priority buffers. */
  private readonly channelsWithData: number[] = [];
  private numPriorityChannels = 0;
  private numFinished = 0;
  private listeners: (() => void)[] = [];
  private state: 'created' | 'running' | 'failed' | 'closed' = 'created';
  private unregisterInvariants: (() => void) | undefined;

  constructor(options: InputGateOptions) {
    const exclusiveCredit = options.exclusiveCredit ?? 2;
    const initialBackoffUs = options.initialBackoffUs ?? 1000;
    const maxBackoffUs = options.maxBackoffUs ?? 10000;
    assert(options.channels.length > 0, 'an input gate needs at least one channel');
    assert(Number.isInteger(exclusiveCredit) && exclusiveCredit >= 1,
      `exclusiveCredit must be a positive integer, got ${exclusiveCredit}`);
    assert(initialBackoffUs > 0 && maxBackoffUs >= initialBackoffUs, 'invalid backoff');
    this.gateIndex = options.gateIndex;
    this.env = options.env;
    this.executor = options.executor;
    this.onErrorCallback = options.onError;
    const listener = {
      onBufferQueued: (channel: number, priority: boolean): void =>
        this.onBufferQueued(channel, priority),
      onChannelError: (channel: number, error: Error): void => this.onChannelError(channel, error),
    };
    this.channels = options.channels.map((c, index) => new InputChannel({
      env: options.env,
      executor: options.executor,
      index,
      partitionId: c.partitionId,
      subpartition: c.subpartition,
      producerHost: c.producerHost,
      exclusiveCredit,
      initialBackoffUs,
      maxBackoffUs,
      listener,
    }));
  }

  /** The number of input channels. */
  get numberOfChannels(): number {
    return this.channels.length;
  }

  /** Requests every channel's subpartition from its producer. Call once. */
  setup(): void {
    assert(this.state === 'created', `input gate ${this.gateIndex} set up twice`);
    this.state = 'running';
    for (const channel of this.channels) channel.requestSubpartition();
    this.unregisterInvariants = this.env.invariants.register(
      `InputGate ${this.executor.name}#${this.gateIndex}`, () => this.checkInvariants());
  }

  /**
   * Takes the next buffer in gate order, or undefined when none is available. Taking a
   * channel's EndOfPartition finishes that channel and closes its connection.
   * @see SingleInputGate#getNextBufferOrEvent
   */
  pollNext(): BufferOrEvent | undefined {
    if (this.state !== 'running') return undefined;
    const index = this.channelsWithData.shift();
    if (index === undefined) return undefined;
    if (this.numPriorityChannels > 0) this.numPriorityChannels--;
    const channel = this.channel(index);
    const input = channel.poll();
    // Per buffer: guarded, as a lazy-message arrow would allocate a closure per call.
    if (input === undefined) assert(false, `channel ${index} was queued without data`);
    if (channel.hasData()) this.queueChannel(index, channel.hasPriorityData());
    if (channel.isFinished()) {
      this.numFinished++;
      this.env.tracer.event('io.gate.channel-finished', {
        gate: this.gateIndex, channel: index, partition: channel.partitionId,
      });
    }
    return {
      channel: index,
      buffer: input.buffer,
      overtakenBuffers: input.overtaken,
      moreAvailable: this.channelsWithData.length > 0,
    };
  }

  /** True when {@link pollNext} would return a buffer. */
  isAvailable(): boolean {
    return this.state === 'running' && this.channelsWithData.length > 0;
  }

  /**
   * Runs `callback` once when a buffer is available: if one is available now, as a task on the
   * executor (never re-entrantly); otherwise inside the network task that queues the next buffer,
   * as Flink completes the gate's availability future on the thread that queued the channel.
   * Dropped if the gate closes first.
   */
  onAvailable(callback: () => void): void {
    if (this.state === 'closed' || this.state === 'failed') return;
    this.listeners.push(callback);
    if (this.isAvailable()) this.notifyAvailableLater();
  }

  /** Lets the producer of `channel` send again after the aligned barrier it delivered. */
  resumeConsumption(channel: number): void {
    this.channel(channel).resumeConsumption();
  }

  /** The task is done with a data buffer taken from `channel`: one credit goes back upstream. */
  recycle(channel: number): void {
    this.channel(channel).recycle();
  }

  /** True when `channel` delivered an aligned barrier and was not resumed yet. */
  isBlocked(channel: number): boolean {
    return this.channel(channel).isBlocked();
  }

  /** The data buffers still queued in `channel` (channel state for unaligned checkpoints). */
  getQueuedDataBuffers(channel: number): NetworkBuffer[] {
    return this.channel(channel).getQueuedDataBuffers();
  }

  /** True once the task took EndOfPartition from every channel. */
  isFinished(): boolean {
    return this.numFinished === this.channels.length;
  }

  /** Closes every channel; later network callbacks and errors are ignored. Idempotent. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    for (const channel of this.channels) channel.close();
    this.channelsWithData.length = 0;
    this.numPriorityChannels = 0;
    this.listeners = [];
    this.unregisterInvariants?.();
    this.unregisterInvariants = undefined;
  }

  /** @throws AssertionError when an invariant of the file header does not hold. */
  checkInvariants(): void {
    const seen = new Set<number>();
    this.channelsWithData.forEach((index, position) => {
      assert(!seen.has(index), () => `channel ${index} queued twice`);
      seen.add(index);
      const channel = this.channel(index);
      assert(channel.hasData(), () => `channel ${index} queued without data`);
      assert(channel.hasPriorityData() === position < this.numPriorityChannels,
        () => `channel ${index} in the wrong section of the queue`);
    });
    let finished = 0;
    for (const channel of this.channels) {
      channel.checkInvariants();
      if (this.state === 'running') {
        assert(channel.hasData() === seen.has(channel.index),
          () => `channel ${channel.index} has data but is not queued`);
      }
      if (channel.isFinished()) finished++;
    }
    assert(finished === this.numFinished, 'finished channel count out of sync');
    assert(this.listeners.length === 0 || !this.isAvailable(),
      'availability listeners pending while data is available');
  }

  private channel(index: number): InputChannel {
    const channel = this.channels[index];
    if (channel === undefined) assert(false, `no channel ${index} in gate ${this.gateIndex}`);
    return channel;
  }

  /** PrioritizedDeque#add / addPriorityElement for channel indexes. */
  private queueChannel(index: number, priority: boolean): void {
    const position = this.channelsWithData.indexOf(index);
    if (!priority) {
      if (position < 0) this.channelsWithData.push(index);
      return;
    }
    if (position >= 0 && position < this.numPriorityChannels) return;
    if (position >= 0) this.channelsWithData.splice(position, 1);
    this.channelsWithData.splice(this.numPriorityChannels, 0, index);
    this.numPriorityChannels++;
  }

  private onBufferQueued(channel: number, priority: boolean): void {
    if (this.state !== 'running') return;
    const wasAvailable = this.channelsWithData.length > 0;
    this.queueChannel(channel, priority);
    if (!wasAvailable && this.listeners.length > 0) this.notifyAvailableNow();
  }

  private onChannelError(channel: number, error: Error): void {
    if (this.state !== 'running') return;
    this.state = 'failed';
    this.listeners = [];
    this.channelsWithData.length = 0;
    this.numPriorityChannels = 0;
    this.env.tracer.event('io.gate.error', {
      gate: this.gateIndex, channel, error: error.name, message: error.message,
    });
    this.onErrorCallback(error);
  }

  private notifyAvailableLater(): void {
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      this.executor.execute('io.gate.available', () => {
        if (this.state === 'running') listener();
      });
    }
  }

  /**
   * Runs the listeners in the current task (a network callback on this gate's executor), which
   * saves the simulator an event per buffer; a listener that closes the gate stops the rest.
   */
  private notifyAvailableNow(): void {
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      if (this.state !== 'running') return;
      listener();
    }
  }
}
