/**
 * Trace: the typed log of a run. Every event is folded into an incremental hash (TraceHash), so a
 * changed interleaving changes the hash; stored events may be capped (`limit`), the hash still
 * covers all of them. Executor tasks are folded into the hash (time, executor, label) but stored
 * only when `storeTasks` is on, with when the task began paying its cost and the last event it
 * recorded (see {@link Trace.task}); neither is hashed. Marks ("sometimes" situations, ORACLES.md 9) are events of type
 * `mark` and are counted by name.
 *
 * Subscribers (the harness's protocol-point faults) see each recorded event; their actions are
 * queued and the World runs them right after the current task, before any other event.
 *
 * Cause links: an event's `cause` is the `seq` of the event that caused it (absent for a root:
 * a fault at a time, the run's setup). The sim keeps a *current cause*: the event that led to
 * the work being done now. Every lane of the event queue (an executor's task, a timer, an RPC
 * message, a data item, a store operation) remembers the current cause when it is scheduled and
 * restores it when it runs; each recorded event takes the current cause unless its recorder
 * names one, and then becomes the current cause itself (except output: an RPC send, a store
 * operation's begin and a mark take the current cause but leave it). So a delivery's cause is its send, a
 * timeout's its timer's scheduling, an action's the event a protocol point matched. Causes are
 * not folded into the hash: they are a function of the run, and leaving them out keeps every
 * trace hash of a run the same whether or not anyone reads them.
 *
 * Invariants: `seq` numbers every recorded event from 0 without gaps (stored or not); the hash
 * depends only on (seq, time, host, type, attrs) values in order; a `cause` is always smaller
 * than the event's own `seq`.
 */
import type { TraceAttrs } from '../engine/api/index.ts';
import { TraceHash, stringHash } from './TraceHash.ts';

/** One recorded event. */
export interface TraceEvent {
  readonly seq: number;
  readonly timeUs: number;
  readonly host: string;
  readonly type: string;
  readonly attrs: TraceAttrs;
  /** The `seq` of the event that caused this one (see the file comment); absent for a root. */
  readonly cause?: number;
}

/** No cause: the value of {@link Trace.cause} outside any caused work. */
export const NO_CAUSE = -1;

/**
 * A subscription: when `predicate` holds for an event (of one of `types`, when given), `action`
 * is queued.
 */
interface Subscription {
  readonly id: number;
  readonly predicate: (e: TraceEvent) => boolean;
  readonly action: (e: TraceEvent) => void;
  readonly once: boolean;
  readonly types: ReadonlySet<string> | undefined;
}

/** Options of {@link Trace.subscribe}. */
export interface SubscribeOptions {
  /** Unsubscribe after the first event that satisfies the predicate. */
  readonly once?: boolean;
  /**
   * Only events of these types are offered to the predicate. Events no subscription can want
   * and no storage keeps are then never built as objects, which keeps recording cheap.
   */
  readonly types?: readonly string[];
}

const EMPTY: TraceAttrs = Object.freeze({});

/**
 * What {@link Trace.record} keeps per event type, found with one map lookup per event: the
 * type's string hash, its index into each trace's "watched" flags, and the attribute names of
 * its first event (then of longer ones, if any) with their string hashes. Events of one type
 * come from a few call sites and nearly always carry the same names in the same order, so a
 * name is hashed again only where it differs from the one remembered at its position.
 *
 * The table is shared by every Trace of the process, like the string-hash cache and for the
 * same reason: an entry is a pure function of the type name (names are remembered only to skip
 * hashing them again, and a name is compared before its hash is used), so sharing cannot change
 * any hash, and a world per run (explore, the benches) would otherwise register its hundred
 * event types again. Event types are the engine's and the sim's constants; the table stops
 * growing at {@link MAX_SHARED_TYPES} all the same (later types get an entry of their own per
 * event, which only costs time).
 */
interface EventType {
  /** Index into {@link Trace}'s watched flags; {@link MAX_SHARED_TYPES} for an unshared entry. */
  readonly id: number;
  readonly typeHash: number;
  readonly keys: string[];
  readonly keyHashes: number[];
}

const MAX_SHARED_TYPES = 1024;
const sharedTypes = new Map<string, EventType>();

/** The shared entry of event type `type`, made (without names yet) on first use. */
function eventType(type: string): EventType {
  let t = sharedTypes.get(type);
  if (t === undefined) {
    const full = sharedTypes.size >= MAX_SHARED_TYPES;
    t = { id: full ? MAX_SHARED_TYPES : sharedTypes.size, typeHash: stringHash(type), keys: [], keyHashes: [] };
    if (!full) sharedTypes.set(type, t);
  }
  return t;
}

/** The hash of attribute name `k` at position `i` of an event of type `t`, remembered there. */
function keyHash(t: EventType, i: number, k: string): number {
  const kh = stringHash(k);
  if (i === t.keys.length) {
    t.keys.push(k);
    t.keyHashes.push(kh);
  }
  return kh;
}

/** The attributes of an `rpc.send` event ({@link Trace.recordRpcSend}), in this order. */
export interface RpcSendAttrs extends TraceAttrs {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly kind: string;
  readonly method: string;
  readonly answer: boolean;
}

const RPC_SEND = eventType('rpc.send');
/** The string hashes of the {@link RpcSendAttrs} names, in order. */
const RPC_SEND_KEY_HASHES = ['id', 'from', 'to', 'kind', 'method', 'answer'].map((k) => stringHash(k));

export class Trace {
  private readonly stored: TraceEvent[] = [];
  private readonly hasher = new TraceHash();
  private readonly markCounts = new Map<string, number>();
  private subscriptions: Subscription[] = [];
  /** Subscriptions without `types` (they see every event). */
  private untypedSubscriptions = 0;
  /** Event type -> how many typed subscriptions name it. */
  private readonly typedSubscriptions = new Map<string, number>();
  private nextSubscription = 0;
  /**
   * 1 at {@link EventType.id} for each event type a typed subscription names (untyped ones
   * watch every type: {@link untypedSubscriptions}).
   */
  private readonly watchedTypes = new Uint8Array(MAX_SHARED_TYPES);
  private count = 0;
  private droppedCount = 0;
  /** The attributes of the stored task event that is running, to fill in `lastSeq` at its end. */
  private openTask: { lastSeq?: number } | undefined;
  /** Actions queued by subscriptions, run by the World after the current task. */
  readonly pendingActions: (() => void)[] = [];
  /**
   * The current cause: the `seq` of the event behind the work being done now, or
   * {@link NO_CAUSE}. Lanes of the event queue save it when work is scheduled and set it back
   * when the work runs; {@link record} gives it to each event and then makes that event current.
   */
  cause = NO_CAUSE;
  /**
   * The `fault` start event of each world-setting fault type (`store-failure`, `rpc-loss`, ...),
   * noted by the fault plan: what the sim decides by chance under such a fault (a failed write,
   * a lost RPC) is caused by it.
   */
  readonly settingFaults = new Map<string, number>();

  /**
   * @param clock where the current virtual time is read (`nowUs`).
   * @param options `limit`: how many events to store (default unlimited); `storeTasks`: store
   *   executor task events too (default false).
   */
  constructor(
    private readonly clock: { readonly nowUs: number },
    private readonly options: { readonly limit?: number; readonly storeTasks?: boolean } = {},
  ) {}

  /** The stored events (the first `limit`). */
  get events(): readonly TraceEvent[] {
    return this.stored;
  }

  /** How many recorded events (not executor tasks) were not stored because of `limit`. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** How many events were recorded (stored or not). */
  get eventCount(): number {
    return this.count;
  }

  /** The hash of everything recorded so far, 16 hex digits. */
  get hash(): string {
    return this.hasher.hex();
  }

  /** Mark counts by name, in first-reached order. */
  get marks(): ReadonlyMap<string, number> {
    return this.markCounts;
  }

  /** The underlying hasher (the kernel folds decisions into it). */
  get hashing(): TraceHash {
    return this.hasher;
  }

  /**
   * Records event `type` on `host` at the current time, caused by `cause` (an earlier event's
   * `seq`; default: the current cause). Returns the event's `seq`.
   */
  record(host: string, type: string, attrs: TraceAttrs = EMPTY, cause: number = this.cause): number {
    return this.recordOn(host, stringHash(host), type, attrs, cause);
  }

  /**
   * {@link record} for a caller that knows `hostHash`, the string hash of `host`
   * ({@link stringHash}): the same event and the same hash.
   */
  recordOn(host: string, hostHash: number, type: string, attrs: TraceAttrs = EMPTY, cause: number = this.cause): number {
    const seq = this.count++;
    const timeUs = this.clock.nowUs;
    const t = sharedTypes.get(type) ?? eventType(type);
    const h = this.hasher;
    h.number(timeUs);
    h.word(hostHash);
    h.word(t.typeHash);
    const keys = t.keys;
    let i = 0;
    for (const k in attrs) {
      h.word(i < keys.length && keys[i] === k ? t.keyHashes[i] as number : keyHash(t, i, k));
      i++;
      const v = attrs[k];
      if (typeof v === 'number') h.number(v);
      else if (typeof v === 'string') h.string(v);
      else h.word(v === true ? 1 : v === false ? 2 : 3);
    }
    this.finish(seq, timeUs, host, type, attrs, t, cause);
    return seq;
  }

  /**
   * Records an `rpc.send` event for RpcNetwork, which knows the string hashes of the host and of
   * every string attribute (they are fixed per address, kind and method): the same event and the
   * same hash as `record(host, 'rpc.send', attrs)`, with the attributes in the order of
   * {@link RpcSendAttrs}. Saves hashing four strings for the most frequent event of a run.
   */
  recordRpcSend(
    host: string, hostHash: number, attrs: RpcSendAttrs,
    fromHash: number, toHash: number, kindHash: number, methodHash: number,
  ): number {
    const seq = this.count++;
    const timeUs = this.clock.nowUs;
    const t = RPC_SEND;
    const h = this.hasher;
    h.number(timeUs);
    h.word(hostHash);
    h.word(t.typeHash);
    const kh = RPC_SEND_KEY_HASHES;
    h.word(kh[0] as number);
    h.number(attrs.id);
    h.word(kh[1] as number);
    h.word(fromHash);
    h.word(kh[2] as number);
    h.word(toHash);
    h.word(kh[3] as number);
    h.word(kindHash);
    h.word(kh[4] as number);
    h.word(methodHash);
    h.word(kh[5] as number);
    h.word(attrs.answer ? 1 : 2);
    // A send is output: what the task does next is not its doing (the message's delivery is).
    const current = this.cause;
    this.finish(seq, timeUs, host, 'rpc.send', attrs, t, current);
    this.cause = current;
    return seq;
  }

  /**
   * {@link record} of an event that is output, not a step of the work: it takes `cause` (default
   * the current cause) but does not become the current cause (a store operation's begin: its end
   * is its doing, what the task does next is not). Returns its `seq`.
   */
  recordOutput(host: string, type: string, attrs: TraceAttrs = EMPTY, cause: number = this.cause): number {
    const current = this.cause;
    const seq = this.recordOn(host, stringHash(host), type, attrs, cause);
    this.cause = current;
    return seq;
  }

  /**
   * Makes event `seq` the current cause, stores it (unless over the limit) and offers it to
   * subscriptions.
   */
  private finish(
    seq: number, timeUs: number, host: string, type: string, attrs: TraceAttrs, t: EventType, cause: number,
  ): void {
    this.cause = seq;
    const limit = this.options.limit;
    const keep = limit === undefined || this.stored.length < limit;
    if (!keep) this.droppedCount++;
    const watched = this.untypedSubscriptions > 0
      || (t.id < MAX_SHARED_TYPES ? this.watchedTypes[t.id] === 1 : this.typedSubscriptions.has(type));
    if (!keep && !watched) return;
    const event: TraceEvent = cause === NO_CAUSE ? { seq, timeUs, host, type, attrs } : { seq, timeUs, host, type, attrs, cause };
    if (keep) this.stored.push(event);
    if (watched) this.notify(event);
  }

  /**
   * Records mark `name` (an event of type `mark`) and counts it, caused by `cause` (default: the
   * current cause); returns its `seq`.
   */
  mark(host: string, name: string, attrs: TraceAttrs = EMPTY, cause: number = this.cause): number {
    this.markCounts.set(name, (this.markCounts.get(name) ?? 0) + 1);
    // A mark annotates the work; it is never the cause of what follows.
    const current = this.cause;
    const seq = this.record(host, 'mark', { name, ...attrs }, cause);
    this.cause = current;
    return seq;
  }

  /** The cause of an effect of world-setting fault type `faultType`: its start, else the current cause. */
  settingFaultCause(faultType: string): number {
    return this.settingFaults.get(faultType) ?? this.cause;
  }

  /**
   * Folds one executor task into the hash (and stores it when `storeTasks` is on).
   * `executorHash` is the executor name's string hash ({@link TraceHash.stringHash}).
   *
   * `startUs` is given for a task that starts running now: when it began paying its cost
   * (virtual µs, at most now); {@link taskDone} must follow when it returns. Without it the event
   * is a marker inside the running task (a `blocked: ...` wait). A stored task is an event of
   * type `task` with attrs `{ executor, label }`, plus `startUs` and `lastSeq` (the seq of the
   * last event recorded before the task returned: events with a seq in between happened inside
   * it) for a task that ran. Neither is hashed: the hash is that of (time, executor, label).
   */
  task(executorName: string, executorHash: number, label: string, startUs?: number): void {
    this.count++;
    const h = this.hasher;
    h.number(this.clock.nowUs);
    h.word(executorHash);
    h.string(label);
    if (this.options.storeTasks === true) {
      const limit = this.options.limit;
      if (limit === undefined || this.stored.length < limit) {
        const attrs: Record<string, string | number> = startUs === undefined
          ? { executor: executorName, label } : { executor: executorName, label, startUs };
        if (startUs !== undefined) this.openTask = attrs;
        this.stored.push({
          seq: this.count - 1, timeUs: this.clock.nowUs, host: executorName.split('/')[0] ?? '',
          type: 'task', attrs,
        });
      }
    }
  }

  /** The task {@link task} started (with `startUs`) returned: its stored event gets `lastSeq`. */
  taskDone(): void {
    const open = this.openTask;
    if (open === undefined) return;
    open.lastSeq = this.count - 1;
    this.openTask = undefined;
  }

  /**
   * Subscribes: whenever an event (of `options.types`, when given) satisfies `predicate`,
   * `action(event)` is queued to run right after the current task; subscriptions are offered an
   * event in the order they were made. Returns a function that unsubscribes (idempotent).
   */
  subscribe(
    predicate: (e: TraceEvent) => boolean,
    action: (e: TraceEvent) => void,
    options: SubscribeOptions = {},
  ): () => void {
    const id = this.nextSubscription++;
    const types = options.types === undefined ? undefined : new Set(options.types);
    const sub: Subscription = { id, predicate, action, once: options.once === true, types };
    this.subscriptions = [...this.subscriptions, sub];
    this.countSubscription(sub, 1);
    return () => this.remove(sub);
  }

  private remove(sub: Subscription): void {
    if (!this.subscriptions.includes(sub)) return;
    this.subscriptions = this.subscriptions.filter((s) => s !== sub);
    this.countSubscription(sub, -1);
  }

  /** Keeps the counts that let {@link record} skip events nobody watches. */
  private countSubscription(sub: Subscription, delta: 1 | -1): void {
    if (sub.types === undefined) {
      this.untypedSubscriptions += delta;
      return;
    }
    for (const type of sub.types) {
      const n = (this.typedSubscriptions.get(type) ?? 0) + delta;
      if (n === 0) this.typedSubscriptions.delete(type);
      else this.typedSubscriptions.set(type, n);
      const id = eventType(type).id;
      if (id < MAX_SHARED_TYPES) this.watchedTypes[id] = n === 0 ? 0 : 1;
    }
  }

  private notify(event: TraceEvent): void {
    for (const s of this.subscriptions) {
      if (s.types !== undefined && !s.types.has(event.type)) continue;
      if (!s.predicate(event)) continue;
      if (s.once) this.remove(s);
      // The action (a protocol-point fault) is caused by the event it matched.
      this.pendingActions.push(() => {
        this.cause = event.seq;
        s.action(event);
      });
    }
  }
}
