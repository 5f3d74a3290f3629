/**
 * An in-memory DataNetwork for unit tests, with the sim's rules and no latency: every item
 * (request, connected, payload, credit, upstream message, close) crosses the wire as a task on
 * one `transport` executor and is then handed to the receiving end's executor, so each
 * direction of a connection is FIFO and nothing arrives until the test runs its scheduler.
 * Credit works as in the sim: the producer starts with `initialCredit` (no onCredit call for
 * it), a normal payload uses one credit (sending without credit fails an assertion), a
 * priority payload needs none. Tests can break connections to inject faults.
 *
 * Invariants: each end learns of an error or close at most once and is handed nothing after
 * it; a broken connection delivers nothing more; credit never goes negative.
 */
import type {
  ConsumerEnd, ConsumerHandlers, DataNetwork, ProducerEnd, ProducerHandlers, SendOptions,
} from '../api/DataNetwork.ts';
import { NetworkError } from '../api/DataNetwork.ts';
import type { Cancellable, Executor } from '../api/Executor.ts';
import type { HostId } from '../api/ids.ts';
import { assert } from '../util/assert.ts';

/** One payload as the producer sent it. */
export interface SentPayload {
  readonly payload: unknown;
  readonly priority: boolean;
  readonly sizeBytes: number;
}

interface Server {
  readonly executor: Executor;
  readonly onConnect: (end: ProducerEnd) => void;
}

interface End<H> {
  readonly executor: Executor;
  handlers: H | undefined;
  /** Closed itself, or learnt of an error or close: nothing more is handed to it. */
  done: boolean;
  closedByMe: boolean;
}

/** One connection, open to inspection by tests. */
export class TestingConnection {
  state: 'connecting' | 'open' | 'ended' = 'connecting';
  credit = 0;
  broken = false;
  /** Every payload the producer sent, in order. */
  readonly sent: SentPayload[] = [];
  /** Every upstream message the consumer sent, in order. */
  readonly upstream: unknown[] = [];
  /** Credits granted after the initial credit. */
  creditsGranted = 0;
  readonly consumer: End<ConsumerHandlers>;
  producer: End<ProducerHandlers> | undefined;

  constructor(
    readonly id: number,
    readonly key: string,
    readonly producerHost: HostId,
    readonly consumerHost: HostId,
    readonly initialCredit: number,
    consumerExecutor: Executor,
    handlers: ConsumerHandlers,
  ) {
    this.consumer = { executor: consumerExecutor, handlers, done: false, closedByMe: false };
  }
}

export class TestingDataNetwork {
  /** Every connection ever requested, in request order. */
  readonly connections: TestingConnection[] = [];
  private readonly servers = new Map<string, Server>();

  /** @param transport the executor that stands for the wire (e.g. `scheduler.get('net')`). */
  constructor(private readonly transport: Executor) {}

  /** The DataNetwork port as seen from `host`. */
  view(host: HostId): DataNetwork {
    return {
      serve: (key, executor, onConnect) => this.serve(host, key, { executor, onConnect }),
      connect: (o) => this.connect(host, o),
    };
  }

  /** The connections for subpartition `key`, oldest first. */
  connectionsFor(key: string): TestingConnection[] {
    return this.connections.filter((c) => c.key === key);
  }

  /** True while something is served under `key` on `host`. */
  isServed(host: HostId, key: string): boolean {
    return this.servers.has(`${host}|${key}`);
  }

  /** Breaks `connection`: every end that has not closed gets `onError('broken')` once. */
  break(connection: TestingConnection): void {
    if (connection.broken || connection.state === 'ended') return;
    connection.broken = true;
    connection.state = 'ended';
    const ends: End<{ onError(e: NetworkError): void }>[] = [connection.consumer];
    if (connection.producer !== undefined) ends.push(connection.producer);
    for (const end of ends) {
      if (end.done) continue;
      end.done = true;
      end.executor.execute('net.error', () => {
        end.handlers?.onError(new NetworkError(`connection ${connection.key} broke`, 'broken'));
      });
    }
  }

  private serve(host: HostId, key: string, server: Server): Cancellable {
    const k = `${host}|${key}`;
    assert(!this.servers.has(k), `${key} served twice on ${host}`);
    this.servers.set(k, server);
    let pending = true;
    return {
      cancel: () => {
        if (pending && this.servers.get(k) === server) this.servers.delete(k);
        pending = false;
      },
      get pending() {
        return pending;
      },
    };
  }

  private connect(host: HostId, o: Parameters<DataNetwork['connect']>[0]): ConsumerEnd {
    assert(Number.isInteger(o.initialCredit) && o.initialCredit >= 0, 'bad initialCredit');
    const c = new TestingConnection(this.connections.length, o.key, o.producerHost, host,
      o.initialCredit, o.executor, o.handlers);
    this.connections.push(c);
    this.wire(() => this.accept(c, `${o.producerHost}|${o.key}`));
    return {
      grantCredit: (n) => {
        assert(Number.isInteger(n) && n > 0, `grantCredit: bad n ${n}`);
        assert(!c.consumer.closedByMe, 'grantCredit after close');
        if (c.consumer.done || c.broken) return;
        c.creditsGranted += n;
        this.toProducer(c, 'net.credit', (h) => {
          c.credit += n;
          h.onCredit(n);
        });
      },
      sendUpstream: (message) => {
        assert(!c.consumer.closedByMe, 'sendUpstream after close');
        if (c.consumer.done || c.broken) return;
        c.upstream.push(message);
        this.toProducer(c, 'net.upstream', (h) => h.onUpstream(message));
      },
      close: () => {
        if (c.consumer.closedByMe) return;
        const wasDone = c.consumer.done;
        c.consumer.closedByMe = true;
        c.consumer.done = true;
        if (!wasDone && !c.broken) this.toProducer(c, 'net.closed', (h) => this.closed(c, h));
        this.maybeEnd(c);
      },
    };
  }

  private accept(c: TestingConnection, serverKey: string): void {
    if (c.broken) return;
    const server = this.servers.get(serverKey);
    if (server === undefined || !server.executor.alive) {
      c.state = 'ended';
      this.toConsumer(c, 'net.error', (h) => {
        c.consumer.done = true;
        h.onError(new NetworkError(`nothing served under ${c.key}`, 'not-found'));
      });
      return;
    }
    const p: End<ProducerHandlers> = {
      executor: server.executor, handlers: undefined, done: false, closedByMe: false,
    };
    c.producer = p;
    c.state = 'open';
    c.credit = c.initialCredit;
    server.executor.execute('net.accept', () => {
      if (c.broken || p.done) return;
      server.onConnect(this.producerEnd(c, p));
      assert(p.handlers !== undefined, 'onConnect must install the producer handlers');
    });
    this.toConsumer(c, 'net.connected', (h) => h.onConnected());
  }

  private producerEnd(c: TestingConnection, p: End<ProducerHandlers>): ProducerEnd {
    return {
      get credit() {
        return c.credit;
      },
      consumerHost: c.consumerHost,
      setHandlers: (h) => {
        p.handlers = h;
      },
      send: (payload: unknown, options: SendOptions) => {
        assert(!p.closedByMe, `send on closed connection ${c.key}`);
        if (c.broken || p.done) return;
        const priority = options.priority === true;
        if (!priority) {
          assert(c.credit > 0, `send without credit on connection ${c.key}`);
          c.credit--;
        }
        c.sent.push({ payload, priority, sizeBytes: options.sizeBytes });
        this.toConsumer(c, 'net.payload', (h) => h.onPayload(payload, priority));
      },
      close: () => {
        if (p.closedByMe) return;
        const wasDone = p.done;
        p.closedByMe = true;
        p.done = true;
        if (!wasDone && !c.broken) this.toConsumer(c, 'net.closed', (h) => this.closed(c, h));
        this.maybeEnd(c);
      },
    };
  }

  private closed(c: TestingConnection, h: { onError(e: NetworkError): void }): void {
    h.onError(new NetworkError(`connection ${c.key} closed by the other side`, 'closed'));
  }

  private maybeEnd(c: TestingConnection): void {
    if (c.consumer.done && (c.producer === undefined || c.producer.done)) c.state = 'ended';
  }

  private wire(task: () => void): void {
    this.transport.execute('net.wire', task);
  }

  private toConsumer(c: TestingConnection, label: string, fn: (h: ConsumerHandlers) => void): void {
    this.wire(() => {
      const end = c.consumer;
      if (c.broken || end.done) return;
      end.executor.execute(label, () => {
        if (c.broken || end.done) return;
        if (label === 'net.closed') {
          end.done = true;
          this.maybeEnd(c);
        }
        if (end.handlers !== undefined) fn(end.handlers);
      });
    });
  }

  private toProducer(c: TestingConnection, label: string, fn: (h: ProducerHandlers) => void): void {
    this.wire(() => {
      const end = c.producer;
      if (end === undefined || c.broken || end.done) return;
      end.executor.execute(label, () => {
        if (c.broken || end.done) return;
        if (label === 'net.closed') {
          end.done = true;
          this.maybeEnd(c);
        }
        if (end.handlers !== undefined) fn(end.handlers);
      });
    });
  }
}
