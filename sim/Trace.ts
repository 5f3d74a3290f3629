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

/** A subscription: when `predicate` holds for an event, `action` is queued. */
interface Subscription {
  readonly id: number;
  readonly predicate: (e: TraceEvent) => boolean;
  readonly action: (e: TraceEvent) => void;
  readonly once: boolean;
}

const EMPTY: TraceAttrs = Object.freeze({});

export class Trace {
  private readonly stored: TraceEvent[] = [];
  private readonly hasher = new TraceHash();
  private readonly markCounts = new Map<string, number>();
  private subscriptions: Subscription[] = [];
  private nextSubscription = 0;
  private count = 0;
  /** One-entry cache of the last task label's hash (labels repeat a lot). */
  private lastLabel = '';
  private lastLabelHash = 0;
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
    h.string(host);
    h.string(type);
    for (const k in attrs) {
      h.string(k);
      const v = attrs[k];
      if (typeof v === 'number') h.number(v);
      else if (typeof v === 'string') h.string(v);
      else h.word(v === true ? 1 : v === false ? 2 : 3);
    }
    const limit = this.options.limit;
    const keep = limit === undefined || this.stored.length < limit;
    if (!keep && this.subscriptions.length === 0) return;
    const event: TraceEvent = { seq, timeUs, host, type, attrs };
    if (keep) this.stored.push(event);
    if (this.subscriptions.length > 0) this.notify(event);
  }

  /** Records mark `name` (an event of type `mark`) and counts it. */
  mark(host: string, name: string, attrs: TraceAttrs = EMPTY): void {
    this.markCounts.set(name, (this.markCounts.get(name) ?? 0) + 1);
    this.record(host, 'mark', { name, ...attrs });
  }

  /**
   * Folds one executor task into the hash (and stores it when `storeTasks` is on).
   * `executorHash` is the executor name's string hash.
   */
  task(executorName: string, executorHash: number, label: string): void {
    this.count++;
    const h = this.hasher;
    h.number(this.clock.nowUs);
    h.word(executorHash);
    if (label !== this.lastLabel) {
      this.lastLabel = label;
      this.lastLabelHash = h.stringHash(label);
    }
    h.word(this.lastLabelHash);
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
   * Subscribes: whenever an event satisfies `predicate`, `action(event)` is queued to run right
   * after the current task. Returns a function that unsubscribes.
   */
  subscribe(
    predicate: (e: TraceEvent) => boolean,
    action: (e: TraceEvent) => void,
    once = false,
  ): () => void {
    const id = this.nextSubscription++;
    this.subscriptions = [...this.subscriptions, { id, predicate, action, once }];
    return () => {
      this.subscriptions = this.subscriptions.filter((s) => s.id !== id);
    };
  }

  private notify(event: TraceEvent): void {
    for (const s of this.subscriptions) {
      if (!s.predicate(event)) continue;
      if (s.once) this.subscriptions = this.subscriptions.filter((x) => x.id !== s.id);
      this.pendingActions.push(() => s.action(event));
    }
  }
}
