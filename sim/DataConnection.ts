/**
 * DataConnection: one data-plane connection (a consumer's input channel to a producer's result
 * subpartition) with two lanes of the event queue: `down` (producer -> consumer: connected,
 * payloads, close) and `up` (consumer -> producer: the request, credits, upstream messages,
 * close). Each lane is FIFO: delivery time = max(previous delivery, now + latency).
 *
 * Invariants: once `broken`, both lanes are empty and out of the queue and nothing more is
 * handed to either end; each end learns of an error or close at most once (`done`).
 */
import type { ConsumerHandlers, Executor, HostId, ProducerHandlers } from '../engine/api/index.ts';
import { QueueEntry } from './EventQueue.ts';
import type { SimContext } from './SimContext.ts';
import type { SimHost } from './SimHost.ts';

/** One item travelling on a lane. */
export interface DataItem {
  dueUs: number;
  readonly kind: 'request' | 'connected' | 'not-found' | 'payload' | 'credit' | 'upstream' | 'close';
  readonly payload?: unknown;
  readonly priority?: boolean;
  readonly n?: number;
}

/** Where the lanes of a connection hand their items (the data network). */
export interface DataItemHandler {
  /** `item` arrived at the consumer's host. */
  onDown(c: DataConnection, item: DataItem): void;
  /** `item` arrived at the producer's host. */
  onUp(c: DataConnection, item: DataItem): void;
}

/**
 * A FIFO lane of one direction of a connection. Items in flight are `items[head..tail)`; a
 * drained lane starts again at slot 0 of the same array (consumed slots are cleared), so a lane
 * allocates no new array per burst of items.
 */
export class DataLane extends QueueEntry {
  private items: (DataItem | undefined)[] = [];
  /** The trace's current cause when each item was sent (Trace.ts, cause links). */
  private causes: number[] = [];
  private head = 0;
  private tail = 0;
  private lastDeliveryUs = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly connection: DataConnection,
    /** `up` (consumer -> producer) or `down`. */
    private readonly up: boolean,
    private readonly handler: DataItemHandler,
  ) {
    super();
  }

  /** `data:<key>#<connection id>:up|down`: one direction of one channel's connection. */
  laneKey(): string {
    return `data:${this.connection.key}#${this.connection.id}:${this.up ? 'up' : 'down'}`;
  }

  /** Queues `item` to arrive `latencyUs` from now, never before earlier items. */
  enqueue(item: DataItem, latencyUs: number): void {
    const due = Math.max(this.lastDeliveryUs, this.ctx.clock.nowUs + latencyUs);
    this.lastDeliveryUs = due;
    item.dueUs = due;
    if (this.tail < this.items.length) {
      this.items[this.tail] = item;
      this.causes[this.tail] = this.ctx.trace.cause;
    } else {
      this.items.push(item);
      this.causes.push(this.ctx.trace.cause);
    }
    this.tail++;
    if (this.heapIndex < 0) this.ctx.queue.push(this, due);
  }

  /** Drops everything in flight and leaves the queue. */
  clear(): void {
    this.ctx.queue.remove(this);
    this.items = [];
    this.causes = [];
    this.head = 0;
    this.tail = 0;
  }

  fire(): void {
    const items = this.items;
    const item = items[this.head] as DataItem;
    this.ctx.trace.cause = this.causes[this.head] as number;
    items[this.head] = undefined;
    this.head++;
    if (this.head === this.tail) {
      this.head = 0;
      this.tail = 0;
    } else {
      if (this.head >= 1024 && this.head * 2 >= this.tail) {
        this.items = items.slice(this.head, this.tail);
        this.causes = this.causes.slice(this.head, this.tail);
        this.tail -= this.head;
        this.head = 0;
      }
      this.ctx.queue.push(this, (this.items[this.head] as DataItem).dueUs);
    }
    if (this.up) this.handler.onUp(this.connection, item);
    else this.handler.onDown(this.connection, item);
  }
}

/** One end of a connection. */
export interface DataEnd<H> {
  host: SimHost;
  incarnation: number;
  executor: Executor | undefined;
  handlers: H | undefined;
  /** The end closed itself or learnt of an error/close: nothing more is handed to it. */
  done: boolean;
  /** The end closed itself (sending afterwards is a programmer error). */
  closedByMe: boolean;
}

export class DataConnection {
  state: 'connecting' | 'open' | 'ended' = 'connecting';
  credit = 0;
  broken = false;
  readonly consumer: DataEnd<ConsumerHandlers>;
  producer: DataEnd<ProducerHandlers> | undefined;
  readonly down: DataLane;
  readonly up: DataLane;
  readonly key: string;
  readonly producerHost: HostId;
  readonly initialCredit: number;

  constructor(
    ctx: SimContext,
    readonly id: number,
    spec: {
      readonly key: string;
      readonly producerHost: HostId;
      readonly consumerHost: SimHost;
      readonly executor: Executor;
      readonly initialCredit: number;
      readonly handlers: ConsumerHandlers;
    },
    handler: DataItemHandler,
  ) {
    this.key = spec.key;
    this.producerHost = spec.producerHost;
    this.initialCredit = spec.initialCredit;
    this.consumer = {
      host: spec.consumerHost, incarnation: spec.consumerHost.incarnation, executor: spec.executor,
      handlers: spec.handlers, done: false, closedByMe: false,
    };
    this.down = new DataLane(ctx, this, false, handler);
    this.up = new DataLane(ctx, this, true, handler);
  }

  /** True if `end` may still be handed something. */
  static reachable(c: DataConnection, end: DataEnd<unknown>): boolean {
    return !c.broken && !end.done && end.host.alive && end.host.incarnation === end.incarnation;
  }
}
