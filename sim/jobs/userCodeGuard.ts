/**
 * userCodeGuard: catches a user's job module reading real time or real randomness where it
 * happens. While a guarded function runs (a map, filter or flatMap function, a keyed process
 * function's processElement or onTimer, a key selector, a pass-through or sink function factory
 * and the methods of what it makes, the module's build function, its input generator),
 * `Math.random`, `Date.now`, `Date()`, `new Date()` (with no arguments), `performance.now`,
 * `crypto.getRandomValues` and `crypto.randomUUID` throw a {@link UserCodeNondeterminismError}
 * naming the module, the operator and the function. A run in virtual time is a function of its
 * seed only if the user's code is too; a clock read would make two runs of one seed differ.
 *
 * The throwing replacements are installed only while user code runs (a depth counter: the
 * outermost guarded call installs them, its return or throw restores what was there), so the
 * harness's own clock reads (progress, time budgets) outside user code are untouched. Exempt
 * from the determinism guard (sim/determinism-guard.test.ts, eslint.config.js) for that reason
 * alone: it names those globals to replace them, and never calls them on the engine's behalf.
 *
 * The engine turns an exception from a user function into a task failure and a failover, so
 * the error would be lost in the run; each {@link UserCodeGuard} also keeps the first one it
 * raised ({@link UserCodeGuard.violation}) for the caller to report as bad input after the run.
 *
 * No Flink class: Flink runs user code in real time; this guard is the harness's own, for virtual
 * time. Not caught: a reference taken before the guard was installed (`const now = Date.now` at a
 * module's top level), node:crypto's own functions (randomBytes, randomUUID), process.hrtime.
 */
import type {
  Collector, Key, KeyedContext, KeyedProcessFunction,
  StreamEdge, StreamGraph, StreamNode,
} from '../../engine/index.ts';
import { SimInputError } from '../SimInputError.ts';

/**
 * A guarded user function read real time or randomness. A SimInputError: the user's fault, one
 * line, exit code 2.
 */
export class UserCodeNondeterminismError extends SimInputError {
  constructor(
    /** How the job module is named in messages, e.g. `./examples/bank.ts`. */
    readonly moduleLabel: string,
    /** The function, e.g. `operator 'enrich' (uid enrich), map function`. */
    readonly where: string,
    /** What it called, e.g. `Math.random()`. */
    readonly api: string,
  ) {
    super(`job module ${moduleLabel}: ${where}, called ${api}; user functions run in virtual time `
      + 'and must be deterministic (use the record, the key or state instead)');
  }
}

/** Where a guarded function belongs; made once per wrapped function, never per call. */
interface Site {
  readonly guard: UserCodeGuard;
  readonly where: string;
}

/**
 * The guard of one job module: wraps its functions and keeps the first violation.
 * Stateless apart from that slot; one per run (or per module load) is enough.
 */
export class UserCodeGuard {
  private first: UserCodeNondeterminismError | undefined;

  /** @param moduleLabel how messages name the module, e.g. `./examples/bank.ts`. */
  constructor(readonly moduleLabel: string) {}

  /** The first error this guard raised, even if the engine or the user's code caught it. */
  get violation(): UserCodeNondeterminismError | undefined {
    return this.first;
  }

  /** @internal Keeps `error` if it is the first. */
  record(error: UserCodeNondeterminismError): void {
    this.first ??= error;
  }

  /**
   * Runs `fn` (the module's build function, its input generator) under the guard.
   * @param what the function in messages, e.g. `build function`, `input generator`.
   * @throws UserCodeNondeterminismError if `fn` reads real time or randomness (also recorded);
   *   whatever `fn` throws otherwise.
   */
  run<R>(what: string, fn: () => R): R {
    const outer = enter({ guard: this, where: what });
    try {
      return fn();
    } finally {
      leave(outer);
    }
  }

  /**
   * An equal graph (same nodes, edges, ids, uids, options) whose user functions are guarded:
   * map/filter/flatMap functions, keyed process functions' processElement and onTimer (onTimer
   * only where the function has one), key selectors (named after the operator they feed),
   * pass-through factories and the methods of what they make, and a sink's function factory
   * (`create` on its SinkDefinition, if any) and the methods of what it makes. Functions this
   * guard or another already wrapped are left as they
   * are (they report to the guard that wrapped them).
   */
  guardGraph(graph: StreamGraph): StreamGraph {
    const nodes = graph.nodes.map((node) => this.guardNode(node));
    const edges = graph.edges.map((edge) => this.guardEdge(edge, graph.nodes[edge.target]));
    return { ...graph, nodes, edges };
  }

  private site(node: StreamNode, fn: string): Site {
    return { guard: this, where: `operator '${node.name}' (uid ${node.uid}), ${fn}` };
  }

  private guardNode(node: StreamNode): StreamNode {
    const spec = node.spec;
    switch (spec.kind) {
      case 'source':
        return node;
      case 'map':
        if (isGuarded(spec.fn)) return node;
        return { ...node, spec: { kind: 'map', fn: guard1(spec.fn, this.site(node, 'map function')) } };
      case 'filter':
        if (isGuarded(spec.fn)) return node;
        return { ...node, spec: { kind: 'filter', fn: guard1(spec.fn, this.site(node, 'filter function')) } };
      case 'flatMap':
        if (isGuarded(spec.fn)) return node;
        return { ...node, spec: { kind: 'flatMap', fn: guard2(spec.fn, this.site(node, 'flatMap function')) } };
      case 'keyedProcess':
        return { ...node, spec: { kind: 'keyedProcess', fn: this.guardKeyed(node, spec.fn) } };
      case 'checkpointedPassThrough': {
        if (isGuarded(spec.create)) return node;
        const create = guardFactory(spec.create, this.site(node, 'pass-through function factory (create)'),
          (method) => this.site(node, `pass-through function's ${method}`));
        return { ...node, spec: { kind: 'checkpointedPassThrough', create } };
      }
      case 'sink': {
        // A sink function factory is optional and not in every SinkDefinition kind: found by name.
        const sink = spec.sink as typeof spec.sink & { readonly create?: unknown };
        if (typeof sink.create !== 'function' || isGuarded(sink.create)) return node;
        const create = guardFactory(sink.create as () => unknown, this.site(node, 'sink function factory (create)'),
          (method) => this.site(node, `sink function's ${method}`));
        return { ...node, spec: { kind: 'sink', sink: { ...sink, create } as unknown as typeof spec.sink } };
      }
    }
  }

  private guardKeyed(
    node: StreamNode, fn: KeyedProcessFunction<Key, unknown, unknown>,
  ): KeyedProcessFunction<Key, unknown, unknown> {
    if (isGuarded(fn.processElement)) return fn;
    // The wrapper inherits from the function object: its fields and other methods stay
    // reachable, and `onTimer` is present exactly when the function has one (judgeability.ts).
    const guarded = Object.create(fn) as Patchable;
    guarded['processElement'] = guard3(fn.processElement, fn, this.site(node, 'processElement'));
    if (typeof fn.onTimer === 'function') guarded['onTimer'] = guard3(fn.onTimer as (a: unknown, ctx: KeyedContext, out: Collector<unknown>) => void, fn, this.site(node, 'onTimer'));
    return guarded as unknown as KeyedProcessFunction<Key, unknown, unknown>;
  }

  private guardEdge(edge: StreamEdge, target: StreamNode | undefined): StreamEdge {
    if (edge.keySelector === undefined || target === undefined || isGuarded(edge.keySelector)) return edge;
    return { ...edge, keySelector: guard1(edge.keySelector, this.site(target, 'key selector')) };
  }
}

/**
 * `graph` with its user functions guarded by `guard` ({@link UserCodeGuard.guardGraph}); read
 * `guard.violation` after the run.
 */
export function guardUserFunctions(graph: StreamGraph, guard: UserCodeGuard): StreamGraph {
  return guard.guardGraph(graph);
}

// ---- The guarded region: a depth counter, the current site, the replaced globals. ----

/** How many guarded calls are on the stack; the replacements are installed while it is > 0. */
let depth = 0;
/** The innermost guarded call's site (a flatMap's collector runs chained operators inside it). */
let current: Site | undefined;

type Fn = (...args: never[]) => unknown;
interface Patchable { [name: string]: unknown }

const math = Math as unknown as Patchable;
const global = globalThis as unknown as Patchable;
/** Read once: both are getters on globalThis. node:crypto's webcrypto is globalThis.crypto. */
let perf: Patchable | undefined;
let webcrypto: Patchable | undefined;
let looked = false;

/** What the outermost guarded call replaced, put back when it ends. */
let savedRandom: unknown;
let savedDate: unknown;
let savedPerfNow: unknown;
let savedGetRandomValues: unknown;
let savedRandomUUID: unknown;
let realDate: DateConstructor | undefined;

/** Wrapped functions, so a graph guarded twice is not wrapped twice. */
const guardedFns = new WeakSet<object>();

function isGuarded(fn: unknown): boolean {
  return typeof fn === 'function' && guardedFns.has(fn);
}

function enter(site: Site): Site | undefined {
  const outer = current;
  current = site;
  if (depth++ === 0) install();
  return outer;
}

function leave(outer: Site | undefined): void {
  current = outer;
  if (--depth === 0) restore();
}

function install(): void {
  if (!looked) {
    // Either may be absent in some runtime: then it is not patched (install must not throw,
    // or the depth counter would be left raised).
    perf = global['performance'] as Patchable | undefined;
    webcrypto = global['crypto'] as Patchable | undefined;
    looked = true;
  }
  savedRandom = math['random'];
  math['random'] = guardedRandom;
  savedDate = global['Date'];
  realDate = savedDate as DateConstructor;
  global['Date'] = GuardedDate;
  if (perf !== undefined) {
    savedPerfNow = perf['now'];
    perf['now'] = guardedPerfNow;
  }
  if (webcrypto !== undefined) {
    savedGetRandomValues = webcrypto['getRandomValues'];
    webcrypto['getRandomValues'] = guardedGetRandomValues;
    savedRandomUUID = webcrypto['randomUUID'];
    webcrypto['randomUUID'] = guardedRandomUUID;
  }
}

function restore(): void {
  math['random'] = savedRandom;
  global['Date'] = savedDate;
  if (perf !== undefined) perf['now'] = savedPerfNow;
  if (webcrypto !== undefined) {
    webcrypto['getRandomValues'] = savedGetRandomValues;
    webcrypto['randomUUID'] = savedRandomUUID;
  }
}

/** Throws (and records, if first) the error for `api` called at the current site. */
function violation(api: string): never {
  const site = current;
  const error = new UserCodeNondeterminismError(site?.guard.moduleLabel ?? '(unknown)',
    site?.where ?? 'user function', api);
  site?.guard.record(error);
  throw error;
}

function guardedRandom(): never {
  return violation('Math.random()');
}
function guardedPerfNow(): never {
  return violation('performance.now()');
}
function guardedGetRandomValues(): never {
  return violation('crypto.getRandomValues()');
}
function guardedRandomUUID(): never {
  return violation('crypto.randomUUID()');
}

/**
 * Date while user code runs: `Date()` and `new Date()` read the clock and throw; `new Date(x)`
 * with arguments is a pure conversion and makes a real Date (instanceof Date holds); statics
 * other than `now` (UTC, parse) are the real ones, through the prototype chain.
 */
function GuardedDate(this: unknown, ...args: unknown[]): unknown {
  if (new.target === undefined) return violation('Date()');
  if (args.length === 0) return violation('new Date()');
  return Reflect.construct(realDate as DateConstructor, args, new.target);
}
Object.setPrototypeOf(GuardedDate, Date);
GuardedDate.prototype = Date.prototype;
Object.defineProperty(GuardedDate, 'now', { value: (): never => violation('Date.now()') });
Object.defineProperty(GuardedDate, 'name', { value: 'Date' });

// ---- Wrappers: fixed arity on the per-record paths (no arguments object, no closure per call). ----

function guard1<A, R>(fn: (a: A) => R, site: Site): (a: A) => R {
  const guarded = function (this: unknown, a: A): R {
    const outer = enter(site);
    try {
      return fn.call(this, a);
    } finally {
      leave(outer);
    }
  };
  guardedFns.add(guarded);
  return guarded;
}

function guard2<A, B, R>(fn: (a: A, b: B) => R, site: Site): (a: A, b: B) => R {
  const guarded = function (this: unknown, a: A, b: B): R {
    const outer = enter(site);
    try {
      return fn.call(this, a, b);
    } finally {
      leave(outer);
    }
  };
  guardedFns.add(guarded);
  return guarded;
}

/** A keyed function's method, called on `self` (the user's object: private fields work). */
function guard3(
  fn: (a: unknown, ctx: KeyedContext, out: Collector<unknown>) => void, self: object, site: Site,
): (a: unknown, ctx: KeyedContext, out: Collector<unknown>) => void {
  const guarded = (a: unknown, ctx: KeyedContext, out: Collector<unknown>): void => {
    const outer = enter(site);
    try {
      fn.call(self, a, ctx, out);
    } finally {
      leave(outer);
    }
  };
  guardedFns.add(guarded);
  return guarded;
}

/** A method of unknown arity, called on `self` with the arguments as they came. */
function guardAny(fn: Fn, self: object, site: Site): Fn {
  const guarded = function (): unknown {
    const outer = enter(site);
    try {
      // eslint-disable-next-line prefer-rest-params -- apply(arguments) allocates no array
      return (fn as (...args: unknown[]) => unknown).apply(self, arguments as unknown as unknown[]);
    } finally {
      leave(outer);
    }
  };
  guardedFns.add(guarded);
  return guarded;
}

/**
 * A factory (pass-through or sink function) whose calls run guarded and whose products have
 * every method guarded: each product is wrapped in an object inheriting from it, so its fields
 * stay reachable and its methods run on the product itself.
 */
function guardFactory<T>(create: (...args: never[]) => T, site: Site, methodSite: (method: string) => Site): () => T {
  const guardedCreate = guardAny(create as Fn, undefined as unknown as object, site);
  const sites = new Map<string, Site>();
  const make = function (this: unknown): T {
    // eslint-disable-next-line prefer-rest-params -- forwarded as they came
    const product = guardedCreate.apply(this, arguments as unknown as never[]) as T;
    if (typeof product !== 'object' || product === null) return product;
    const wrapper = Object.create(product) as Patchable;
    for (const name of methodNames(product)) {
      let s = sites.get(name);
      if (s === undefined) {
        s = methodSite(name);
        sites.set(name, s);
      }
      wrapper[name] = guardAny((product as unknown as Patchable)[name] as Fn, product, s);
    }
    return wrapper as T;
  };
  guardedFns.add(make);
  return make;
}

/** The function-valued data properties of `obj` and its prototypes (not Object's; no getters). */
function methodNames(obj: object): string[] {
  const seen = new Set<string>(['constructor']);
  const names: string[] = [];
  for (let o: object | null = obj; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (seen.has(name)) continue;
      // The nearest definition of a name decides (a field shadowing a method is no method).
      seen.add(name);
      const d = Object.getOwnPropertyDescriptor(o, name);
      if (d !== undefined && typeof d.value === 'function') names.push(name);
    }
  }
  return names;
}
