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

type Kind = StateDescriptor['kind'];

interface NamedState {
  readonly kind: Kind;
  /** key → value (value state), Map (map state) or array (list state). */
  readonly perKey: Map<Key, unknown>;
}

/** Decoded keyed state of one operator: state name → String(key) → value. */
export type OperatorStateView = Record<string, Record<string, unknown>>;

/** The keyed state of one operator in the reference fold. */
export class PlainKeyedStateStore {
  private readonly states = new Map<string, NamedState>();
  private currentKey: Key | undefined;

  constructor(private readonly operatorUid: string) {}

  /** The context for one call of a keyed function on `key`. */
  contextFor(key: Key): KeyedContext {
    this.currentKey = key;
    return {
      getCurrentKey: () => key,
      getState: <V>(d: { kind: 'value'; name: string }) => this.valueState<V>(d.name, key),
      getMapState: <MK extends string | number, V>(d: { kind: 'map'; name: string }) =>
        this.mapState<MK, V>(d.name, key),
      getListState: <V>(d: { kind: 'list'; name: string }) => this.listState<V>(d.name, key),
      timerService: () => this.noTimers(),
    };
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
          const entries = [...(v as Map<string | number, unknown>)];
          byKey[String(key)] = Object.fromEntries(entries.map(([k, x]) => [String(k), x]));
        } else {
          byKey[String(key)] = state.kind === 'list' ? [...(v as unknown[])] : v;
        }
      }
      out[name] = byKey;
    }
    return out;
  }

  private named(name: string, kind: Kind): Map<Key, unknown> {
    const existing = this.states.get(name);
    if (existing === undefined) {
      const created: NamedState = { kind, perKey: new Map() };
      this.states.set(name, created);
      return created.perKey;
    }
    if (existing.kind !== kind) {
      throw new Error(`operator ${this.operatorUid}: state '${name}' is ${existing.kind} state, `
        + `asked for as ${kind}`);
    }
    return existing.perKey;
  }

  private checkKey(key: Key): void {
    // A handle kept past its call would write under another key in the engine; refuse it here.
    if (this.currentKey !== key) {
      throw new Error(`operator ${this.operatorUid}: state handle of key ${String(key)} `
        + `used for key ${String(this.currentKey)}`);
    }
  }

  private valueState<V>(name: string, key: Key): ValueState<V> {
    const perKey = this.named(name, 'value');
    return {
      value: () => { this.checkKey(key); return perKey.get(key) as V | undefined; },
      update: (v: V) => {
        this.checkKey(key);
        if (v === undefined) perKey.delete(key); else perKey.set(key, v);
      },
      clear: () => { this.checkKey(key); perKey.delete(key); },
    };
  }

  private mapState<MK extends string | number, V>(name: string, key: Key): MapState<MK, V> {
    const perKey = this.named(name, 'map');
    const read = (): Map<MK, V> => {
      this.checkKey(key);
      return (perKey.get(key) as Map<MK, V> | undefined) ?? new Map();
    };
    const write = (m: Map<MK, V>): void => {
      if (m.size === 0) perKey.delete(key); else perKey.set(key, m);
    };
    return {
      get: (k) => read().get(k),
      put: (k, v) => { const m = read(); m.set(k, v); write(m); },
      remove: (k) => { const m = read(); m.delete(k); write(m); },
      contains: (k) => read().has(k),
      entries: () => [...read().entries()],
      isEmpty: () => read().size === 0,
      clear: () => { this.checkKey(key); perKey.delete(key); },
    };
  }

  private listState<V>(name: string, key: Key): ListState<V> {
    const perKey = this.named(name, 'list');
    const read = (): V[] => {
      this.checkKey(key);
      return (perKey.get(key) as V[] | undefined) ?? [];
    };
    const write = (l: V[]): void => {
      if (l.length === 0) perKey.delete(key); else perKey.set(key, l);
    };
    return {
      get: () => [...read()],
      add: (v) => write([...read(), v]),
      update: (vs) => { this.checkKey(key); write([...vs]); },
      clear: () => { this.checkKey(key); perKey.delete(key); },
    };
  }

  private noTimers(): TimerService {
    const fail = (): never => {
      throw new Error(`operator ${this.operatorUid}: timers are not supported by the reference `
        + 'fold (ORACLES.md: F has no timers)');
    };
    return {
      currentProcessingTimeMs: fail,
      registerProcessingTimeTimer: fail,
      deleteProcessingTimeTimer: fail,
    };
  }
}
