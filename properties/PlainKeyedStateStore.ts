/**
 * The reference fold's keyed state: a plain store per keyed operator (state name → key → value)
 * and a trivial {@link KeyedContext} over it, so F runs the job's own keyed functions without the
 * engine's state backend, key groups or snapshots (ORACLES.md, "the reference fold").
 *
 * Timers are not part of F: any use of the timer service throws. A state name used with two
 * kinds (value and map, say) throws, as Flink does for incompatible descriptors.
 *
 * Invariant: empty map and list states and cleared value states hold no entry for their key, so
 * {@link PlainKeyedStateStore.view} lists only keys with state.
 */
import type {
  Key, KeyedContext, ListState, MapState, StateDescriptor, TimerService, ValueState,
} from '../engine/index.ts';
import { canonicalEqual } from './canonicalString.ts';
import { FoldUnsupportedError } from './FoldUnsupportedError.ts';

type Kind = StateDescriptor['kind'];

interface NamedState {
  readonly kind: Kind;
  /** key → value (value state), Map (map state) or array (list state). */
  readonly perKey: Map<Key, unknown>;
  /** key → the handle of this state bound to that key (made on first use, then reused). */
  readonly handles: Map<Key, unknown>;
}

/** Decoded keyed state of one operator: state name → String(key) → value. */
export type OperatorStateView = Record<string, Record<string, unknown>>;

/** The keyed state of one operator in the reference fold. */
export class PlainKeyedStateStore {
  private readonly states = new Map<string, NamedState>();
  /** key → its context; F calls the function once per record, so contexts are kept per key. */
  private readonly contexts = new Map<Key, KeyedContext>();
  private currentKey: Key | undefined;

  /** @param operatorName the operator's name, for errors (default its uid). */
  constructor(private readonly operatorUid: string, private readonly operatorName: string = operatorUid) {}

  /**
   * The context for one call of a keyed function on `key`. Contexts and state handles are bound
   * to one key and reused for it (not allocated per record): a handle used while another key is
   * current still throws.
   */
  contextFor(key: Key): KeyedContext {
    this.currentKey = key;
    let ctx = this.contexts.get(key);
    if (ctx === undefined) {
      ctx = new PlainKeyedContext(this, key);
      this.contexts.set(key, ctx);
    }
    return ctx;
  }

  /**
   * The store as `{ [stateName]: { [String(key)]: value } }`: value states as stored, map states
   * as plain objects `{ [String(mapKey)]: value }`, list states as arrays. Every declared state
   * name appears, possibly with no keys.
   */
  view(): OperatorStateView {
    const out: OperatorStateView = {};
    for (const [name, state] of this.states) {
      const byKey: Record<string, unknown> = {};
      for (const [key, v] of state.perKey) {
        if (state.kind === 'map') {
          const obj: Record<string, unknown> = {};
          for (const [k, x] of v as Map<string | number, unknown>) obj[String(k)] = x;
          byKey[String(key)] = obj;
        } else {
          byKey[String(key)] = state.kind === 'list' ? (v as unknown[]).slice() : v;
        }
      }
      out[name] = byKey;
    }
    return out;
  }

  /**
   * Whether `actual` (an operator's keyed state as an oracle decoded it) certainly equals
   * {@link view}, as compareKeyedState (oracles/compareKeyedState.ts) judges it: every key of
   * either side has canonically equal values on both. Decided without building the view: the
   * consistent-cut oracle asks this at every completed checkpoint, and the view copies every
   * key and every map state into objects whose keys it then has to list again.
   *
   * True only if the comparison would find no diff. False when it would, or when this walk
   * cannot tell; the caller then compares the built view. Not decided here: keys of one state (or
   * of one map state value) of more than one type, whose String forms may collide in the view
   * (1 and '1'); a key `__proto__`, which the view cannot hold as its own; keys in `actual`
   * whose value is undefined.
   */
  matchesView(actual: OperatorStateView | undefined): boolean {
    const a = actual ?? NO_STATE;
    let names = 0;
    for (const [name, state] of this.states) {
      // As compareKeyedState reads a side: a missing state name holds no keys.
      const ak = a[name] ?? NO_KEYS;
      if (isEnumerable.call(a, name)) names++;
      const map = state.kind === 'map';
      let keyType: string | undefined;
      for (const [key, v] of state.perKey) {
        const type = typeof key;
        if (type !== (keyType ??= type)) return false;
        const k = String(key);
        if (k === '__proto__' || !isEnumerable.call(ak, k)) return false;
        const av = ak[k];
        // A list state's view is a copy of the array, with the same canonical text.
        if (map ? !mapMatches(v as Map<unknown, unknown>, av) : !canonicalEqual(v, av)) return false;
      }
      // Each of the view's keys is an enumerable own key of `ak` (String is one to one on keys
      // of one type): as many keys means the same keys.
      if (Object.keys(ak).length !== state.perKey.size) return false;
    }
    // State names only `actual` has must hold no keys (compareKeyedState: an empty state equals
    // an absent one).
    const actualNames = Object.keys(a);
    if (actualNames.length === names) return true;
    for (const name of actualNames) {
      if (!this.states.has(name) && Object.keys(a[name] ?? NO_KEYS).length > 0) return false;
    }
    return true;
  }

  /** State `name`, registered as `kind` on first use. @throws Error for another kind. */
  named(name: string, kind: Kind): NamedState {
    const existing = this.states.get(name);
    if (existing === undefined) {
      const created: NamedState = { kind, perKey: new Map(), handles: new Map() };
      this.states.set(name, created);
      return created;
    }
    if (existing.kind !== kind) {
      throw new Error(`operator ${this.operatorUid}: state '${name}' is ${existing.kind} state, `
        + `asked for as ${kind}`);
    }
    return existing;
  }

  /** @throws Error unless `key` is the current key (a handle kept past its call). */
  checkKey(key: Key): void {
    // A handle kept past its call would write under another key in the engine; refuse it here.
    if (this.currentKey !== key) {
      throw new Error(`operator ${this.operatorUid}: state handle of key ${String(key)} `
        + `used for key ${String(this.currentKey)}`);
    }
  }

  /**
   * A timer service whose every method throws a {@link FoldUnsupportedError} naming the operator
   * and the method (F has no timers).
   */
  noTimers(): TimerService {
    const fail = (method: string) => (): never => {
      throw new FoldUnsupportedError(this.operatorUid, this.operatorName,
        `uses timers (timerService().${method})`);
    };
    return {
      currentProcessingTimeMs: fail('currentProcessingTimeMs'),
      registerProcessingTimeTimer: fail('registerProcessingTimeTimer'),
      deleteProcessingTimeTimer: fail('deleteProcessingTimeTimer'),
    };
  }
}

const NO_STATE: OperatorStateView = Object.freeze({});
const NO_KEYS: Record<string, unknown> = Object.freeze({});
const isEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * Whether `actual` certainly has the canonical text of a map state value's view `{ [String(k)]:
 * v }` (see {@link PlainKeyedStateStore.matchesView}): a plain object (canonicalString writes
 * arrays, Maps and Sets otherwise) with the same keys, each value canonically equal. False when
 * not, or not decided here.
 */
function mapMatches(m: Map<unknown, unknown>, actual: unknown): boolean {
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)
    || actual instanceof Map || actual instanceof Set) return false;
  const a = actual as Record<string, unknown>;
  let keyType: string | undefined;
  for (const [key, v] of m) {
    const type = typeof key;
    if (type !== (keyType ??= type)) return false;
    const k = String(key);
    if (k === '__proto__' || !isEnumerable.call(a, k) || !canonicalEqual(v, a[k])) return false;
  }
  return Object.keys(a).length === m.size;
}

/** The context of one key (see {@link PlainKeyedStateStore.contextFor}). */
class PlainKeyedContext implements KeyedContext {
  /** The last handle asked for (functions ask for the same state on every record). */
  private lastName = '';
  private lastKind: Kind | undefined;
  private lastHandle: unknown;

  constructor(private readonly store: PlainKeyedStateStore, private readonly key: Key) {}

  getCurrentKey(): Key {
    return this.key;
  }

  getState<V>(d: { kind: 'value'; name: string }): ValueState<V> {
    return this.handle(d.name, 'value') as ValueState<V>;
  }

  getMapState<MK extends string | number, V>(d: { kind: 'map'; name: string }): MapState<MK, V> {
    return this.handle(d.name, 'map') as MapState<MK, V>;
  }

  getListState<V>(d: { kind: 'list'; name: string }): ListState<V> {
    return this.handle(d.name, 'list') as ListState<V>;
  }

  timerService(): TimerService {
    return this.store.noTimers();
  }

  /** The handle of state `name` bound to this key, made on first use. */
  private handle(name: string, kind: Kind): unknown {
    if (name === this.lastName && kind === this.lastKind) return this.lastHandle;
    const named = this.store.named(name, kind);
    let h = named.handles.get(this.key);
    if (h === undefined) {
      h = kind === 'value' ? new PlainValueState(this.store, named.perKey, this.key)
        : kind === 'map' ? new PlainMapState(this.store, named.perKey, this.key)
          : new PlainListState(this.store, named.perKey, this.key);
      named.handles.set(this.key, h);
    }
    this.lastName = name;
    this.lastKind = kind;
    this.lastHandle = h;
    return h;
  }
}

class PlainValueState<V> implements ValueState<V> {
  constructor(
    private readonly store: PlainKeyedStateStore,
    private readonly perKey: Map<Key, unknown>,
    private readonly key: Key,
  ) {}

  value(): V | undefined {
    this.store.checkKey(this.key);
    return this.perKey.get(this.key) as V | undefined;
  }

  update(v: V): void {
    this.store.checkKey(this.key);
    if (v === undefined) this.perKey.delete(this.key); else this.perKey.set(this.key, v);
  }

  clear(): void {
    this.store.checkKey(this.key);
    this.perKey.delete(this.key);
  }
}

class PlainMapState<MK extends string | number, V> implements MapState<MK, V> {
  constructor(
    private readonly store: PlainKeyedStateStore,
    private readonly perKey: Map<Key, unknown>,
    private readonly key: Key,
  ) {}

  get(k: MK): V | undefined {
    return this.read().get(k);
  }

  put(k: MK, v: V): void {
    const m = this.read();
    m.set(k, v);
    this.write(m);
  }

  remove(k: MK): void {
    const m = this.read();
    m.delete(k);
    this.write(m);
  }

  contains(k: MK): boolean {
    return this.read().has(k);
  }

  entries(): [MK, V][] {
    return [...this.read().entries()];
  }

  isEmpty(): boolean {
    return this.read().size === 0;
  }

  clear(): void {
    this.store.checkKey(this.key);
    this.perKey.delete(this.key);
  }

  private read(): Map<MK, V> {
    this.store.checkKey(this.key);
    return (this.perKey.get(this.key) as Map<MK, V> | undefined) ?? new Map();
  }

  private write(m: Map<MK, V>): void {
    if (m.size === 0) this.perKey.delete(this.key); else this.perKey.set(this.key, m);
  }
}

class PlainListState<V> implements ListState<V> {
  constructor(
    private readonly store: PlainKeyedStateStore,
    private readonly perKey: Map<Key, unknown>,
    private readonly key: Key,
  ) {}

  get(): V[] {
    return [...this.read()];
  }

  add(v: V): void {
    this.write([...this.read(), v]);
  }

  update(vs: readonly V[]): void {
    this.store.checkKey(this.key);
    this.write([...vs]);
  }

  clear(): void {
    this.store.checkKey(this.key);
    this.perKey.delete(this.key);
  }

  private read(): V[] {
    this.store.checkKey(this.key);
    return (this.perKey.get(this.key) as V[] | undefined) ?? [];
  }

  private write(l: V[]): void {
    if (l.length === 0) this.perKey.delete(this.key); else this.perKey.set(this.key, l);
  }
}
