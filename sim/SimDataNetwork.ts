/**
 * SimDataNetwork: the world's data plane (engine/api DataNetwork.ts), credit-based as Flink's
 * netty stack: FIFO per direction, a normal payload needs one credit, a priority payload none,
 * every item's latency a delay decision. A crash of either end's host or a partition between
 * the hosts (either direction) breaks the connection at once: every live end that has not closed
 * gets `onError('broken')` once, on its executor, and nothing more is delivered. Channel-event
 * faults (ChannelEventFaults.ts) may delay a checkpoint event a producer sends before the heal
 * time; the lane's FIFO order then holds what follows it on that channel behind it.
 *
 * @see org.apache.flink.runtime.io.network.netty.CreditBasedPartitionRequestClientHandler
 */
import { NetworkError, assert } from '../engine/api/index.ts';
import type {
  Cancellable, ConsumerEnd, ConsumerHandlers, DataNetwork, DelayDistribution, Executor, HostId,
  ProducerEnd, ProducerHandlers, SendOptions,
} from '../engine/api/index.ts';
import type { ChannelEventFaults } from './ChannelEventFaults.ts';
import { DataConnection } from './DataConnection.ts';
import type { DataEnd, DataItem, DataItemHandler } from './DataConnection.ts';
import type { Partitions } from './Partitions.ts';
import type { SimContext } from './SimContext.ts';
import { deliverTo } from './deliverTo.ts';
import type { SimHost } from './SimHost.ts';
import { NO_CAUSE } from './Trace.ts';

interface Server {
  readonly executor: Executor;
  readonly onConnect: (end: ProducerEnd) => void;
}

export class SimDataNetwork implements DataItemHandler {
  private readonly servers = new Map<string, Server>();
  private readonly live = new Map<number, DataConnection>();
  private nextId = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly deps: {
      readonly partitions: Partitions;
      readonly latency: DelayDistribution;
      readonly host: (id: HostId) => SimHost | undefined;
      /** Targeted faults on one channel's checkpoint events, armed by the fault plan. */
      readonly channelEvents?: ChannelEventFaults;
    },
  ) {}

  /** The DataNetwork port as seen from `host`'s current incarnation. */
  view(host: SimHost): DataNetwork {
    return {
      serve: (key, executor, onConnect) => this.serve(host, key, { executor, onConnect }),
      connect: (options) => this.connect(host, options),
    };
  }

  /** Breaks every connection with an end on `host` (it crashed). */
  onCrash(host: SimHost): void {
    // Each break is the crash's doing, not the previous break's (Trace.ts, cause links).
    const cause = this.ctx.trace.cause;
    for (const c of [...this.live.values()]) {
      if (c.consumer.host === host || c.producerHost === host.id) {
        this.ctx.trace.cause = cause;
        this.break(c);
      }
    }
  }

  /** Breaks every connection between hosts `a` and `b` (a partition started). */
  onPartition(a: string, b: string): void {
    const cause = this.ctx.trace.cause;
    for (const c of [...this.live.values()]) {
      const h = c.consumer.host.id;
      if ((h === a && c.producerHost === b) || (h === b && c.producerHost === a)) {
        this.ctx.trace.cause = cause;
        this.break(c);
      }
    }
  }

  private serve(host: SimHost, key: string, server: Server): Cancellable {
    const k = `${host.id}\u0000${key}`;
    this.servers.set(k, server);
    return new ServeRegistration(this.servers, k, server);
  }

  private connect(host: SimHost, o: {
    readonly key: string; readonly producerHost: HostId; readonly executor: Executor;
    readonly initialCredit: number; readonly handlers: ConsumerHandlers;
  }): ConsumerEnd {
    assert(Number.isSafeInteger(o.initialCredit) && o.initialCredit >= 0,
      `connect ${o.key}: initialCredit must be a non-negative integer`);
    const c = new DataConnection(this.ctx, this.nextId++, {
      key: o.key, producerHost: o.producerHost, consumerHost: host, executor: o.executor,
      initialCredit: o.initialCredit, handlers: o.handlers,
    }, this);
    this.live.set(c.id, c);
    this.ctx.trace.record(host.id, 'net.connect', { conn: c.id, key: o.key, producer: o.producerHost });
    this.send(c, 'up', { dueUs: 0, kind: 'request' });
    return {
      grantCredit: (n) => {
        // Per buffer: the message is built only when the check fails.
        if (!(Number.isSafeInteger(n) && n > 0)) assert(false, `grantCredit: n must be a positive integer, got ${n}`);
        if (!c.consumer.done && !c.broken) this.send(c, 'up', { dueUs: 0, kind: 'credit', n });
      },
      sendUpstream: (message) => {
        if (!c.consumer.done && !c.broken) this.send(c, 'up', { dueUs: 0, kind: 'upstream', payload: message });
      },
      close: () => this.closeEnd(c, c.consumer, 'up'),
    };
  }

  /** Queues `item` on `c`'s lane `dir` with a drawn latency, plus `extraUs` (a channel-event fault). */
  private send(c: DataConnection, dir: 'up' | 'down', item: DataItem, extraUs = 0): void {
    const latency = this.ctx.choices.delay('net.latency', this.deps.latency);
    // A latency overridden to slow (the spec's overrides) is recorded: what it holds back is late by it.
    if (this.ctx.choices.lastDelaySlow) {
      const host = dir === 'up' ? c.consumer.host.id : c.producer?.host.id ?? c.consumer.host.id;
      this.ctx.trace.recordOutput(host, 'net.slow', { conn: c.id, dir, kind: item.kind, latencyUs: latency });
    }
    (dir === 'up' ? c.up : c.down).enqueue(item, latency + extraUs);
  }

  /**
   * Sends a producer's payload, after the armed channel-event faults saw it. A fault that acts
   * records its `fault` event, which becomes the delayed item's cause (so an explanation reaches
   * the fault); the producer's task keeps its own cause for whatever it does next.
   */
  private sendPayload(c: DataConnection, payload: unknown, priority: boolean): void {
    const faults = this.deps.channelEvents;
    const nowUs = this.ctx.clock.nowUs;
    const executor = c.consumer.executor;
    if (faults === undefined || !faults.active || nowUs >= this.ctx.healTimeUs || executor === undefined) {
      this.send(c, 'down', { dueUs: 0, kind: 'payload', payload, priority });
      return;
    }
    const trace = this.ctx.trace;
    const cause = trace.cause;
    const extraUs = faults.onSend({ key: c.key, consumerExecutor: executor.name, payload }, nowUs, this.ctx.healTimeUs);
    this.send(c, 'down', { dueUs: 0, kind: 'payload', payload, priority }, extraUs);
    trace.cause = cause;
  }

  private closeEnd(c: DataConnection, end: DataEnd<unknown>, dir: 'up' | 'down'): void {
    if (end.closedByMe) return;
    end.closedByMe = true;
    const wasDone = end.done;
    end.done = true;
    this.ctx.trace.record(end.host.id, 'net.close', { conn: c.id, side: dir === 'up' ? 'consumer' : 'producer' });
    if (!wasDone && !c.broken) this.send(c, dir, { dueUs: 0, kind: 'close' });
    this.maybeEnd(c);
  }

  private maybeEnd(c: DataConnection): void {
    if (c.consumer.done && (c.producer === undefined || c.producer.done)) {
      c.state = 'ended';
      this.live.delete(c.id);
    }
  }

  /** The `net.partition` event of the cut between `a` and `b` (either way), else NO_CAUSE. */
  private cutCause(a: string, b: string): number {
    const ab = this.deps.partitions.direction(a, b);
    if (ab.cut) return ab.cause;
    const ba = this.deps.partitions.direction(b, a);
    return ba.cut ? ba.cause : NO_CAUSE;
  }

  /** Breaks `c`: lanes cleared, every reachable end told once. */
  private break(c: DataConnection): void {
    if (c.broken || c.state === 'ended') return;
    this.ctx.trace.record(c.consumer.host.id, 'net.broken', { conn: c.id, key: c.key, producer: c.producerHost });
    const ends: DataEnd<{ onError(e: NetworkError): void }>[] = [c.consumer];
    if (c.producer !== undefined) ends.push(c.producer);
    const reachable = ends.filter((e) => DataConnection.reachable(c, e));
    c.broken = true;
    c.state = 'ended';
    c.up.clear();
    c.down.clear();
    this.live.delete(c.id);
    for (const end of reachable) {
      end.done = true;
      end.executor?.execute('net.error', () => {
        end.handlers?.onError(new NetworkError(`connection ${c.key} broke`, 'broken'));
      });
    }
  }

  /** An item reached the producer's host (DataItemHandler, called by the connection's lane). */
  onUp(c: DataConnection, item: DataItem): void {
    if (item.kind === 'request') {
      this.accept(c);
      return;
    }
    const p = c.producer;
    if (p === undefined || !DataConnection.reachable(c, p)) return;
    const ex = p.executor as Executor;
    if (item.kind === 'credit') {
      const n = item.n as number;
      deliverTo(ex, 'net.credit', () => {
        if (!DataConnection.reachable(c, p)) return;
        c.credit += n;
        p.handlers?.onCredit(n);
      });
    } else if (item.kind === 'upstream') {
      ex.execute('net.upstream', () => {
        if (DataConnection.reachable(c, p)) p.handlers?.onUpstream(item.payload);
      });
    } else {
      this.deliverClose(c, p);
    }
  }

  /** An item reached the consumer's host (DataItemHandler, called by the connection's lane). */
  onDown(c: DataConnection, item: DataItem): void {
    const end = c.consumer;
    if (!DataConnection.reachable(c, end)) return;
    const ex = end.executor as Executor;
    if (item.kind === 'connected') {
      ex.execute('net.connected', () => {
        if (DataConnection.reachable(c, end)) end.handlers?.onConnected();
      });
    } else if (item.kind === 'payload') {
      deliverTo(ex, 'net.payload', () => {
        if (DataConnection.reachable(c, end)) end.handlers?.onPayload(item.payload, item.priority === true);
      });
    } else if (item.kind === 'not-found') {
      end.done = true;
      this.maybeEnd(c);
      ex.execute('net.error', () => {
        end.handlers?.onError(new NetworkError(`nothing served under ${c.key} on ${c.producerHost}`, 'not-found'));
      });
    } else {
      this.deliverClose(c, end);
    }
  }

  private deliverClose(c: DataConnection, end: DataEnd<{ onError(e: NetworkError): void }>): void {
    end.done = true;
    this.maybeEnd(c);
    end.executor?.execute('net.closed', () => {
      end.handlers?.onError(new NetworkError(`connection ${c.key} closed by the other side`, 'closed'));
    });
  }

  /** The request reached the producer's host: accept, refuse (not-found) or break. */
  private accept(c: DataConnection): void {
    const ph = this.deps.host(c.producerHost);
    if (ph === undefined || !ph.alive || this.deps.partitions.isCut(ph.id, c.consumer.host.id) ||
      this.deps.partitions.isCut(c.consumer.host.id, ph.id)) {
      // The break is the producer's crash's doing, or the partition's, not the connect's.
      const by = ph === undefined ? NO_CAUSE : !ph.alive ? ph.crashedBy : this.cutCause(ph.id, c.consumer.host.id);
      if (by !== NO_CAUSE) this.ctx.trace.cause = by;
      this.break(c);
      return;
    }
    const server = this.servers.get(`${ph.id}\u0000${c.key}`);
    if (server === undefined || !server.executor.alive) {
      this.send(c, 'down', { dueUs: 0, kind: 'not-found' });
      return;
    }
    const p: DataEnd<ProducerHandlers> = {
      host: ph, incarnation: ph.incarnation, executor: server.executor, handlers: undefined,
      done: false, closedByMe: false,
    };
    c.producer = p;
    c.state = 'open';
    c.credit = c.initialCredit;
    this.ctx.trace.record(ph.id, 'net.accept', { conn: c.id, key: c.key });
    server.executor.execute('net.accept', () => {
      if (DataConnection.reachable(c, p)) server.onConnect(this.producerEnd(c, p));
    });
    this.send(c, 'down', { dueUs: 0, kind: 'connected' });
  }

  private producerEnd(c: DataConnection, p: DataEnd<ProducerHandlers>): ProducerEnd {
    return new SimProducerEnd(c, {
      consumerHost: c.consumer.host.id,
      setHandlers: (h) => {
        p.handlers = h;
      },
      send: (payload: unknown, options: SendOptions) => {
        // Per buffer: the messages are built only when a check fails.
        if (p.closedByMe) assert(false, `send on closed connection ${c.key}`);
        if (c.broken || p.done) return;
        const priority = options.priority === true;
        if (!priority) {
          if (!(c.credit > 0)) assert(false, `send without credit on connection ${c.key}`);
          c.credit--;
        }
        this.sendPayload(c, payload, priority);
      },
      close: () => this.closeEnd(c, p, 'down'),
    });
  }
}

// The two handles below are classes, not object literals with a getter, on purpose. A getter
// written in a literal is a new accessor closure per call, and with them a young-generation GC
// still kept each finished run alive (the closures' scope reaches the network and through it the
// whole world; the likely path is V8's per-object accessor metadata, which lives outside the
// young generation). So every run stayed until the next full GC and was copied by each scavenge
// on the way: measured in the explore bench, about 1.1 MB copied by scavenges per run with the
// literals, 0.2 MB with these classes, and about half the scavenge time.

/** The registration {@link SimDataNetwork.serve} returns; `cancel` unregisters it once. */
class ServeRegistration implements Cancellable {
  private live = true;

  constructor(
    private readonly servers: Map<string, Server>,
    private readonly key: string,
    private readonly server: Server,
  ) {}

  get pending(): boolean {
    return this.live;
  }

  cancel(): void {
    if (this.live && this.servers.get(this.key) === this.server) this.servers.delete(this.key);
    this.live = false;
  }
}

/** A producer's end of a connection; `credit` reads the connection's current credit. */
class SimProducerEnd implements ProducerEnd {
  readonly consumerHost: HostId;
  readonly setHandlers: (handlers: ProducerHandlers) => void;
  readonly send: (payload: unknown, options: SendOptions) => void;
  readonly close: () => void;

  constructor(private readonly connection: DataConnection, end: Omit<ProducerEnd, 'credit'>) {
    this.consumerHost = end.consumerHost;
    this.setHandlers = end.setHandlers;
    this.send = end.send;
    this.close = end.close;
  }

  get credit(): number {
    return this.connection.credit;
  }
}
