/**
 * SimObjectStore: the durable object store for checkpoint data (engine/api ObjectStore.ts). It
 * belongs to the World, not to a host, so it survives every crash; partitions do not cut it.
 *
 * Every operation takes a latency (a delay decision, times `slowFactor` before the heal time but
 * never ending later than one normal latency after the heal time),
 * takes effect at the store when that latency has elapsed, and then completes the caller's
 * future as a task on the `on` executor (dropped if that executor died meanwhile: the effect
 * stays). Injected faults, only before the heal time: a failed operation (StorageError
 * `failed`, nothing happened) and, for writes and deletes, an unknown outcome (a fate decision
 * says whether it happened; the caller gets StorageError `unknown-outcome`), and failures of
 * chosen `put`s only (`putFailure`). Each injected fault is marked (`store-failed`,
 * `store-unknown-outcome`, or the `putFailure` mark).
 *
 * Invariants: stored objects are kept by reference; `list` and `paths` are sorted.
 */
import { CompletableFuture, StorageError } from '../engine/api/index.ts';
import type { DelayDistribution, Executor, ObjectStore, StoredObject } from '../engine/api/index.ts';
import { OneShotEntry, PRIORITY_NORMAL } from './EventQueue.ts';
import type { SimContext } from './SimContext.ts';
import { deliverTo } from './deliverTo.ts';

/** Object store settings. Probabilities in [0, 1]; `slowFactor` >= 1 multiplies latencies. */
export interface ObjectStoreConfig {
  readonly latency: DelayDistribution;
  readonly failProbability?: number;
  readonly unknownOutcomeProbability?: number;
  readonly slowFactor?: number;
  /** The factor for one path, when it differs by path (`slowFactor` is then unused). */
  readonly slowFactorFor?: (path: string) => number;
  /**
   * Failures of the `put`s whose path `applies` (e.g. only tasks' snapshot writes: an async
   * snapshot failure), before the heal time only; each one is marked `mark`.
   */
  readonly putFailure?: {
    readonly probability: number;
    readonly applies: (path: string) => boolean;
    readonly mark: string;
    /** The probability for one path, when it differs by path (at most `probability`). */
    readonly probabilityFor?: (path: string) => number;
  };
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: StorageError };

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The store's operations. */
type OpName = 'put' | 'get' | 'delete' | 'deleteDirectory' | 'list';

/**
 * Each operation's label (delay decisions, the caller's task), built once: the trace hashes a
 * task's label, and the same string object each time makes that a cache hit by identity.
 */
const LABELS: Readonly<Record<OpName, string>> = {
  put: 'store.put', get: 'store.get', delete: 'store.delete',
  deleteDirectory: 'store.deleteDirectory', list: 'store.list',
};

export class SimObjectStore implements ObjectStore {
  private readonly objects = new Map<string, StoredObject>();
  private inFlight = 0;

  constructor(
    private readonly ctx: SimContext,
    private readonly config: ObjectStoreConfig,
  ) {}

  /** Sim-side: operations begun and not yet settled (the drain phase waits for them). */
  get operationsInFlight(): number {
    return this.inFlight;
  }

  /** Sim-side: every stored path, sorted. */
  paths(): string[] {
    return [...this.objects.keys()].sort(byText);
  }

  /** Sim-side: the object at `path`, or undefined. */
  read(path: string): StoredObject | undefined {
    return this.objects.get(path);
  }

  put(path: string, data: unknown, sizeBytes: number, on: Executor): CompletableFuture<void> {
    return this.op({ name: 'put', path, on, mutates: true }, () => {
      this.objects.set(path, { data, sizeBytes });
      return { ok: true, value: undefined };
    });
  }

  get(path: string, on: Executor): CompletableFuture<StoredObject> {
    return this.op({ name: 'get', path, on, mutates: false }, () => {
      const o = this.objects.get(path);
      return o === undefined
        ? { ok: false, error: new StorageError(`no object at ${path}`, 'not-found') }
        : { ok: true, value: o };
    });
  }

  delete(path: string, on: Executor): CompletableFuture<void> {
    return this.op({ name: 'delete', path, on, mutates: true }, () => {
      this.objects.delete(path);
      return { ok: true, value: undefined };
    });
  }

  deleteDirectory(prefix: string, on: Executor): CompletableFuture<void> {
    return this.op({ name: 'deleteDirectory', path: prefix, on, mutates: true }, () => {
      for (const p of this.under(prefix)) this.objects.delete(p);
      return { ok: true, value: undefined };
    });
  }

  list(prefix: string, on: Executor): CompletableFuture<string[]> {
    return this.op({ name: 'list', path: prefix, on, mutates: false }, () => ({ ok: true, value: this.under(prefix) }));
  }

  private under(prefix: string): string[] {
    const dir = prefix.endsWith('/') ? prefix : `${prefix}/`;
    const out: string[] = [];
    for (const p of this.objects.keys()) if (p.startsWith(dir)) out.push(p);
    return out.sort(byText);
  }

  private op<T>(
    o: { name: OpName; path: string; on: Executor; mutates: boolean },
    apply: () => Outcome,
  ): CompletableFuture<T> {
    const ctx = this.ctx;
    const future = new CompletableFuture<T>();
    const faulty = ctx.clock.nowUs < ctx.healTimeUs;
    const label = LABELS[o.name];
    let latency = ctx.choices.delay(label, this.config.latency);
    const slowDecision = ctx.choices.lastDelaySlow;
    const slow = this.config.slowFactorFor?.(o.path) ?? this.config.slowFactor ?? 1;
    if (faulty && slow !== 1) {
      // Slowness is a fault and faults stop at the heal time: an operation slowed before it
      // ends by then, or one normal latency after it (so healed runs really heal).
      const healedEndUs = ctx.healTimeUs + latency;
      latency = Math.min(Math.round(latency * slow), healedEndUs - ctx.clock.nowUs);
    }
    const begin = ctx.trace.recordOutput('store', 'store.begin', { op: o.name, path: o.path });
    // A latency overridden to slow (the spec's overrides): what makes the operation late.
    if (slowDecision) ctx.trace.recordOutput('store', 'store.slow', { op: o.name, path: o.path, latencyUs: latency }, begin);
    this.inFlight++;
    const entry = new OneShotEntry(() => {
      this.inFlight--;
      const outcome = this.settle(o, apply, faulty);
      const end = ctx.trace.record('store', 'store.end', {
        op: o.name, path: o.path, outcome: outcome.ok ? 'ok' : outcome.error.outcome,
      });
      if (!outcome.ok) outcome.error.event = end;
      deliverTo(o.on, label, () => {
        if (outcome.ok) future.complete(outcome.value as T);
        else future.completeExceptionally(outcome.error);
      });
    // Its lane for a priority schedule: the store's answers to the thread that waits for them.
    }, begin, ctx.trace, `store:${o.on.name}`);
    ctx.queue.push(entry, ctx.clock.nowUs + latency, PRIORITY_NORMAL);
    return future;
  }

  private settle(o: { name: string; path: string; mutates: boolean }, apply: () => Outcome, faulty: boolean): Outcome {
    const choices = this.ctx.choices;
    const failP = this.config.failProbability ?? 0;
    if (faulty && failP > 0 && choices.fate('store.fail', failP)) {
      // What follows (the failed end, the caller's handling) is the fault's doing.
      this.ctx.trace.cause = this.ctx.trace.mark('store', 'store-failed', { op: o.name, path: o.path },
        this.ctx.trace.settingFaultCause('store-failure'));
      return { ok: false, error: new StorageError(`${o.name} ${o.path} failed`, 'failed') };
    }
    const put = this.config.putFailure;
    // After the heal time, or for anything but a state file's put, no path is looked at.
    const putP = !faulty || put === undefined || o.name !== 'put' || !put.applies(o.path) ? 0
      : put.probabilityFor?.(o.path) ?? put.probability;
    if (put !== undefined && putP > 0 && choices.fate('store.put-fail', putP)) {
      this.ctx.trace.cause = this.ctx.trace.mark('store', put.mark, { op: o.name, path: o.path },
        this.ctx.trace.settingFaultCause('async-snapshot-failure'));
      return { ok: false, error: new StorageError(`${o.name} ${o.path} failed`, 'failed') };
    }
    const unknownP = this.config.unknownOutcomeProbability ?? 0;
    if (faulty && o.mutates && unknownP > 0 && choices.fate('store.unknown-outcome', unknownP)) {
      const happened = choices.fate('store.unknown-applied', 0.5);
      if (happened) apply();
      this.ctx.trace.record('store', 'store.unknown-outcome', { op: o.name, path: o.path, happened },
        this.ctx.trace.settingFaultCause('store-unknown-outcome'));
      this.ctx.trace.mark('store', 'store-unknown-outcome', { op: o.name, path: o.path, happened });
      return { ok: false, error: new StorageError(`${o.name} ${o.path}: outcome unknown`, 'unknown-outcome') };
    }
    return apply();
  }
}
