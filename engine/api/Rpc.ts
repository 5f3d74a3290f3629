/**
 * The RPC port: Flink's actor-style RPC between endpoints (JobMaster, ResourceManager, each
 * TaskExecutor). The sim carries every call as a message on a link (an ordered pair of
 * endpoints): messages on one link arrive in the order sent, nothing is duplicated, messages are
 * lost when a connection breaks (crash, partition) or by injected loss, and latency is a delay
 * decision. A call that expects an answer fails with {@link RpcTimeoutError} after its timeout.
 *
 * Every message carries an {@link RpcKind} so that faults can target one kind (lose every
 * `ack`, delay `notifyComplete`, ...).
 *
 * @see org.apache.flink.runtime.rpc.RpcService, RpcEndpoint, RpcGateway
 */
import type { CompletableFuture } from '../util/CompletableFuture.ts';
import type { Executor } from './Executor.ts';
import type { RpcAddress } from './ids.ts';
import { ExpectedError } from '../util/ExpectedError.ts';

/** What a message is, for fault targeting and the trace. */
export type RpcKind =
  | 'trigger'
  | 'ack'
  | 'decline'
  | 'notifyComplete'
  | 'notifyAborted'
  | 'coordinatorEvent'
  | 'heartbeat'
  | 'deployment'
  | 'registration'
  | 'taskState'
  | 'control';

/** All RPC kinds, in a fixed order (for arbitraries and reports). */
export const RPC_KINDS: readonly RpcKind[] = [
  'trigger', 'ack', 'decline', 'notifyComplete', 'notifyAborted', 'coordinatorEvent',
  'heartbeat', 'deployment', 'registration', 'taskState', 'control',
];

/** One incoming call, as an endpoint's handler sees it on its main thread. */
export interface RpcCall {
  readonly from: RpcAddress;
  readonly method: string;
  readonly args: readonly unknown[];
}

/**
 * Handles calls to one endpoint, on its main thread. For an `ask` the return value is the
 * answer: a plain value, or a future whose outcome is sent back when it completes. A thrown
 * error fails the caller's future. For a `tell` the return value is ignored.
 */
export type RpcHandler = (call: RpcCall) => unknown;

/** The caller's future of an `ask` failed because no answer came in time (no stack trace). */
export class RpcTimeoutError extends ExpectedError {
  override readonly name = 'RpcTimeoutError';
}

/**
 * The caller's future failed because the target endpoint does not exist (not started or gone).
 * An expected outcome: no stack trace.
 */
export class RpcEndpointNotFoundError extends ExpectedError {
  override readonly name = 'RpcEndpointNotFoundError';
}

/** The RPC service of one host. */
export interface RpcService {
  /**
   * Starts endpoint `address` on this host. Its calls run on `mainThread`. The endpoint lives
   * until {@link stopEndpoint} or the host's crash.
   * @throws AssertionError if the address is already taken by a live endpoint.
   */
  startEndpoint(address: RpcAddress, mainThread: Executor, handler: RpcHandler): void;
  /** Stops a local endpoint; later messages to it are dropped. */
  stopEndpoint(address: RpcAddress): void;
  /**
   * Fire-and-forget message from local endpoint `from` to `to` (Flink's void RPC methods).
   * @throws AssertionError if `from` is not a live endpoint of this host.
   */
  tell(from: RpcAddress, to: RpcAddress, kind: RpcKind, method: string, args: readonly unknown[]): void;
  /**
   * Request/response. The returned future completes on `from`'s main thread with the answer,
   * or fails with RpcTimeoutError after `timeoutUs` (answers after that are dropped), or with
   * the error the handler threw.
   * @param timeoutUs positive integer, virtual microseconds.
   */
  ask<R>(
    from: RpcAddress,
    to: RpcAddress,
    kind: RpcKind,
    method: string,
    args: readonly unknown[],
    timeoutUs: number,
  ): CompletableFuture<R>;
}
