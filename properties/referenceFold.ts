/**
 * The reference fold F of ORACLES.md: the logical job applied to its input records with no
 * distribution, no network and no failures. It walks the StreamGraph from its sources, applies
 * the job's own map/filter/flatMap functions and runs its keyed process functions on a
 * {@link PlainKeyedStateStore} per operator, never on the engine's operators or state backend.
 *
 * Order: sources in node order, splits in split-id order, records in offset order, each record
 * pushed depth-first through the whole graph before the next is read; the outputs of one call are
 * collected first and then passed on in emission order. For the order-insensitive jobs oracles
 * judge exactly, the result does not depend on this order.
 *
 * Identity: every input record is `(split, offset, '')`; map and filter keep the identity;
 * flatMap and keyed process outputs are tagged as the engine tags them (outputTag.ts: output i of
 * operator `uid` appends `/<uid>.<i>`, except output 0 of a keyed process function). Split ids are
 * assumed unique across the job's sources (prefixes address splits by id).
 *
 * Not supported (they make F ill-defined, ORACLES.md): broadcast edges and timers; both throw a
 * {@link FoldUnsupportedError}, except at operators F skips ({@link FoldOptions.skip}: those a
 * job's module does not judge, sim/jobs/judgeability.ts).
 */
import type {
  Collector, Key, KeySelector, StreamEdge, StreamGraph, StreamNode, StreamRecord,
} from '../engine/index.ts';
import { FoldUnsupportedError } from './FoldUnsupportedError.ts';
import { flatMapOutputTag, keyedOutputTag, tagSegment } from './outputTag.ts';
import { PlainKeyedStateStore } from './PlainKeyedStateStore.ts';
import type { OperatorStateView } from './PlainKeyedStateStore.ts';
import { foldSkipsOf } from '../sim/jobs/foldSkips.ts';

export type { OperatorStateView } from './PlainKeyedStateStore.ts';

/** Keyed state of a whole job: operator uid → state name → String(key) → value. */
export type KeyedStateView = Record<string, OperatorStateView>;

/** Options of {@link referenceFold}. */
export interface FoldOptions {
  /**
   * F(prefixes): split id → position p; only offsets `< p` of that split are read. When given,
   * every split of every source must have an entry with `0 <= p <= n_s`.
   */
  readonly prefixes?: ReadonlyMap<number, number>;
  /**
   * Records for which this returns false are dropped where they would be delivered (`node`: the
   * target). Default: keep everything. The at-least-once oracle uses it to fold a copy of an
   * input record whose outputs (or inputs of one keyed stage) were only partly processed again,
   * and to see which records reach a keyed stage.
   */
  readonly keep?: (record: StreamRecord, node: StreamNode) => boolean;
  /**
   * Uids of operators F skips (default none): every record reaching one is dropped there, so its
   * functions never run, a broadcast edge into it or a timer in it does not throw, and nothing
   * downstream of it sees those records; a skipped source is not read. Skipped operators have
   * no keyed state and no output list in the result, and {@link foldStateMatches} ignores them.
   * For operators whose judging is all off (checkJudgeable in sim/jobs/judgeability.ts).
   */
  readonly skip?: ReadonlySet<string>;
}

/** What F yields. */
export interface FoldResult {
  /** Every record reaching any sink, with identity, in the order F produced them. */
  readonly outputs: readonly StreamRecord[];
  /** The same records by sink uid (every sink not skipped appears). */
  readonly outputsBySink: ReadonlyMap<string, readonly StreamRecord[]>;
  /** Final keyed state of every keyed operator not skipped (every such uid appears). */
  readonly state: KeyedStateView;
}

/**
 * Runs F over the job's input (the records of its source splits, cut at `prefixes` if given).
 * @throws FoldUnsupportedError for a broadcast edge or a timer (at an operator not skipped).
 * @throws Error for a bad prefix, a skipped uid that names no operator, a key that is not a Key,
 *   or an exception from a user function (a bug in the job, not a violation).
 */
export function referenceFold(graph: StreamGraph, options: FoldOptions = {}): FoldResult {
  const fold = new Fold(graph, options.keep, false, options.skip ?? foldSkipsOf(graph));
  fold.readTo(options.prefixes);
  return fold.result();
}

/** The finished Fold behind each result of {@link referenceFold} (never iterated). */
const foldOf = new WeakMap<FoldResult, Fold>();

/**
 * Whether `actual` certainly equals `fold.state` as compareKeyedState (oracles/compareKeyedState.ts)
 * judges it, no key with a differing value, decided on F's state stores without building the
 * view: see {@link PlainKeyedStateStore.matchesView}. True only if so; false when it differs,
 * when that cannot tell, or when `fold` did not come from {@link referenceFold}. The caller then
 * compares `fold.state`. Operators in `actual` that F has no store for must hold no keys.
 */
export function foldStateMatches(fold: FoldResult, actual: KeyedStateView): boolean {
  const f = foldOf.get(fold);
  return f !== undefined && f.stateMatches(actual);
}

/**
 * F's keyed state over a growing cut of one job's input: each {@link PrefixFold.advanceTo} reads
 * only the records between the cut read so far and the new one, so the state at every completed
 * checkpoint of a run costs about one fold of the input instead of one fold per checkpoint.
 * Outputs are not collected, and stages after the last keyed one do not run: the job's functions
 * there must be pure and total (a function that throws on some record is not found here).
 *
 * Order: within one call, the records are read in {@link referenceFold}'s order. So the first
 * call on a new PrefixFold yields exactly `referenceFold(graph, { prefixes }).state`, key order
 * included. A later call reads only the new records, after all the earlier ones: a split's
 * newer records come after every split's older ones, unlike F's order. Its state equals F's
 * only for jobs whose keyed state does not depend on the order of records, and only up to the
 * order of keys in the view; the caller must know the job is one of them.
 */
export class PrefixFold {
  private readonly fold: Fold;

  /**
   * @param options.skip operators F skips, as {@link FoldOptions.skip}.
   * @throws FoldUnsupportedError for a broadcast edge, Error for a bad skip (as {@link referenceFold}).
   */
  constructor(graph: StreamGraph, options: Pick<FoldOptions, 'skip'> = {}) {
    this.fold = new Fold(graph, undefined, true, options.skip ?? foldSkipsOf(graph));
  }

  /** Whether `prefixes` is at or past the cut read so far in every split (advanceTo can go there). */
  canAdvanceTo(prefixes: ReadonlyMap<number, number>): boolean {
    return this.fold.isAtOrPast(prefixes);
  }

  /**
   * Reads every split up to `prefixes` (see the class comment for when the state equals F's) and
   * returns the keyed state: a new view, which later calls do not change unless a keyed
   * function changes a state value in place.
   * @throws Error as {@link referenceFold} does, or if `prefixes` is behind the cut read so far.
   */
  advanceTo(prefixes: ReadonlyMap<number, number>): KeyedStateView {
    if (!this.fold.isAtOrPast(prefixes)) {
      throw new Error('prefix fold: a cut behind the one already read');
    }
    this.fold.readTo(prefixes);
    return this.fold.state();
  }

  /**
   * Reads every split up to `prefixes`, as {@link advanceTo}, and tells whether `actual` certainly
   * equals the keyed state then, as compareKeyedState judges it (no key with a differing value),
   * without building the view: see {@link PlainKeyedStateStore.matchesView}. True only if so;
   * false when it differs or that cannot tell, and the caller compares a built view instead.
   * @throws Error as {@link advanceTo} does.
   */
  matchesAt(prefixes: ReadonlyMap<number, number>, actual: KeyedStateView): boolean {
    if (!this.fold.isAtOrPast(prefixes)) {
      throw new Error('prefix fold: a cut behind the one already read');
    }
    this.fold.readTo(prefixes);
    return this.fold.stateMatches(actual);
  }
}

/** Where a node's records go: the target node and the edge (for its key selector). */
interface Target {
  readonly node: StreamNode;
  readonly edge: StreamEdge;
}

/**
 * Collects the outputs of one user-function call. One per recursion depth, reused: the outputs
 * of a call are all collected before any is passed on, and passing them on runs deeper calls.
 */
class Outputs implements Collector<unknown> {
  /** The outputs are `values[0..size)`; entries past `size` are stale, overwritten, never read. */
  readonly values: unknown[] = [];
  size = 0;

  collect(v: unknown): void {
    this.values[this.size++] = v;
  }
}

class Fold {
  /** Node id → where its records go. Records travel as (value, split, offset, tag) arguments,
   * not objects: F pushes every record through every stage, once per checkpoint judged. */
  private readonly targets: Target[][] = [];
  /** The uids of the keyed operators (those with a store). */
  private readonly storeUids = new Set<string>();
  /** The uids of skipped operators (FoldOptions.skip). */
  private readonly skipped: ReadonlySet<string>;
  private readonly outputs: StreamRecord[] = [];
  private readonly bySink = new Map<string, StreamRecord[]>();
  /** Node id → its sink's list in `bySink`, and its keyed state store (no Map lookup per record). */
  private readonly sinkLists: StreamRecord[][] = [];
  private readonly storeById: PlainKeyedStateStore[] = [];
  private readonly collectors: Outputs[] = [];
  /** Node id → its tag segment `/<uid>.` (outputTag.ts), for flatMap and keyed nodes. */
  private readonly segments: string[] = [];
  /** Split id → offset of the next record to read (absent: 0). */
  private readonly read = new Map<number, number>();
  private depth = 0;

  constructor(
    private readonly graph: StreamGraph,
    private readonly keep: ((record: StreamRecord, node: StreamNode) => boolean) | undefined,
    /**
     * Only the keyed state is wanted ({@link PrefixFold}): records are not passed on along edges
     * that lead to no keyed operator, so sinks collect nothing and the functions of stages after
     * the last keyed one do not run; output tags are not made (state does not depend on them).
     */
    private readonly stateOnly: boolean,
    skip: ReadonlySet<string> | undefined,
  ) {
    this.skipped = skip ?? new Set();
    for (const uid of this.skipped) {
      if (!graph.nodes.some((n) => n.uid === uid)) throw new Error(`reference fold: no operator ${uid} to skip`);
    }
    for (const node of graph.nodes) this.targets[node.id] = [];
    for (const edge of graph.edges) {
      const target = this.node(edge.target);
      // Records to a skipped operator are dropped: the edge is not followed at all.
      if (this.skipped.has(target.uid)) continue;
      if (edge.partitioner === 'broadcast') {
        const from = this.node(edge.source);
        throw new FoldUnsupportedError(target.uid, target.name,
          `is fed by a broadcast edge from '${from.name}' (uid ${from.uid})`);
      }
      const list = this.targets[edge.source] ?? [];
      list.push({ node: target, edge });
      this.targets[edge.source] = list;
    }
    for (const node of graph.nodes) {
      if (this.skipped.has(node.uid)) continue;
      if (node.spec.kind === 'keyedProcess') {
        const store = new PlainKeyedStateStore(node.uid, node.name);
        this.storeById[node.id] = store;
        this.storeUids.add(node.uid);
      }
      if (node.spec.kind === 'sink') {
        // Sinks sharing a uid share its list.
        let list = this.bySink.get(node.uid);
        if (list === undefined) {
          list = [];
          this.bySink.set(node.uid, list);
        }
        this.sinkLists[node.id] = list;
      }
      if (node.spec.kind === 'flatMap' || node.spec.kind === 'keyedProcess') {
        this.segments[node.id] = tagSegment(node.uid);
      }
    }
    if (stateOnly) {
      const feeds = new Map<number, boolean>();
      const feedsKeyed = (node: StreamNode): boolean => {
        let f = feeds.get(node.id);
        if (f === undefined) {
          f = node.spec.kind === 'keyedProcess'
            || (this.targets[node.id] ?? []).some((t) => feedsKeyed(t.node));
          feeds.set(node.id, f);
        }
        return f;
      };
      for (const node of graph.nodes) {
        this.targets[node.id] = (this.targets[node.id] ?? []).filter((t) => feedsKeyed(t.node));
      }
    }
  }

  /** Reads every split from where it was left up to its prefix end (all of it: no prefixes). */
  readTo(prefixes: ReadonlyMap<number, number> | undefined): void {
    for (const node of this.graph.nodes) {
      if (node.spec.kind !== 'source' || this.skipped.has(node.uid)) continue;
      const splits = [...node.spec.source.splits].sort((a, b) => a.id - b.id);
      for (const split of splits) {
        const end = prefixEnd(split.id, split.records.length, prefixes);
        for (let offset = this.read.get(split.id) ?? 0; offset < end; offset++) {
          this.emit(node, split.records[offset], split.id, offset, '');
        }
        this.read.set(split.id, end);
      }
    }
  }

  /** Whether every split's prefix end is at or past the offset read so far. */
  isAtOrPast(prefixes: ReadonlyMap<number, number>): boolean {
    for (const [id, offset] of this.read) {
      const p = prefixes.get(id);
      if (p === undefined || p < offset) return false;
    }
    return true;
  }

  state(): KeyedStateView {
    const state: KeyedStateView = {};
    this.storeById.forEach((store, id) => {
      state[this.node(id).uid] = store.view();
    });
    return state;
  }

  /**
   * Whether `actual` certainly equals {@link state} (see {@link PrefixFold.matchesAt}): every
   * store matches the operator of its uid (absent: no keys; of two stores with one uid, the view
   * holds the last, and both must match), and every other operator holds no keys (skipped
   * operators are not looked at).
   */
  stateMatches(actual: KeyedStateView): boolean {
    for (let id = 0; id < this.storeById.length; id++) {
      const store = this.storeById[id];
      if (store !== undefined && !store.matchesView(actual[this.node(id).uid])) return false;
    }
    for (const uid of Object.keys(actual)) {
      if (this.storeUids.has(uid) || this.skipped.has(uid)) continue;
      const states = actual[uid] as OperatorStateView;
      for (const name of Object.keys(states)) {
        if (Object.keys(states[name] as object).length > 0) return false;
      }
    }
    return true;
  }

  /**
   * The outputs and, built on first read, the keyed state view: oracles that find the state equal
   * through {@link foldStateMatches} never need the view. The Fold is finished (nothing reads on
   * after it), so a later view is the same as one built now.
   */
  result(): FoldResult {
    const build = (): KeyedStateView => this.state();
    let view: KeyedStateView | undefined;
    const result: FoldResult = {
      outputs: this.outputs,
      outputsBySink: this.bySink,
      get state(): KeyedStateView {
        return (view ??= build());
      },
    };
    foldOf.set(result, this);
    return result;
  }

  private node(id: number): StreamNode {
    const node = this.graph.nodes[id];
    if (node === undefined) throw new Error(`reference fold: the graph has no node ${id}`);
    return node;
  }

  private emit(from: StreamNode, value: unknown, split: number, offset: number, tag: string): void {
    const targets = this.targets[from.id];
    if (targets === undefined) return;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i] as Target;
      this.deliver(t.node, t.edge, value, split, offset, tag);
    }
  }

  private deliver(
    node: StreamNode, edge: StreamEdge, value: unknown, split: number, offset: number, tag: string,
  ): void {
    const spec = node.spec;
    if (this.keep !== undefined && !this.keep({ value, split, offset, tag }, node)) return;
    switch (spec.kind) {
      case 'map':
        this.emit(node, spec.fn(value), split, offset, tag);
        return;
      case 'filter':
        if (spec.fn(value)) this.emit(node, value, split, offset, tag);
        return;
      case 'checkpointedPassThrough':
        // Forwards every record as it came: its operator state never reaches the output.
        this.emit(node, value, split, offset, tag);
        return;
      case 'flatMap': {
        const out = this.enter();
        spec.fn(value, out);
        const segment = this.segment(node);
        for (let i = 0; i < out.size; i++) {
          const t = this.stateOnly ? tag : flatMapOutputTag(tag, segment, i);
          this.emit(node, out.values[i], split, offset, t);
        }
        this.leave(out);
        return;
      }
      case 'keyedProcess': {
        const key = keyOf(edge.keySelector, value, node);
        const ctx = this.store(node).contextFor(key);
        const out = this.enter();
        spec.fn.processElement(value, ctx, out);
        const segment = this.segment(node);
        for (let i = 0; i < out.size; i++) {
          const t = this.stateOnly ? tag : keyedOutputTag(tag, segment, i);
          this.emit(node, out.values[i], split, offset, t);
        }
        this.leave(out);
        return;
      }
      case 'sink': {
        const out = { value, split, offset, tag };
        this.outputs.push(out);
        this.sinkLists[node.id]?.push(out);
        return;
      }
      case 'source':
        throw new Error(`reference fold: source ${node.uid} has an input edge`);
    }
  }

  /**
   * The (empty) collector of the next recursion depth. No try/finally around its use: an
   * exception from a user function ends the whole fold, and the Fold is not used again.
   */
  private enter(): Outputs {
    let out = this.collectors[this.depth];
    if (out === undefined) {
      out = new Outputs();
      this.collectors[this.depth] = out;
    }
    this.depth++;
    return out;
  }

  private leave(out: Outputs): void {
    out.size = 0;
    this.depth--;
  }

  private segment(node: StreamNode): string {
    return this.segments[node.id] as string;
  }

  private store(node: StreamNode): PlainKeyedStateStore {
    const store = this.storeById[node.id];
    if (store === undefined) throw new Error(`reference fold: no state store for ${node.uid}`);
    return store;
  }
}

function prefixEnd(
  split: number,
  size: number,
  prefixes: ReadonlyMap<number, number> | undefined,
): number {
  if (prefixes === undefined) return size;
  const p = prefixes.get(split);
  if (p === undefined) throw new Error(`reference fold: no prefix position for split ${split}`);
  if (!Number.isInteger(p) || p < 0 || p > size) {
    throw new Error(`reference fold: prefix position of split ${split} must be an integer in `
      + `0..${size}, got ${p}`);
  }
  return p;
}

function keyOf(selector: KeySelector<unknown> | undefined, value: unknown, node: StreamNode): Key {
  if (selector === undefined) {
    throw new Error(`reference fold: keyed operator ${node.uid} is not fed by keyBy`);
  }
  const key = selector(value);
  const ok = typeof key === 'string' || typeof key === 'bigint'
    || (typeof key === 'number' && Number.isInteger(key) && key >= -(2 ** 31) && key < 2 ** 31);
  if (!ok) {
    throw new Error(`reference fold: key ${String(key)} of operator ${node.uid} is not a string, `
      + '32-bit integer or bigint');
  }
  return key;
}
