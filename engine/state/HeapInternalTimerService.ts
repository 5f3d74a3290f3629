/**
 * Processing-time timers kept in the keyed state. Timers live per key group in the backend's
 * copy-on-write store (so snapshots, rescale clipping and restore treat them like state); a
 * binary heap over all of them gives the next timer. Registering the same (timestamp, key,
 * namespace) twice keeps one timer. Scheduling the physical wake-up is the caller's job: it asks
 * {@link nextTimestampUs} and, when time comes, drains {@link poll} and fires each timer with its
 * key set as the current key.
 *
 * @see org.apache.flink.streaming.api.operators.InternalTimerServiceImpl
 * @see org.apache.flink.runtime.state.heap.HeapPriorityQueueSet
 * @see org.apache.flink.runtime.state.heap.KeyGroupPartitionedPriorityQueue
 *
 * Invariants: the heap holds every stored timer exactly once as a live item (plus stale items of
 * deleted timers, skipped lazily); timers pop by (timestamp, sequence number).
 */
import { assert } from '../util/assert.ts';
import { BinaryHeap } from './BinaryHeap.ts';
import type { CopyOnWriteKeyGroupStore } from './CopyOnWriteKeyGroupStore.ts';
import { VOID_NAMESPACE, compareScheduledTimers, timerId } from './InternalTimer.ts';
import type { InternalTimer, ScheduledTimer } from './InternalTimer.ts';
import type { KeyedStateContext } from './KeyedStateContext.ts';

interface HeapItem {
  readonly timer: ScheduledTimer;
  readonly keyGroup: number;
  readonly id: string;
}

/** A timer handed to the caller to fire, with its key group. */
export interface FiredTimer extends InternalTimer {
  readonly keyGroup: number;
}

/** Processing-time timer service of one heap keyed backend. */
export class HeapInternalTimerService {
  private readonly heap = new BinaryHeap<HeapItem>(
    (a, b) => compareScheduledTimers(a.timer, b.timer));
  private nextSeq = 0;
  private staleItems = 0;
  private liveTimers = 0;

  constructor(private readonly ctx: KeyedStateContext) {}

  private get store(): CopyOnWriteKeyGroupStore {
    return this.ctx.store;
  }

  /**
   * Registers a timer at `timestampUs` (virtual microseconds) for the current key; a duplicate
   * of an existing (timestamp, key, namespace) is ignored.
   */
  registerProcessingTimeTimer(timestampUs: number, namespace: string = VOID_NAMESPACE): void {
    assert(Number.isSafeInteger(timestampUs), () => `bad timer timestamp ${timestampUs}`);
    this.add(this.ctx.currentKeyGroup(), { timestampUs, key: this.ctx.currentKey(), namespace });
  }

  /** Deletes the current key's timer at `timestampUs` in `namespace`, if any. */
  deleteProcessingTimeTimer(timestampUs: number, namespace: string = VOID_NAMESPACE): void {
    const keyGroup = this.ctx.currentKeyGroup();
    const id = timerId(timestampUs, this.ctx.currentKey(), namespace);
    if (!this.store.timersOf(keyGroup).has(id)) {
      return;
    }
    this.store.removeTimer(keyGroup, id);
    this.liveTimers--;
    this.staleItems++;
    if (this.staleItems > 64 && this.staleItems > this.liveTimers) {
      this.heap.retain((item) => this.isLive(item));
      this.staleItems = 0;
    }
  }

  /** The earliest timer's timestamp in microseconds, or undefined when there is none. */
  nextTimestampUs(): number | undefined {
    return this.peekLive()?.timer.timestampUs;
  }

  /**
   * Removes and returns the earliest timer if it is due (`timestampUs <= nowUs`), else undefined.
   * The caller sets the timer's key as current before running user code.
   */
  poll(nowUs: number): FiredTimer | undefined {
    const item = this.peekLive();
    if (item === undefined || item.timer.timestampUs > nowUs) {
      return undefined;
    }
    this.heap.pop();
    this.store.removeTimer(item.keyGroup, item.id);
    this.liveTimers--;
    const { timestampUs, key, namespace } = item.timer;
    return { timestampUs, key, namespace, keyGroup: item.keyGroup };
  }

  /** Number of registered timers. */
  size(): number {
    return this.liveTimers;
  }

  /** Adds a timer restored from a snapshot into `keyGroup`; used by the backend's restore. */
  restoreTimer(keyGroup: number, timer: InternalTimer): void {
    this.add(keyGroup, timer);
  }

  /** Asserts that the heap and the stored timers agree. */
  checkInvariants(): void {
    this.heap.checkInvariants();
    let live = 0;
    for (const item of this.heap.toArray()) {
      if (this.isLive(item)) {
        live++;
      }
    }
    let stored = 0;
    for (const keyGroup of this.store.keyGroupsWithData()) {
      stored += this.store.timersOf(keyGroup).size;
    }
    assert(live === stored && stored === this.liveTimers,
      () => `timer heap has ${live} live items, store ${stored}, count ${this.liveTimers}`);
  }

  private add(keyGroup: number, timer: InternalTimer): void {
    const id = timerId(timer.timestampUs, timer.key, timer.namespace);
    if (this.store.timersOf(keyGroup).has(id)) {
      return;
    }
    const scheduled: ScheduledTimer = Object.freeze({
      timestampUs: timer.timestampUs, key: timer.key, namespace: timer.namespace,
      seq: this.nextSeq++,
    });
    this.store.putTimer(keyGroup, id, scheduled);
    this.heap.push({ timer: scheduled, keyGroup, id });
    this.liveTimers++;
  }

  private isLive(item: HeapItem): boolean {
    return this.store.timersOf(item.keyGroup).get(item.id) === item.timer;
  }

  private peekLive(): HeapItem | undefined {
    let item = this.heap.peek();
    while (item !== undefined && !this.isLive(item)) {
      this.heap.pop();
      this.staleItems--;
      item = this.heap.peek();
    }
    return item;
  }
}
