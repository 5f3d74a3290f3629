/**
 * RpcNetwork: the world's RPC fabric (Flink's actor RPC, DESIGN.md "The world's rules").
 *
 * - Messages on one link (ordered pair of endpoint addresses) arrive in the order sent, never
 *   duplicated; latency is a delay decision from the kind's distribution.
 * - Injected loss per kind is a fate decision, taken only before the heal time (mark `rpc-lost`);
 *   injected latency per kind replaces the kind's latency, also only before the heal time, and
 *   a message sent before the heal time arrives at the latest one normal maximum latency after
 *   it (slowness ends at the heal time too).
 * - Targeted message faults (MessageFaults.ts) act on calls sent before the heal time, before
 *   injected loss: a lost one is dropped (`rpc.drop` reason `message-fault`), a delayed or held
 *   one waits its extra time before it travels, and every later message on its link waits behind
 *   it. The heal-time bound below applies to them too. Answers are never acted on.
 * - Partitions: a message is dropped if its direction is cut when it is sent, or if a cut of
 *   that direction started while it was in flight (even if healed before it arrives: the
 *   connection broke).
 * - A crashed or stopped endpoint drops what arrives for it (an ask then times out). A message
 *   sent by a host that crashed since is delivered only if a fate decision (probability
 *   `lateDeliveryProbability`) says so. An ask to an address that was never started fails
 *   with RpcEndpointNotFoundError, answered as a message back.
 * - Handlers run as tasks on the endpoint's main thread; an ask's future completes on the
 *   caller's main thread with the answer, the handler's error, or RpcTimeoutError after its
 *   timeout (later answers are dropped). An AssertionError thrown by a handler stops the run.
 */
import {
  AssertionError, CompletableFuture, RpcEndpointNotFoundError, RpcTimeoutError, RPC_KINDS, assert,
} from '../engine/api/index.ts';
import type {
  Cancellable, DelayDistribution, Executor, RpcAddress, RpcHandler, RpcKind,
} from '../engine/api/index.ts';
import type { Partitions } from './Partitions.ts';
import { RpcLink } from './RpcLink.ts';
import type { RpcMessage } from './RpcLink.ts';
import type { SimContext } from './SimContext.ts';
import { deliverTo } from './deliverTo.ts';
import { MessageFaults } from './MessageFaults.ts';
import type { SimHost } from './SimHost.ts';
import { NO_CAUSE } from './Trace.ts';
import { stringHash } from './TraceHash.ts';

/** RPC settings of a world. */
export interface RpcConfig {
  readonly defaultLatency: DelayDistribution;
  readonly latencyByKind?: Partial<Record<RpcKind, DelayDistribution>>;
  /**
   * Injected latency per kind ("slow acks", "delayed notifications"): used instead of the
   * kind's latency before the heal time only.
   */
  readonly injectedLatencyByKind?: Partial<Record<RpcKind, DelayDistribution>>;
  /** Probability of injected loss per kind (before the heal time only). */
  readonly lossByKind?: Partial<Record<RpcKind, number>>;
  /** Probability that a message from a host that crashed since still arrives; default 0.5. */
  readonly lateDeliveryProbability?: number;
}

interface PendingAsk {
  readonly future: CompletableFuture<unknown>;
  readonly timer: Cancellable;
  /**
   * The `seq` of what made the ask fail to come back in time, if the sim knows it: the drop of
   * its request or its answer, or the fault that delayed or held its request. Its timeout is
   * caused by that event (Trace.ts, cause links), not only by the timer.
   */
  failedBy: number;
}

interface Endpoint {
  readonly address: RpcAddress;
  readonly slot: AddressSlot;
  readonly host: SimHost;
  readonly incarnation: number;
  readonly mainThread: Executor;
  readonly handler: RpcHandler;
  alive: boolean;
  readonly pendingAsks: Map<number, PendingAsk>;
  /** The `seq` of the crash or `rpc.stop` that ended the endpoint (NO_CAUSE while alive). */
  stoppedBy: number;
}

/**
 * One RPC address over the run: its current endpoint (undefined until first started; a restart
 * puts a new one here) and the links from it by destination address. A link holds its
 * destination's slot, so a message costs one map lookup when sent (its link) and none when it
 * arrives, and still meets the endpoint current at either time.
 */
interface AddressSlot {
  readonly address: RpcAddress;
  /** The string hash of `address`, for the trace. */
  readonly addressHash: number;
  current: Endpoint | undefined;
  readonly links: Map<RpcAddress, RpcLink<AddressSlot>>;
}

/** A kind's settings, read for every message of that kind. */
interface KindSettings {
  /** The string hash of the kind, for the trace. */
  readonly kindHash: number;
  readonly latency: DelayDistribution;
  /** The label of the latency decision. */
  readonly latencyLabel: string;
  /** Injected latency (before the heal time only). */
  readonly injectedLatency: DelayDistribution | undefined;
  /** Probability of injected loss (before the heal time only); undefined when none. */
  readonly lossP: number | undefined;
}

/** Arguments of an answer (answers carry their outcome in `value`). */
const NO_ARGS: readonly unknown[] = Object.freeze([]);

/**
 * A message from `srcHost` ready to transmit; {@link RpcNetwork.transmit} sets its id, due time
 * and partition direction. Built in one place so that every message has one object shape.
 */
function message(
  srcHost: SimHost, from: RpcAddress, to: RpcAddress, kind: RpcKind, method: string,
  args: readonly unknown[], askId: number, answer: boolean, ok: boolean, value: unknown,
): RpcMessage {
  return {
    id: 0, dueUs: 0, from, to, kind, method, args, srcHost, srcIncarnation: srcHost.incarnation,
    dir: undefined, epoch: 0, askId, answer, ok, value, cause: NO_CAUSE,
  };
}

export class RpcNetwork {
  /** Every address started or sent to so far. */
  private readonly slots = new Map<string, AddressSlot>();
  private readonly kinds = new Map<RpcKind, KindSettings>();
  private readonly lateP: number;
  private nextAskId = 1;
  private nextMessageId = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly partitions: Partitions,
    config: RpcConfig,
    /** Targeted faults on single messages (the fault plan arms them); none by default. */
    private readonly messageFaults: MessageFaults = new MessageFaults(),
  ) {
    for (const k of RPC_KINDS) {
      const p = config.lossByKind?.[k];
      this.kinds.set(k, {
        kindHash: stringHash(k),
        latency: config.latencyByKind?.[k] ?? config.defaultLatency,
        latencyLabel: `rpc.latency.${k}`,
        injectedLatency: config.injectedLatencyByKind?.[k],
        lossP: p !== undefined && p > 0 ? p : undefined,
      });
    }
    this.lateP = config.lateDeliveryProbability ?? 0.5;
  }

  /** Starts endpoint `address` on `host`. @throws AssertionError if a live one has it. */
  startEndpoint(host: SimHost, address: RpcAddress, options: { mainThread: Executor; handler: RpcHandler }): void {
    const slot = this.slot(address);
    const old = slot.current;
    assert(old === undefined || !old.alive, `RPC endpoint ${address} is already started`);
    slot.current = {
      address, slot, host, incarnation: host.incarnation, mainThread: options.mainThread,
      handler: options.handler, alive: true, pendingAsks: new Map(), stoppedBy: NO_CAUSE,
    };
    this.ctx.trace.record(host.id, 'rpc.start', { address });
  }

  /** Stops endpoint `address` if it lives on `host`; later messages to it are dropped. */
  stopEndpoint(host: SimHost, address: RpcAddress): void {
    const ep = this.slots.get(address)?.current;
    if (ep === undefined || ep.host !== host || !ep.alive) return;
    ep.alive = false;
    ep.pendingAsks.clear();
    ep.stoppedBy = this.ctx.trace.record(host.id, 'rpc.stop', { address });
  }

  /** The host crashed: its endpoints die and their pending asks are forgotten. */
  onCrash(host: SimHost): void {
    for (const { current: ep } of this.slots.values()) {
      if (ep !== undefined && ep.host === host && ep.alive) {
        ep.alive = false;
        ep.pendingAsks.clear();
        ep.stoppedBy = host.crashedBy;
      }
    }
  }

  /** A tell from local endpoint `from`. @throws AssertionError if `from` is not live on `host`. */
  tell(host: SimHost, from: RpcAddress, to: RpcAddress, kind: RpcKind, method: string, args: readonly unknown[]): void {
    const src = this.requireLocal(host, from);
    this.transmit(src.slot, message(src.host, from, to, kind, method, args, 0, false, true, undefined));
  }

  /**
   * An ask from local endpoint `from`; see the file comment for its outcomes.
   * @throws AssertionError if `from` is not live on `host` or `timeoutUs` is not a positive integer.
   */
  ask<R>(
    host: SimHost, from: RpcAddress, to: RpcAddress, kind: RpcKind, method: string,
    args: readonly unknown[], timeoutUs: number,
  ): CompletableFuture<R> {
    // Messages are built only on failure: a template literal argument is built on every call.
    if (!(Number.isSafeInteger(timeoutUs) && timeoutUs > 0)) {
      assert(false, `ask ${method}: timeoutUs must be a positive integer, got ${timeoutUs}`);
    }
    const src = this.requireLocal(host, from);
    const future = new CompletableFuture<R>();
    const askId = this.nextAskId++;
    const timer = src.mainThread.schedule('rpc.timeout', timeoutUs, () => {
      const pending = src.pendingAsks.get(askId);
      if (pending === undefined) return;
      src.pendingAsks.delete(askId);
      const trace = this.ctx.trace;
      const timedOut = trace.record(host.id, 'rpc.timeout', { from, to, method }, pending.failedBy === NO_CAUSE ? trace.cause : pending.failedBy);
      const error = new RpcTimeoutError(`${method} from ${from} to ${to} timed out after ${timeoutUs}us`);
      error.event = timedOut;
      future.completeExceptionally(error);
    });
    src.pendingAsks.set(askId, { future: future as CompletableFuture<unknown>, timer, failedBy: NO_CAUSE });
    this.transmit(src.slot, message(host, from, to, kind, method, args, askId, false, true, undefined));
    return future;
  }

  private requireLocal(host: SimHost, address: RpcAddress): Endpoint {
    const ep = this.slots.get(address)?.current;
    if (ep === undefined || !ep.alive || ep.host !== host) {
      assert(false, `${address} is not a live RPC endpoint of ${host.id}`);
    }
    return ep;
  }

  /** The slot of `address`, made on first use. */
  private slot(address: RpcAddress): AddressSlot {
    let slot = this.slots.get(address);
    if (slot === undefined) {
      slot = { address, addressHash: stringHash(address), current: undefined, links: new Map() };
      this.slots.set(address, slot);
    }
    return slot;
  }

  /** The link from `src` to address `to`, made on first use. */
  private link(src: AddressSlot, to: RpcAddress): RpcLink<AddressSlot> {
    let link = src.links.get(to);
    if (link === undefined) {
      link = new RpcLink(this.ctx, this.slot(to), (dst, m) => this.arrive(dst, m), `rpc:${src.address}->${to}`);
      src.links.set(to, link);
    }
    return link;
  }

  /** Sends `m` from address `src` (`m.from`). */
  private transmit(src: AddressSlot, m: RpcMessage): void {
    const { srcHost, to, kind, method } = m;
    const id = this.nextMessageId++;
    m.id = id;
    const trace = this.ctx.trace;
    const settings = this.kinds.get(kind) as KindSettings;
    const link = this.link(src, to);
    const sendSeq = trace.recordRpcSend(
      srcHost.id, srcHost.idHash, { id, from: m.from, to, kind, method, answer: m.answer },
      src.addressHash, link.target.addressHash, settings.kindHash, stringHash(method),
    );
    // Targeted message faults act first, on calls sent before the heal time (MessageFaults.ts).
    let extraUs = 0;
    // What makes this message late, if anything (a fault, a slow decision): a message held behind
    // it on the link is late by the same doing.
    let slowBy = NO_CAUSE;
    if (this.messageFaults.active && !m.answer && this.ctx.clock.nowUs < this.ctx.healTimeUs) {
      const verdict = this.messageFaults.onSend(
        { id, method, args: m.args, srcHost: srcHost.id, dstHost: link.target.current?.host.id, from: m.from, to },
        this.ctx.clock.nowUs, this.ctx.healTimeUs);
      if (verdict?.lose === true) {
        this.failedBy(m, trace.recordOn(srcHost.id, srcHost.idHash, 'rpc.drop', { id, reason: 'message-fault' }));
        return;
      }
      extraUs = verdict?.extraUs ?? 0;
      // A delayed or held call's timeout is the fault's doing (the fault was just recorded).
      if (extraUs > 0) {
        slowBy = trace.cause;
        this.failedBy(m, slowBy);
      }
    }
    const lossP = settings.lossP;
    if (lossP !== undefined && this.ctx.clock.nowUs < this.ctx.healTimeUs && this.ctx.choices.fate('rpc.loss', lossP)) {
      this.failedBy(m, trace.mark(srcHost.id, 'rpc-lost', { id, kind, method }, trace.settingFaultCause('rpc-loss')));
      return;
    }
    const dst = link.target.current;
    let dir = undefined;
    if (dst !== undefined && dst.host !== srcHost) {
      if (link.cachedSrc !== srcHost || link.cachedDst !== dst.host) {
        link.cachedSrc = srcHost;
        link.cachedDst = dst.host;
        link.cachedDir = this.partitions.direction(srcHost.id, dst.host.id);
      }
      dir = link.cachedDir;
      if (dir !== undefined && dir.cut) {
        this.failedBy(m, trace.recordOn(srcHost.id, srcHost.idHash, 'rpc.drop', { id, reason: 'partition' }, dir.cause));
        return;
      }
    }
    const nowUs = this.ctx.clock.nowUs;
    const faulty = nowUs < this.ctx.healTimeUs;
    const normal = settings.latency;
    const injected = faulty ? settings.injectedLatency : undefined;
    // A delayed or held message waits `extraUs` before it travels; the link's order then holds
    // every later message on the link behind it (RpcLink).
    let latencyUs = this.ctx.choices.delay(settings.latencyLabel, injected ?? normal) + extraUs;
    // A call slowed by an rpc-delay fault that then times out timed out by the fault's doing.
    if (injected !== undefined && extraUs === 0) {
      slowBy = trace.settingFaultCause('rpc-delay');
      this.failedBy(m, slowBy);
    }
    // A latency overridden to slow (the spec's overrides) is recorded: it is what makes the message late.
    if (this.ctx.choices.lastDelaySlow && extraUs === 0) {
      slowBy = trace.recordOutput(srcHost.id, 'rpc.slow', { id, latencyUs }, sendSeq);
      this.failedBy(m, slowBy);
    }
    if (faulty) {
      // Slowness is a fault and faults stop at the heal time: a message slowed before it (an
      // injected latency or a `slow` decision) arrives by then, or one normal maximum latency
      // after it. Without this, per-link FIFO would hold every later message behind it.
      latencyUs = Math.min(latencyUs, this.ctx.healTimeUs + normal.maxUs - nowUs);
    }
    m.dir = dir;
    m.epoch = dir?.epoch ?? 0;
    m.cause = sendSeq;
    // Held behind a message made late by something: late by the same doing.
    const heldBy = link.enqueue(m, latencyUs, slowBy);
    if (heldBy !== NO_CAUSE && slowBy === NO_CAUSE) this.failedBy(m, heldBy);
  }

  /** `m` arrived at address `slot` (`m.to`). */
  private arrive(slot: AddressSlot, m: RpcMessage): void {
    const trace = this.ctx.trace;
    const dst = slot.current;
    if (dst === undefined) {
      trace.recordOn(m.srcHost.id, m.srcHost.idHash, 'rpc.drop', { id: m.id, reason: 'no-endpoint' }, m.cause);
      if (m.askId !== 0 && !m.answer) this.answerNotFound(slot, m);
      return;
    }
    const reason = this.dropReason(m, dst);
    if (reason !== undefined) {
      this.failedBy(m, trace.recordOn(dst.host.id, dst.host.idHash, 'rpc.drop', { id: m.id, reason }, this.dropCause(reason, m, dst)));
      return;
    }
    trace.recordOn(dst.host.id, dst.host.idHash, 'rpc.deliver', { id: m.id }, m.cause);
    // Delivered to a paused host: its handler waits for the resume, and an ask may time out by it.
    if (dst.host.paused) this.failedBy(m, dst.host.pausedBy);
    if (m.answer) this.arriveAnswer(m, dst);
    else deliverTo(dst.mainThread, m.method, () => this.invoke(dst, m));
  }

  private dropReason(m: RpcMessage, dst: Endpoint): string | undefined {
    if (!dst.alive) return 'endpoint-down';
    if (dst.host !== m.srcHost) {
      const dir = m.dir ?? this.partitions.direction(m.srcHost.id, dst.host.id);
      if (dir.cut || (m.dir !== undefined && dir.epoch !== m.epoch)) return 'partition';
    }
    const src = m.srcHost;
    if ((!src.alive || src.incarnation !== m.srcIncarnation) && !this.ctx.choices.fate('rpc.from-crashed', this.lateP)) {
      return 'sender-crashed';
    }
    return undefined;
  }

  /**
   * What made `m` drop for `reason` at `dst` (Trace.ts, cause links): the crash or stop of the
   * endpoint, the partition, or the sender's crash; else its send.
   */
  private dropCause(reason: string, m: RpcMessage, dst: Endpoint): number {
    if (reason === 'endpoint-down' && dst.stoppedBy !== NO_CAUSE) return dst.stoppedBy;
    if (reason === 'partition') {
      const cause = (m.dir ?? this.partitions.direction(m.srcHost.id, dst.host.id)).cause;
      return cause === NO_CAUSE ? m.cause : cause;
    }
    if (reason === 'sender-crashed' && m.srcHost.crashedBy !== NO_CAUSE) return m.srcHost.crashedBy;
    return m.cause;
  }

  /** `m` was dropped by event `seq`: if it is (the answer of) a pending ask, that ask failed by it. */
  private failedBy(m: RpcMessage, seq: number): void {
    if (m.askId === 0) return;
    const ask = this.slots.get(m.answer ? m.to : m.from)?.current?.pendingAsks.get(m.askId);
    if (ask !== undefined) ask.failedBy = seq;
  }

  private arriveAnswer(m: RpcMessage, caller: Endpoint): void {
    const pending = caller.pendingAsks.get(m.askId);
    if (pending === undefined) {
      this.ctx.trace.record(caller.host.id, 'rpc.drop', { id: m.id, reason: 'late-answer' }, m.cause);
      return;
    }
    caller.pendingAsks.delete(m.askId);
    pending.timer.cancel();
    deliverTo(caller.mainThread, 'rpc.answer', () => {
      if (m.ok) pending.future.complete(m.value);
      else pending.future.completeExceptionally(m.value);
    });
  }

  private invoke(ep: Endpoint, m: RpcMessage): void {
    if (!ep.alive) return;
    let result: unknown;
    try {
      // The message is the call the handler sees (RpcCall is its from, method and args): no
      // object is built per delivered message.
      result = ep.handler(m);
    } catch (e) {
      if (e instanceof AssertionError || m.askId === 0) throw e;
      this.answer(ep, m, false, e);
      return;
    }
    if (m.askId === 0) return;
    if (result instanceof CompletableFuture) {
      const f = result as CompletableFuture<unknown>;
      f.whenComplete((value, error) => {
        if (f.isCompletedExceptionally()) this.answer(ep, m, false, error);
        else this.answer(ep, m, true, value);
      });
    } else {
      this.answer(ep, m, true, result);
    }
  }

  private answer(ep: Endpoint, m: RpcMessage, ok: boolean, value: unknown): void {
    if (!ep.alive || ep.host.incarnation !== ep.incarnation) return;
    this.transmit(ep.slot, message(ep.host, m.to, m.from, m.kind, m.method, NO_ARGS, m.askId, true, ok, value));
  }

  private answerNotFound(slot: AddressSlot, m: RpcMessage): void {
    const error = new RpcEndpointNotFoundError(`no RPC endpoint ${m.to} (${m.method} from ${m.from})`);
    this.transmit(slot, message(m.srcHost, m.to, m.from, m.kind, m.method, NO_ARGS, m.askId, true, false, error));
  }
}
