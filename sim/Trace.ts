/**
 * Trace: the typed log of a run. Every event is folded into an incremental hash (TraceHash), so a
 * changed interleaving changes the hash; stored events may be capped (`limit`), the hash still
 * covers all of them. Executor tasks are folded into the hash (time, executor, label) but stored
 * only when `storeTasks` is on. Marks ("sometimes" situations, ORACLES.md 9) are events of type
 * `mark` and are counted by name.
 *
 * Subscribers (the harness's protocol-point faults) see each recorded event; their actions are
 * queued and the World runs them right after the current task, before any other event.
 *
 * Invariants: `seq` numbers every recorded event from 0 without gaps (stored or not); the hash
 * depends only on (seq, time, host, type, attrs) values in order.
 */
import type { TraceAttrs } from '../engine/api/index.ts';
import { TraceHash } from './TraceHash.ts';

/** One recorded event. */
export interface TraceEvent {
  readonly seq: number;
  readonly timeUs: number;
  readonly host: string;
  readonly type: string;
  readonly attrs: TraceAttrs;
}

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

/** Slots of {@link Trace}'s event-shape cache, minus one (a power of two minus one). */
const SHAPE_SLOTS_MASK = 127;

/** How many hosts' hashes {@link Trace} keeps at hand (more hosts use the hasher's cache). */
const MAX_CACHED_HOSTS = 8;

/** What {@link Trace.record} keeps per event type to hash and route events cheaply. */
interface EventShape {
  readonly typeHash: number;
  /** Attribute names in first-seen order, and their string hashes. */
  readonly keys: string[];
  readonly keyHashes: number[];
  /** Per attribute name: its last string value and that value's hash. */
  readonly lastValues: (string | undefined)[];
  readonly lastValueHashes: number[];
  /** `watched` holds for this subscription version. */
  watchedVersion: number;
  /** Whether some subscription may want events of this type. */
  watched: boolean;
}

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
  private count = 0;
  /**
   * Per event type: its string hash, the attribute names first seen with it with their string
   * hashes and last string values (see {@link record}), and whether a subscription watches it.
   */
  private readonly shapes = new Map<string, EventShape>();
  /** The direct-mapped cache of {@link shapeOf}: types and their shapes by slot. */
  private readonly shapeSlotTypes: (string | undefined)[] = [];
  private readonly shapeSlots: (EventShape | undefined)[] = [];
  /** Grows whenever a subscription is made or removed (shapes cache whether theirs is watched). */
  private subscriptionVersion = 0;
  /** The hosts seen so far (a world has a handful) and their string hashes, see {@link hostHash}. */
  private readonly hosts: string[] = [];
  private readonly hostHashes: number[] = [];
  /** Actions queued by subscriptions, run by the World after the current task. */
  readonly pendingActions: (() => void)[] = [];

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

  /** Records event `type` on `host` at the current time. */
  record(host: string, type: string, attrs: TraceAttrs = EMPTY): void {
    const seq = this.count++;
    const timeUs = this.clock.nowUs;
    const h = this.hasher;
    h.number(timeUs);
    h.word(this.hostHash(host));
    // The hash folds the type and every attribute name as their string hashes. Events of one
    // type nearly always carry the same names in the same order, so the names' hashes are kept
    // per type and a name is looked up in the hasher's cache only when it differs; so is each
    // name's last string value (an address, a task, a path repeats from one event to the next).
    const shape = this.shapeOf(type);
    h.word(shape.typeHash);
    const keys = shape.keys;
    let i = 0;
    for (const k in attrs) {
      let kh: number;
      const own = i < keys.length && keys[i] === k;
      if (own) {
        kh = shape.keyHashes[i] as number;
      } else {
        kh = h.stringHash(k);
        if (i === keys.length) {
          keys.push(k);
          shape.keyHashes.push(kh);
          shape.lastValues.push(undefined);
          shape.lastValueHashes.push(0);
        }
      }
      h.word(kh);
      const v = attrs[k];
      if (typeof v === 'number') {
        h.number(v);
      } else if (typeof v === 'string') {
        if (!own) {
          h.string(v);
        } else if (v === shape.lastValues[i]) {
          h.word(shape.lastValueHashes[i] as number);
        } else {
          const vh = h.stringHash(v);
          shape.lastValues[i] = v;
          shape.lastValueHashes[i] = vh;
          h.word(vh);
        }
      } else {
        h.word(v === true ? 1 : v === false ? 2 : 3);
      }
      i++;
    }
    const limit = this.options.limit;
    const keep = limit === undefined || this.stored.length < limit;
    if (shape.watchedVersion !== this.subscriptionVersion) {
      shape.watchedVersion = this.subscriptionVersion;
      shape.watched = this.untypedSubscriptions > 0 || this.typedSubscriptions.has(type);
    }
    const watched = shape.watched;
    if (!keep && !watched) return;
    const event: TraceEvent = { seq, timeUs, host, type, attrs };
    if (keep) this.stored.push(event);
    if (watched) this.notify(event);
  }

  /**
   * The shape of events of `type`. Types are string literals, so a small direct-mapped cache
   * (slot from the length and two characters) mostly answers by identity, cheaper than the map.
   */
  private shapeOf(type: string): EventShape {
    const n = type.length;
    const mix = n === 0 ? 0 : n ^ (type.charCodeAt(n - 1) << 1) ^ (type.charCodeAt(n >> 1) << 3);
    const slot = mix & SHAPE_SLOTS_MASK;
    if (this.shapeSlotTypes[slot] === type) return this.shapeSlots[slot] as EventShape;
    let shape = this.shapes.get(type);
    if (shape === undefined) {
      shape = {
        typeHash: this.hasher.stringHash(type), keys: [], keyHashes: [], lastValues: [],
        lastValueHashes: [], watchedVersion: -1, watched: false,
      };
      this.shapes.set(type, shape);
    }
    this.shapeSlotTypes[slot] = type;
    this.shapeSlots[slot] = shape;
    return shape;
  }

  /**
   * The string hash of `host`. A world has a handful of hosts, and comparing with each (the same
   * string objects recur, so mostly by identity) is cheaper than a lookup in the hasher's map.
   */
  private hostHash(host: string): number {
    const hosts = this.hosts;
    for (let i = 0; i < hosts.length; i++) if (hosts[i] === host) return this.hostHashes[i] as number;
    const hash = this.hasher.stringHash(host);
    if (hosts.length < MAX_CACHED_HOSTS) {
      hosts.push(host);
      this.hostHashes.push(hash);
    }
    return hash;
  }

  /** Records mark `name` (an event of type `mark`) and counts it. */
  mark(host: string, name: string, attrs: TraceAttrs = EMPTY): void {
    this.markCounts.set(name, (this.markCounts.get(name) ?? 0) + 1);
    this.record(host, 'mark', { name, ...attrs });
  }

  /**
   * Folds one executor task into the hash (and stores it when `storeTasks` is on).
   * `executorHash` and `labelHash` are the executor name's and the label's string hashes
   * ({@link TraceHash.stringHash}; the executor keeps them, as its labels repeat).
   */
  task(executorName: string, executorHash: number, label: string, labelHash: number): void {
    this.count++;
    const h = this.hasher;
    h.number(this.clock.nowUs);
    h.word(executorHash);
    h.word(labelHash);
    if (this.options.storeTasks === true) {
      const limit = this.options.limit;
      if (limit === undefined || this.stored.length < limit) {
        this.stored.push({
          seq: this.count - 1, timeUs: this.clock.nowUs, host: executorName.split('/')[0] ?? '',
          type: 'task', attrs: { executor: executorName, label },
        });
      }
    }
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
    this.subscriptionVersion++;
    if (sub.types === undefined) {
      this.untypedSubscriptions += delta;
      return;
    }
    for (const type of sub.types) {
      const n = (this.typedSubscriptions.get(type) ?? 0) + delta;
      if (n === 0) this.typedSubscriptions.delete(type);
      else this.typedSubscriptions.set(type, n);
    }
  }

  private notify(event: TraceEvent): void {
    for (const s of this.subscriptions) {
      if (s.types !== undefined && !s.types.has(event.type)) continue;
      if (!s.predicate(event)) continue;
      if (s.once) this.remove(s);
      this.pendingActions.push(() => s.action(event));
    }
  }
}
