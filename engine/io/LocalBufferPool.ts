/**
 * The bounded pool of network buffers of one ResultPartition. It only counts: a buffer is taken
 * when a subpartition starts a new BufferBuilder and given back once the finished buffer has
 * been transmitted over the connection (or discarded on release). Events are not pooled, as in
 * Flink, where they are serialized into unpooled buffers.
 *
 * When every pooled buffer is in use the pool is unavailable: the task must stop processing
 * input (its mailbox suspends the default action) until a buffer comes back, which is how back
 * pressure reaches the sources. Because one input record may produce several outputs (flatMap,
 * broadcast), the buffers a record needs beyond the pool are taken as overdraft buffers, as in
 * Flink's FLIP-227; availability stays false until usage drops below the pool size again.
 *
 * @see org.apache.flink.runtime.io.network.buffer.LocalBufferPool
 *
 * A listener learns when the pool became available (the recycle that freed a buffer, Flink's
 * availability future completing), which can be earlier than when its task runs: the task
 * measures its back-pressured time up to that moment, as Flink's StreamTask stops its
 * soft-back-pressure timer when the record writer's availability future completes.
 *
 * Invariants: 0 <= buffersInUse <= poolSize + maxOverdraftBuffers; the availability listeners
 * are only pending while the pool is unavailable; each listener runs once, as a task on the
 * pool's executor.
 */
import type { Clock } from '../api/Clock.ts';
import type { Executor } from '../api/Executor.ts';
import { assert } from '../util/assert.ts';

/** Options of {@link LocalBufferPool}. */
export interface LocalBufferPoolOptions {
  /** The number of buffers that can be in use before the pool is unavailable. */
  readonly poolSize: number;
  /** Buffers that may be taken beyond `poolSize` while finishing the current record. */
  readonly maxOverdraftBuffers: number;
  /** The owning task's executor; availability listeners run there. */
  readonly executor: Executor;
  /** The host's clock, to tell listeners when the pool became available. */
  readonly clock: Clock;
}

/** Told, in a task of its own, the virtual µs at which the pool became available. */
export type AvailabilityListener = (availableAtUs: number) => void;

export class LocalBufferPool {
  readonly poolSize: number;
  readonly maxOverdraftBuffers: number;
  private readonly executor: Executor;
  private readonly clock: Clock;
  private inUse = 0;
  private peak = 0;
  private listeners: AvailabilityListener[] = [];
  private destroyed = false;

  constructor(options: LocalBufferPoolOptions) {
    assert(Number.isInteger(options.poolSize) && options.poolSize >= 1,
      `poolSize must be a positive integer, got ${options.poolSize}`);
    assert(options.maxOverdraftBuffers >= 0, 'maxOverdraftBuffers must not be negative');
    this.poolSize = options.poolSize;
    this.maxOverdraftBuffers = options.maxOverdraftBuffers;
    this.executor = options.executor;
    this.clock = options.clock;
  }

  /** Buffers currently taken (partial builders plus finished, untransmitted buffers). */
  get buffersInUse(): number {
    return this.inUse;
  }

  /** The highest {@link buffersInUse} seen so far. */
  get peakBuffersInUse(): number {
    return this.peak;
  }

  /** True while fewer than `poolSize` buffers are in use (Flink's AvailabilityProvider). */
  isAvailable(): boolean {
    return this.inUse < this.poolSize;
  }

  /**
   * Takes one buffer, as an overdraft buffer when the pool is exhausted. One input record can
   * emit more buffers than pool and overdraft hold (a flatMap with buffer timeout 0): Flink's
   * task thread would block inside the record until a buffer is free, which a run-to-completion
   * task cannot do, so the record finishes on extra buffers and the task stops before the next
   * one (availability is false). `overdrawn` counts how often that happened.
   * @throws AssertionError if the pool was destroyed.
   */
  requestBuffer(): void {
    assert(!this.destroyed, 'buffer requested from a destroyed pool');
    this.inUse++;
    if (this.inUse > this.poolSize + this.maxOverdraftBuffers) this.overdrawn++;
    if (this.inUse > this.peak) this.peak = this.inUse;
  }

  /** Buffers taken beyond pool and overdraft (see requestBuffer). */
  overdrawn = 0;

  /** Gives one buffer back; runs the availability listeners if the pool becomes available. */
  recycle(): void {
    assert(this.inUse > 0, 'recycled more buffers than were requested');
    this.inUse--;
    if (this.inUse === this.poolSize - 1 && this.listeners.length > 0) this.notifyAvailable();
  }

  /**
   * Runs `callback` once, as a task on the executor, when the pool is available: right away
   * (still as a task) if it is available now. It gets the time the pool became available (now,
   * if it already is).
   */
  onAvailable(callback: AvailabilityListener): void {
    if (this.destroyed) return;
    this.listeners.push(callback);
    if (this.isAvailable()) this.notifyAvailable();
  }

  /** Drops every listener and forgets the buffers in use (the partition was released). */
  destroy(): void {
    this.destroyed = true;
    this.listeners = [];
    this.inUse = 0;
  }

  /** @throws AssertionError when an invariant of the file header does not hold. */
  checkInvariants(): void {
    assert(this.inUse >= 0, 'negative buffers in use');
    assert(this.listeners.length === 0 || !this.isAvailable(),
      'availability listeners pending while the pool is available');
  }

  private notifyAvailable(): void {
    const listeners = this.listeners;
    this.listeners = [];
    const availableAtUs = this.clock.nowUs();
    for (const listener of listeners) {
      this.executor.execute('io.buffer-pool.available', () => {
        if (!this.destroyed) listener(availableAtUs);
      });
    }
  }
}
