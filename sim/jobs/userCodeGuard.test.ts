import { webcrypto as nodeWebcrypto } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  StreamExecutionEnvironment, collectSink, splitSource, twoPhaseCommitSink,
} from '../../engine/index.ts';
import type {
  CheckpointedPassThroughFunction, Collector, FunctionInitializationContext, KeyedContext,
  KeyedProcessFunction, SinkDefinition, StreamGraph,
} from '../../engine/index.ts';
import { MiniCluster } from '../MiniCluster.ts';
import { SimInputError } from '../SimInputError.ts';
import { UserCodeGuard, UserCodeNondeterminismError, guardUserFunctions } from './userCodeGuard.ts';

const LABEL = './examples/bank.ts';

/** The five APIs (seven calls), each as user code would call it. */
const CALLS: [string, () => unknown][] = [
  ['Math.random()', () => Math.random()],
  ['Date.now()', () => Date.now()],
  ['new Date()', () => new Date()],
  ['Date()', () => Date()],
  ['performance.now()', () => performance.now()],
  ['crypto.getRandomValues()', () => globalThis.crypto.getRandomValues(new Uint8Array(4))],
  ['crypto.getRandomValues()', () => nodeWebcrypto.getRandomValues(new Uint8Array(4))],
  ['crypto.randomUUID()', () => globalThis.crypto.randomUUID()],
];

/** A job: source -> map 'enrich' -> keyBy -> process 'count' -> sink 'out'. */
function job(parts: {
  map?: (v: number) => number;
  key?: (v: number) => number;
  keyed?: KeyedProcessFunction<number, number, number>;
  sink?: SinkDefinition;
  passThrough?: () => CheckpointedPassThroughFunction<number>;
} = {}): StreamGraph {
  const env = new StreamExecutionEnvironment({ jobName: 'guarded' });
  let s = env.fromSource(splitSource([{ id: 0, records: [1, 2, 3] }]), { name: 'numbers', uid: 'numbers' })
    .map(parts.map ?? ((v: number) => v), { name: 'enrich', uid: 'enrich' });
  if (parts.passThrough !== undefined) s = s.passThrough(parts.passThrough, { name: 'observe', uid: 'observe' });
  s.keyBy(parts.key ?? ((v: number) => v % 2))
    .process(parts.keyed ?? { processElement(v, _ctx, out) { out.collect(v); } }, { name: 'count', uid: 'count' })
    .sinkTo(parts.sink ?? collectSink([]), { name: 'out', uid: 'out' });
  return env.getStreamGraph();
}

const spec = (g: StreamGraph, uid: string) => g.nodes.find((n) => n.uid === uid)!.spec;
const collector = (into: unknown[] = []): Collector<unknown> => ({ collect: (v) => into.push(v) });
const ctx = {} as KeyedContext<number>;

function caught(fn: () => unknown): UserCodeNondeterminismError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserCodeNondeterminismError);
    return e as UserCodeNondeterminismError;
  }
  throw new Error('expected a UserCodeNondeterminismError');
}

/** Every global the guard replaces, as they are now. */
function globalsNow(): unknown[] {
  return [Math.random, Date, Date.now, performance.now, globalThis.crypto.getRandomValues, globalThis.crypto.randomUUID];
}

describe('guardUserFunctions', () => {
  test.each(CALLS)('%s in a map function throws, names module, operator and function, and is recorded', (api, call) => {
    const guard = new UserCodeGuard(LABEL);
    const g = guardUserFunctions(job({ map: (v) => v + Number(call() !== undefined) }), guard);
    const fn = (spec(g, 'enrich') as { fn: (v: number) => number }).fn;
    const e = caught(() => fn(1));
    expect(e.message).toBe(`job module ${LABEL}: operator 'enrich' (uid enrich), map function, called ${api}; `
      + 'user functions run in virtual time and must be deterministic (use the record, the key or state instead)');
    expect(e).toBeInstanceOf(SimInputError);
    expect(guard.violation).toBe(e);
  });

  test.each(CALLS)('%s in processElement and onTimer of a keyed function throws', (api, call) => {
    const guard = new UserCodeGuard(LABEL);
    const keyed: KeyedProcessFunction<number, number, number> = {
      processElement() { call(); },
      onTimer() { call(); },
    };
    const fn = (spec(guard.guardGraph(job({ keyed })), 'count') as { fn: KeyedProcessFunction<number, number, number> }).fn;
    expect(caught(() => fn.processElement(1, ctx, collector())).message)
      .toContain(`operator 'count' (uid count), processElement, called ${api};`);
    expect(caught(() => fn.onTimer?.(5, ctx, collector())).message)
      .toContain(`operator 'count' (uid count), onTimer, called ${api};`);
    // The first is kept.
    expect(guard.violation?.where).toBe("operator 'count' (uid count), processElement");
  });

  test.each(CALLS)('%s in a key selector throws, naming the operator it feeds', (api, call) => {
    const g = new UserCodeGuard(LABEL).guardGraph(job({ key: () => Number(call() === undefined) }));
    const selector = g.edges.find((e) => e.keySelector !== undefined)!.keySelector!;
    expect(caught(() => selector(1)).message).toContain(`operator 'count' (uid count), key selector, called ${api};`);
  });

  test.each(CALLS)('%s in a sink function factory and its methods throws', (api, call) => {
    let callInCreate = true;
    class Writer {
      readonly written: unknown[] = [];
      #secret = 1;
      invoke(value: unknown): void {
        call();
        this.written.push(value, this.#secret);
      }
    }
    const create = (): Writer => {
      if (callInCreate) call();
      return new Writer();
    };
    const sink = { ...twoPhaseCommitSink('ledger'), create } as unknown as SinkDefinition;
    const guard = new UserCodeGuard(LABEL);
    const g = guard.guardGraph(job({ sink }));
    const guarded = (spec(g, 'out') as unknown as { sink: { create: () => Writer; name: string } }).sink;
    expect(guarded.name).toBe('ledger');
    expect(caught(() => guarded.create()).message)
      .toContain(`operator 'out' (uid out), sink function factory (create), called ${api};`);
    callInCreate = false;
    const writer = guarded.create();
    expect(caught(() => writer.invoke('x')).message).toContain(`operator 'out' (uid out), sink function's invoke, called ${api};`);
    expect(guard.violation?.where).toBe("operator 'out' (uid out), sink function factory (create)");
  });

  test('filter, flatMap and pass-through functions are guarded too; values pass through unchanged', () => {
    const env = new StreamExecutionEnvironment();
    env.fromSource(splitSource([{ id: 0, records: [1] }]))
      .filter(() => Math.random() > 2, { uid: 'f' })
      .flatMap((_v, out) => out.collect(Date.now()), { uid: 'fm' })
      .sinkTo(collectSink([]), { uid: 's' });
    const g = new UserCodeGuard(LABEL).guardGraph(env.getStreamGraph());
    expect(caught(() => (spec(g, 'f') as { fn: (v: unknown) => boolean }).fn(1)).where)
      .toBe("operator 'filter-1' (uid f), filter function");
    expect(caught(() => (spec(g, 'fm') as { fn: (v: unknown, o: Collector<unknown>) => void }).fn(1, collector())).api)
      .toBe('Date.now()');

    const restored: boolean[] = [];
    const passThrough = (): CheckpointedPassThroughFunction<number> => ({
      initializeState(c: FunctionInitializationContext) { restored.push(c.isRestored()); },
      observe() { performance.now(); },
      snapshotState() {},
    });
    const pg = new UserCodeGuard(LABEL).guardGraph(job({ passThrough }));
    const made = (spec(pg, 'observe') as { create: () => CheckpointedPassThroughFunction<number> }).create();
    made.initializeState({ isRestored: () => true } as FunctionInitializationContext);
    made.snapshotState(1);
    expect(restored).toEqual([true]);
    expect(caught(() => made.observe(1, 0)).where).toBe("operator 'observe' (uid observe), pass-through function's observe");
  });

  test('a guarded graph is equal in shape and computes the same values', () => {
    const keyed: KeyedProcessFunction<number, number, number> & { factor: number } = {
      factor: 10,
      processElement(v, _c, out) { out.collect(v * this.factor); },
    };
    const plain = job({ map: (v) => v + 1, keyed });
    const g = new UserCodeGuard(LABEL).guardGraph(plain);
    expect(g.nodes.map(({ spec: _s, ...rest }) => rest)).toEqual(plain.nodes.map(({ spec: _s, ...rest }) => rest));
    expect(g.edges.map(({ keySelector, ...rest }) => ({ ...rest, keyed: keySelector !== undefined })))
      .toEqual(plain.edges.map(({ keySelector, ...rest }) => ({ ...rest, keyed: keySelector !== undefined })));
    expect(g.nodes.map((n) => n.spec.kind)).toEqual(plain.nodes.map((n) => n.spec.kind));
    expect((spec(g, 'enrich') as { fn: (v: number) => number }).fn(4)).toBe(5);
    const out: unknown[] = [];
    const fn = (spec(g, 'count') as { fn: KeyedProcessFunction<number, number, number> }).fn;
    fn.processElement(4, ctx, collector(out));
    expect(out).toEqual([40]);
    // onTimer is there exactly when the user's function has one (judgeability reads it).
    expect(fn.onTimer).toBeUndefined();
    expect(g.edges.find((e) => e.keySelector)!.keySelector!(3)).toBe(1);
    // Guarding twice wraps nothing twice.
    const again = new UserCodeGuard(LABEL).guardGraph(g);
    expect((spec(again, 'enrich') as { fn: unknown }).fn).toBe((spec(g, 'enrich') as { fn: unknown }).fn);
    expect((spec(again, 'count') as { fn: unknown }).fn).toBe(fn);
  });

  test('globals are restored after a normal return, after a throw and after a violation', () => {
    const before = globalsNow();
    const guard = new UserCodeGuard(LABEL);
    const g = guard.guardGraph(job({ map: (v) => { if (v === 2) throw new Error('user bug'); return v; } }));
    const fn = (spec(g, 'enrich') as { fn: (v: number) => number }).fn;
    expect(fn(1)).toBe(1);
    expect(globalsNow()).toEqual(before);
    expect(() => fn(2)).toThrow('user bug');
    expect(globalsNow()).toEqual(before);
    expect(guard.violation).toBeUndefined();
    caught(() => guard.run('build function', () => Math.random()));
    expect(globalsNow()).toEqual(before);
    expect(typeof Math.random()).toBe('number');
  });

  test('nested guarded calls: the innermost names the site, the outermost restores', () => {
    const before = globalsNow();
    const guard = new UserCodeGuard(LABEL);
    const env = new StreamExecutionEnvironment();
    const seen: string[] = [];
    env.fromSource(splitSource([{ id: 0, records: [1] }]))
      .flatMap((v: number, out) => { out.collect(v); seen.push(String(Math.random === before[0])); }, { name: 'outer', uid: 'outer' })
      .map((v) => { Date.now(); return v; }, { name: 'inner', uid: 'inner' })
      .sinkTo(collectSink([]));
    const g = guard.guardGraph(env.getStreamGraph());
    const inner = (spec(g, 'inner') as { fn: (v: unknown) => unknown }).fn;
    const outer = (spec(g, 'outer') as { fn: (v: unknown, o: Collector<unknown>) => void }).fn;
    // As a chained operator is called from a flatMap's collector.
    let innerError: UserCodeNondeterminismError | undefined;
    outer(1, { collect: (v) => { try { inner(v); } catch (e) { innerError = e as UserCodeNondeterminismError; } } });
    expect(innerError?.where).toBe("operator 'inner' (uid inner), map function");
    // Back in the outer function, still guarded: Math.random is still the replacement.
    expect(seen).toEqual(['false']);
    expect(globalsNow()).toEqual(before);
    expect(guard.violation).toBe(innerError);
    // A build function calling a guarded function: still guarded after the inner one returns.
    const clean = (spec(guard.guardGraph(job()), 'enrich') as { fn: (v: number) => number }).fn;
    expect(caught(() => guard.run('build function', () => clean(1) + Math.random())).where).toBe('build function');
    expect(globalsNow()).toEqual(before);
  });

  test('run: the build function and input generator run guarded; values and errors pass through', () => {
    const guard = new UserCodeGuard('./alerts.ts');
    expect(guard.run('input generator', () => [new Date(0).toISOString(), Date.UTC(2020, 0, 1)]))
      .toEqual(['1970-01-01T00:00:00.000Z', 1577836800000]);
    expect(guard.run('build function', () => new Date(5) instanceof Date)).toBe(true);
    expect(() => guard.run('build function', () => { throw new RangeError('nope'); })).toThrow(RangeError);
    expect(guard.violation).toBeUndefined();
    const e = caught(() => guard.run('input generator', () => Date.now()));
    expect(e.message).toMatch(/^job module \.\/alerts\.ts: input generator, called Date\.now\(\); user functions run/);
  });

  test("the harness's Date.now, Math.random and performance.now work outside user code", () => {
    const guard = new UserCodeGuard(LABEL);
    guard.guardGraph(job({ map: () => Math.random() }));
    expect(Date.now()).toBeGreaterThan(0);
    expect(new Date().getTime()).toBeGreaterThan(0);
    expect(typeof Date()).toBe('string');
    expect(Math.random()).toBeLessThan(1);
    expect(performance.now()).toBeGreaterThan(0);
    expect(globalThis.crypto.randomUUID()).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('in the engine: the failover swallows the error, the guard keeps it', () => {
    const guard = new UserCodeGuard(LABEL);
    const graph = guard.guardGraph(job({ map: (v) => (v === 3 ? v + Math.random() : v) }));
    const result = new MiniCluster({
      world: { seed: 'guard' }, streamGraph: graph, config: { restartStrategy: { kind: 'none' } },
    }).run();
    expect(result.jobStatus).toBe('FAILED');
    expect(guard.violation?.message).toContain("operator 'enrich' (uid enrich), map function, called Math.random()");

    const clean = new UserCodeGuard(LABEL);
    const ok = new MiniCluster({ world: { seed: 'guard' }, streamGraph: clean.guardGraph(job()) }).run();
    const plain = new MiniCluster({ world: { seed: 'guard' }, streamGraph: job() }).run();
    expect(ok.jobStatus).toBe('FINISHED');
    expect(clean.violation).toBeUndefined();
    expect(ok.run.timeUs).toBe(plain.run.timeUs);
  });
});
