import { describe, expect, test } from 'vitest';
import { splitSource, StreamExecutionEnvironment, twoPhaseCommitSink } from '../../engine/index.ts';
import type { DecodedCheckpoint, KeyedProcessFunction, StreamGraph } from '../../engine/index.ts';
import {
  FLIGHTS_JUDGING, FLIGHTS_OUTPUT_COMPARISON, WORDCOUNT_JUDGING, WORDCOUNT_OUTPUT_COMPARISON,
} from '../../sim/jobs/builtInOutputComparisons.ts';
import type { JobJudging } from '../../sim/jobs/JobDefinition.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION } from '../../sim/run/RunSpec.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { FLIGHTS_UIDS } from '../../sim/workloads/flights.ts';
import { referenceFold } from '../referenceFold.ts';
import type { KeyedStateView } from '../referenceFold.ts';
import type { CommittedRecord } from './compareOutputs.ts';
import { consistentCut } from './consistentCut.ts';
import { endToEndExactlyOnce, WORDCOUNT_SEQUENCE } from './endToEndExactlyOnce.ts';
import { FLIGHTS_SEQUENCE } from './flightsInvariants.ts';
import { resolveJudging, sequencedOf } from './jobJudging.ts';
import { judgeRun } from './judgeRun.ts';
import { doctor, sampleRun } from './testing/sampleRuns.ts';

interface Counted { readonly key: string; readonly n: number; readonly v: number }

/** Numbers each key's records 1, 2, ... in arrival order (a per-key sequence). */
const numbering: KeyedProcessFunction<string, number, Counted> = {
  processElement(v, ctx, out) {
    const s = ctx.getState<number>({ kind: 'value', name: 'n' });
    const n = (s.value() ?? 0) + 1;
    s.update(n);
    out.collect({ key: ctx.getCurrentKey(), n, v });
  },
};

/** Sums each key's values. */
const summing: KeyedProcessFunction<string, number, number> = {
  processElement(v, ctx, out) {
    const s = ctx.getState<number>({ kind: 'value', name: 'sum' });
    const sum = (s.value() ?? 0) + v;
    s.update(sum);
    out.collect(sum);
  },
};

/**
 * source → keyBy(parity) → numbering (`count-a`) → sink `sink-a` (store `store-a`), and the
 * same source → keyBy(parity) → summing (`sum-b`) → sink `sink-b` (store `store-b`).
 */
function twoSinkJob(): StreamGraph {
  const env = new StreamExecutionEnvironment({ jobName: 'two-sinks', parallelism: 1 });
  const splits = [{ id: 0, records: [1, 2, 3, 4, 5, 6] }, { id: 1, records: [7, 8, 9] }];
  const src = env.fromSource(splitSource(splits), { name: 'src', uid: 'src' });
  const parity = (v: number): string => (v % 2 === 0 ? 'even' : 'odd');
  src.keyBy<string>(parity).process(numbering, { name: 'a', uid: 'count-a' })
    .sinkTo(twoPhaseCommitSink('store-a'), { name: 'sink-a', uid: 'sink-a' });
  src.keyBy<string>(parity).process(summing, { name: 'b', uid: 'sum-b' })
    .sinkTo(twoPhaseCommitSink('store-b'), { name: 'sink-b', uid: 'sink-b' });
  return env.getStreamGraph();
}

const COUNTED: NonNullable<JobJudging['output']>[string] = {
  name: 'n per key',
  project: (v) => ({ key: (v as Counted).key, v: (v as Counted).v }),
  sequence: { key: (v) => (v as Counted).key, seq: (v) => (v as Counted).n },
};

describe('job judging: the resolver', () => {
  const graph = twoSinkJob();

  test('per sink its store, projection and numbering; the keyed operators whose state is off', () => {
    const r = resolveJudging(graph, { state: { 'sum-b': 'off' }, output: { 'sink-a': COUNTED, 'sink-b': 'identity' } });
    expect(r.sinks.map((s) => [s.sinks, s.store, s.how, s.off])).toEqual([
      [['sink-a'], 'store-a', 'n per key', false], [['sink-b'], 'store-b', 'identity', false],
    ]);
    expect(r.sinks[0]?.sequenced?.name).toBe('n per key');
    expect(r.sinks[1]?.project?.(1)).toEqual(r.sinks[1]?.project?.({ any: 'thing' }));
    expect([...r.stateOff]).toEqual(['sum-b']);
    expect(r.keyed).toEqual(['count-a', 'sum-b']);
    expect(r.outputUnjudged).toEqual([]);
    const off = resolveJudging(graph, { output: { 'sink-b': 'off' } });
    expect(off.outputUnjudged).toEqual([{ sink: 'sink-b', reason: 'judging-off', detail: expect.stringMatching(/sink-b/) }]);
  });

  test('a uid that is no keyed operator or sink, or a bad mode, is bad input', () => {
    expect(() => resolveJudging(graph, { state: { 'sink-a': 'off' } })).toThrow(SimInputError);
    expect(() => resolveJudging(graph, { output: { 'count-a': 'identity' } })).toThrow(/no sink of job two-sinks/);
    expect(() => resolveJudging(graph, { output: { 'sink-a': 'values' as 'identity' } })).toThrow(SimInputError);
  });

  test("the built-in comparisons are the oracles' own numberings", () => {
    expect(sequencedOf(FLIGHTS_OUTPUT_COMPARISON)).toMatchObject({ name: FLIGHTS_SEQUENCE.name, project: FLIGHTS_SEQUENCE.project });
    expect(FLIGHTS_SEQUENCE.key).toBe(FLIGHTS_OUTPUT_COMPARISON.sequence?.key);
    expect(WORDCOUNT_SEQUENCE.seq).toBe(WORDCOUNT_OUTPUT_COMPARISON.sequence?.seq);
  });
});

describe('job judging: end-to-end exactly-once per sink', () => {
  const graph = twoSinkJob();
  const fold = referenceFold(graph);
  const byStore = (store: 'store-a' | 'store-b'): CommittedRecord[] =>
    (fold.outputsBySink.get(store === 'store-a' ? 'sink-a' : 'sink-b') ?? []).map((r) => ({ ...r, attempt: 0, subtask: 0 }));
  const judge = (judging: JobJudging, a: CommittedRecord[], b: CommittedRecord[], finalState: KeyedStateView = fold.state) =>
    endToEndExactlyOnce({
      graph, expected: fold, finalState, committed: [...a, ...b], maxListed: 10,
      judging: resolveJudging(graph, judging), stores: [...a.map(() => 'store-a'), ...b.map(() => 'store-b')],
    });
  const a = byStore('store-a');
  const b = byStore('store-b');
  const withValue = (rs: CommittedRecord[], i: number, value: unknown): CommittedRecord[] =>
    rs.map((r, j) => (j === i ? { ...r, value } : r));

  test("the fold's own output passes with every judging, and says what it left out", () => {
    expect(judge({}, a, b)).toMatchObject({ ok: true });
    expect(judge({}, a, b).summary).toBe("end-to-end exactly-once holds: 18 committed records equal F's 18, final state equal");
    const off = judge({ output: { 'sink-b': 'off' } }, a, []);
    expect(off.ok).toBe(true);
    expect(off.summary).toMatch(/holds: 9 committed records equal F's 9, final state equal; output of sink sink-b not judged \(judging off\)$/);
    expect(off.details.outputUnjudged).toEqual([expect.objectContaining({ sink: 'sink-b', reason: 'judging-off' })]);
  });

  test('a sink judged off is not compared: its garbage passes, but another sink is still judged', () => {
    const garbage = [...b, { ...b[0] as CommittedRecord, offset: 99 }].map((r) => ({ ...r, value: 'x' }));
    expect(judge({ output: { 'sink-b': 'off' } }, a, garbage).ok).toBe(true);
    const v = judge({ output: { 'sink-b': 'off' } }, a.slice(1), garbage);
    expect(v.ok).toBe(false);
    expect(v.summary).toMatch(/violated: 1 missing record.*; output of sink sink-b not judged/);
    // Default judging catches the garbage.
    expect(judge({}, a, garbage).details).toMatchObject({ surplusCount: 1, valueMismatchCount: 9 });
  });

  test('identity only: a value mismatch passes, a surplus copy is caught', () => {
    const wrong = withValue(b, 2, 12345);
    expect(judge({}, a, wrong).details.valueMismatchCount).toBe(1);
    expect(judge({ output: { 'sink-b': 'identity' } }, a, wrong).ok).toBe(true);
    const v = judge({ output: { 'sink-b': 'identity' } }, a, [...wrong, b[4] as CommittedRecord]);
    expect(v.details).toMatchObject({ surplusCount: 1, valueMismatchCount: 0 });
  });

  test('a comparison with a sequence: renumbering passes, a duplicated number is caught', () => {
    // Odd keys 1,3,5 (split 0) and 7,9 (split 1): numbering split 1 first is another interleaving.
    const renumbered = a.map((r) => {
      const c = r.value as Counted;
      if (c.key !== 'odd') return r;
      const n = r.split === 1 ? (c.v === 7 ? 1 : 2) : [1, 3, 5].indexOf(c.v) + 3;
      return { ...r, value: { ...c, n } };
    });
    expect(judge({}, renumbered, b).details.valueMismatchCount).toBeGreaterThan(0);
    expect(judge({ output: { 'sink-a': COUNTED } }, renumbered, b).ok).toBe(true);
    const odd = a.findIndex((r) => (r.value as Counted).v === 3);
    const dup = withValue(a, odd, { ...(a[odd]?.value as Counted), n: 1 });
    const v = judge({ output: { 'sink-a': COUNTED } }, dup, b);
    expect(v.ok).toBe(false);
    expect(v.details.sequence?.problems[0]).toMatchObject({ key: 'odd', duplicated: [1], missing: [2] });
    expect(v.details.valueMismatchCount).toBe(0);
  });

  test("state off ignores that operator's diff but still catches another operator's", () => {
    const state = structuredClone(fold.state);
    (state['sum-b'] as Record<string, Record<string, unknown>>)['sum'] = { even: -1, odd: -1 };
    expect(judge({}, a, b, state).details.stateDiffCount).toBe(2);
    const v = judge({ state: { 'sum-b': 'off' } }, a, b, state);
    expect(v.ok).toBe(true);
    expect(v.summary).toMatch(/final state of the judged operators equal; state of sum-b not judged \(judging off\)$/);
    expect(v.details.stateUnjudged).toEqual(['sum-b']);
    (state['count-a'] as Record<string, Record<string, unknown>>)['n'] = { even: 9 };
    const both = judge({ state: { 'sum-b': 'off' } }, a, b, state);
    expect(both.details.stateDiffs.map((d) => `${d.operator}/${d.key}`).sort()).toEqual(['count-a/even', 'count-a/odd']);
  });

  test('every keyed operator off: the state is said not judged, not equal', () => {
    const v = judge({ state: { 'sum-b': 'off', 'count-a': 'off' } }, a, b, {});
    expect(v.ok).toBe(true);
    expect(v.summary).toMatch(/, final state not judged; state of count-a, sum-b not judged/);
  });

  test('records of a store no sink writes to are surplus', () => {
    const v = endToEndExactlyOnce({
      graph, expected: fold, finalState: fold.state, committed: [...a, ...b, a[0] as CommittedRecord],
      judging: resolveJudging(graph, {}), stores: [...a.map(() => 'store-a'), ...b.map(() => 'store-b'), 'elsewhere'],
    });
    expect(v.details.surplusCount).toBe(1);
    expect(() => endToEndExactlyOnce({ graph, committed: a, finalState: {}, judging: resolveJudging(graph, {}) })).toThrow(/stores/);
  });
});

describe('job judging: judgeRun', () => {
  /** The verdict without what only the judging path adds (nothing, when nothing is off). */
  const core = (v: ReturnType<typeof judgeRun>): unknown => JSON.parse(JSON.stringify(v));

  test('flights and wordcount judged by their JobJudging get the verdicts of detection by uid', () => {
    const runs: RunResult[] = [sampleRun('aligned', true), sampleRun('at-least-once', true), sampleRun('none', true)];
    // Doctored: a record lost, a copy committed twice, a number changed, a state value changed.
    const r = sampleRun('aligned', true);
    const first = r.committed[0] as RunResult['committed'][number];
    const rec = first.record as { value: { seq: number } };
    runs.push(doctor(r, { committed: r.committed.slice(1) }), doctor(r, { committed: [...r.committed, first] }),
      doctor(r, { committed: [{ ...first, record: { ...rec, value: { ...rec.value, seq: rec.value.seq + 1 } } }, ...r.committed.slice(1)] }),
      doctor(r, { finalState: { ...r.finalState, [FLIGHTS_UIDS.stats]: {} } }));
    for (const run of runs) {
      const detected = judgeRun(run);
      expect(core(judgeRun(run, { judging: FLIGHTS_JUDGING }))).toEqual(core(detected));
      expect(core(judgeRun({ ...run, judging: FLIGHTS_JUDGING }))).toEqual(core(detected));
    }
    expect(runs.slice(3).map((x) => judgeRun(x, { judging: FLIGHTS_JUDGING }).ok)).toEqual([false, false, false, false]);
    for (const mode of ['aligned', 'at-least-once'] as const) {
      const spec: RunSpec = {
        version: RUN_SPEC_VERSION, seed: 'wc-judging', job: { kind: 'wordcount' }, parallelism: 2,
        checkpoint: { mode, intervalMs: 20 }, faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 30 }, downMs: 30 }],
        healTimeMs: 200, budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 }, overrides: [], mutations: [],
      };
      const wc = simulate(spec);
      const lost = doctor(wc, { committed: wc.committed.slice(2) });
      for (const run of [wc, lost]) expect(core(judgeRun(run, { judging: WORDCOUNT_JUDGING }))).toEqual(core(judgeRun(run)));
      expect(judgeRun(lost, { judging: WORDCOUNT_JUDGING }).ok).toBe(false);
    }
  });

  test('output off is reported as unjudged, not passed; state off of every operator too', () => {
    for (const mode of ['aligned', 'at-least-once'] as const) {
      const r = sampleRun(mode, true);
      const broken = doctor(r, { committed: r.committed.slice(100), finalState: {} });
      expect(judgeRun(broken).ok).toBe(false);
      const v = judgeRun(broken, { judging: { output: { [FLIGHTS_UIDS.sink]: 'off' }, state: { [FLIGHTS_UIDS.stats]: 'off' } } });
      expect(v.violations).toEqual([]);
      expect(v.outputUnjudged).toEqual([expect.objectContaining({ sink: FLIGHTS_UIDS.sink, reason: 'judging-off' })]);
      expect(v.stateUnjudgedOperators).toEqual([FLIGHTS_UIDS.stats]);
      expect(v.keyedState).toMatchObject({ judged: false, reason: 'judging-off' });
      expect(judgeRun(r).outputUnjudged).toEqual([]);
      expect(judgeRun(r).stateUnjudgedOperators).toEqual([]);
    }
  });

  test("consistent cut leaves out a keyed operator whose state is off", () => {
    const r = sampleRun('aligned', false);
    const old = r.checkpoints.completed[1] as DecodedCheckpoint;
    const completed = [...r.checkpoints.completed];
    const c5 = completed[5] as DecodedCheckpoint;
    completed[5] = { ...c5, operators: { ...c5.operators, [FLIGHTS_UIDS.stats]: old.operators[FLIGHTS_UIDS.stats] ?? {} } } as typeof c5;
    const doctored = doctor(r, { checkpoints: { ...r.checkpoints, completed } });
    expect(consistentCut(doctored).length).toBe(1);
    expect(consistentCut(doctored, { stateOff: new Set([FLIGHTS_UIDS.stats]) })).toEqual([]);
  });
});
