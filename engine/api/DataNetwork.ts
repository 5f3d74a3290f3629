/**
 * The data-plane port: network connections between a producer's result subpartition and a
 * consumer's input channel (Flink's netty PartitionRequestClient / credit-based flow control).
 *
 * Rules the sim keeps:
 * - A connection is FIFO: payloads arrive in the order sent, never duplicated or lost while both
 *   ends live and are not partitioned.
 * - Credit: a normal payload needs one credit, granted by the consumer (its free buffers);
 *   without credit the producer must keep data queued (in its own subpartition), which is how a
 *   slow consumer back-pressures its producer. A priority payload (an unaligned barrier) needs no
 *   credit. Queues, blocking after aligned barriers and priority overtaking of queued buffers are
 *   the engine's (PipelinedSubpartition); the connection only transmits.
 * - When the connection breaks (either host crashes, a partition cuts it), each end that still
 *   lives gets `onError` once, on its executor, and nothing more is delivered: buffers never
 *   vanish silently while both tasks keep running.
 *
 * @see org.apache.flink.runtime.io.network.netty.CreditBasedPartitionRequestClientHandler
 */
import type { Cancellable, Executor } from './Executor.ts';
import type { HostId } from './ids.ts';
import { ExpectedError } from '../util/ExpectedError.ts';

/** Why a data connection failed (an expected outcome: no stack trace). */
export class NetworkError extends ExpectedError {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    /** `broken`: crash or partition; `not-found`: nothing served under the key (yet). */
    readonly reason: 'broken' | 'not-found' | 'closed',
  ) {
    super(message);
  }
}

/** Options for {@link ProducerEnd.send}. */
export interface SendOptions {
  /** Priority payloads (unaligned barriers) need no credit. Default false. */
  readonly priority?: boolean;
  /** Size for the trace and statistics, bytes. */
  readonly sizeBytes: number;
}

/** Callbacks on the producer side; they run on the producer's executor. */
export interface ProducerHandlers {
  /** The consumer granted `n` more credits. */
  onCredit(n: number): void;
  /** A control message from the consumer (e.g. resumeConsumption). */
  onUpstream(message: unknown): void;
  /** The connection broke or was closed by the consumer. */
  onError(error: NetworkError): void;
}

/** The producer's end of one connection. */
export interface ProducerEnd {
  /** Credits not used yet. */
  readonly credit: number;
  /** The consumer's host. */
  readonly consumerHost: HostId;
  /** Installs the handlers; must be called inside the `onConnect` callback. */
  setHandlers(handlers: ProducerHandlers): void;
  /**
   * Sends one payload. A normal payload uses one credit.
   * @throws AssertionError when a normal payload is sent without credit, or after close.
   */
  send(payload: unknown, options: SendOptions): void;
  /** Closes the connection (a released partition); the consumer sees `closed`. */
  close(): void;
}

/** Callbacks on the consumer side; they run on the consumer's executor. */
export interface ConsumerHandlers {
  /** The connection is established (the producer accepted the request). */
  onConnected(): void;
  /** One payload arrived, in FIFO order. */
  onPayload(payload: unknown, priority: boolean): void;
  /** The connection failed or broke; nothing more arrives. */
  onError(error: NetworkError): void;
}

/** The consumer's end of one connection. */
export interface ConsumerEnd {
  /** Returns `n` buffers' worth of credit to the producer (travels with network latency). */
  grantCredit(n: number): void;
  /** Sends a control message upstream (travels with network latency, FIFO with credits). */
  sendUpstream(message: unknown): void;
  /** Closes the connection; the producer sees `closed`. */
  close(): void;
}

/** The data network as seen from one host. */
export interface DataNetwork {
  /**
   * Offers subpartition `key` on this host. When a consumer connects, `onConnect` runs on
   * `executor` with the producer end. Returns a handle that stops serving.
   */
  serve(key: string, executor: Executor, onConnect: (end: ProducerEnd) => void): Cancellable;
  /**
   * Requests subpartition `key` from `producerHost`. `initialCredit` is granted on connect.
   * Handlers run on `executor`. If nothing is served under `key` when the request arrives, or the
   * producer host is down or cut off, `onError` runs (reason `not-found` or `broken`).
   */
  connect(options: {
    readonly key: string;
    readonly producerHost: HostId;
    readonly executor: Executor;
    readonly initialCredit: number;
    readonly handlers: ConsumerHandlers;
  }): ConsumerEnd;
}
