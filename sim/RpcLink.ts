/**
 * RpcLink: one direction of an RPC link (an ordered pair of endpoint addresses), a lane of the
 * event queue. Messages arrive in the order sent: each delivery time is
 * max(previous delivery on the link, send time + latency), and the link holds at most one heap
 * entry (its head message).
 */
import type { RpcAddress, RpcCall, RpcKind } from '../engine/api/index.ts';
import { QueueEntry } from './EventQueue.ts';
import type { Direction } from './Partitions.ts';
import type { SimContext } from './SimContext.ts';
import type { SimHost } from './SimHost.ts';
import { NO_CAUSE } from './Trace.ts';

/**
 * One message in flight: a tell, an ask, or the answer to an ask. A delivered tell or ask is
 * also the RpcCall its endpoint's handler gets.
 */
export interface RpcMessage extends RpcCall {
  /** Trace id, unique in the run (set when transmitted). */
  id: number;
  dueUs: number;
  readonly from: RpcAddress;
  readonly to: RpcAddress;
  readonly kind: RpcKind;
  readonly method: string;
  readonly args: readonly unknown[];
  readonly srcHost: SimHost;
  readonly srcIncarnation: number;
  /**
   * The partition direction source -> destination host at send (when the target was known) and
   * its epoch then; set when transmitted.
   */
  dir: Direction | undefined;
  epoch: number;
  /** 0 for a tell; the ask's id for an ask or an answer. */
  readonly askId: number;
  /** For answers: true if this is an answer, with its outcome. */
  readonly answer: boolean;
  readonly ok: boolean;
  readonly value: unknown;
  /** The `seq` of its `rpc.send` (the cause of its delivery or drop: Trace.ts, cause links). */
  cause: number;
}

/**
 * A link to the destination `target` (what the network keeps per destination address); `deliver`
 * gets each message with it when the message arrives.
 */
export class RpcLink<T> extends QueueEntry {
  private msgs: RpcMessage[] = [];
  private head = 0;
  private lastDeliveryUs = 0;
  /** What made the message due at {@link lastDeliveryUs} late (NO_CAUSE: nothing known). */
  private lastLateBy = NO_CAUSE;
  /** Cached partition direction for (srcHost, dstHost). */
  cachedSrc: SimHost | undefined;
  cachedDst: SimHost | undefined;
  cachedDir: Direction | undefined;

  constructor(
    private readonly ctx: SimContext,
    readonly target: T,
    private readonly deliver: (target: T, m: RpcMessage) => void,
    /** `rpc:<from address>-><to address>`: the link's name for a priority schedule. */
    private readonly lane = 'rpc',
  ) {
    super();
  }

  laneKey(): string {
    return this.lane;
  }

  /**
   * Queues `m` to arrive `latencyUs` from now, but never before earlier messages. `lateBy` is the
   * `seq` of what makes `m` late (a fault, a slow decision), or NO_CAUSE.
   * @returns when `m` is held behind an earlier message made late by something, that something's
   *   `seq` (it makes `m` late too); else NO_CAUSE.
   */
  enqueue(m: RpcMessage, latencyUs: number, lateBy: number = NO_CAUSE): number {
    const own = this.ctx.clock.nowUs + latencyUs;
    const held = this.lastDeliveryUs > own;
    const heldBy = held ? this.lastLateBy : NO_CAUSE;
    if (!held) this.lastLateBy = lateBy;
    const due = Math.max(this.lastDeliveryUs, own);
    this.lastDeliveryUs = due;
    m.dueUs = due;
    this.msgs.push(m);
    if (this.heapIndex < 0) this.ctx.queue.push(this, due);
    return heldBy;
  }

  fire(): void {
    const m = this.msgs[this.head] as RpcMessage;
    this.head++;
    if (this.head === this.msgs.length) {
      this.msgs = [];
      this.head = 0;
    } else {
      if (this.head >= 1024 && this.head * 2 >= this.msgs.length) {
        this.msgs = this.msgs.slice(this.head);
        this.head = 0;
      }
      this.ctx.queue.push(this, (this.msgs[this.head] as RpcMessage).dueUs);
    }
    this.deliver(this.target, m);
  }
}
