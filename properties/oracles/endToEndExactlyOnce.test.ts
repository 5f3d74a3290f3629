import { describe, expect, test } from 'vitest';
import { collectSink, splitSource, StreamExecutionEnvironment } from '../../engine/index.ts';
import type { StreamGraph, StreamRecord } from '../../engine/index.ts';
import { AIRPORT_STATS_STATE, flightsJob, FLIGHTS_UIDS } from '../../sim/workloads/flights.ts';
import type { FlightOutput } from '../../sim/workloads/flights.ts';
import { buildGeneratedJob } from '../../sim/workloads/generatedJob.ts';
import { generateJobSpec } from '../../sim/workloads/generateJobSpec.ts';
import { wordcountJob } from '../../sim/workloads/wordcount.ts';
import type { WordCountOutput } from '../../sim/workloads/wordcount.ts';
import { referenceFold } from '../referenceFold.ts';
import type { KeyedStateView } from '../referenceFold.ts';
import { detectSequenced, endToEndExactlyOnce } from './endToEndExactlyOnce.ts';
import type { CommittedRecord } from './endToEndExactlyOnce.ts';

const commit = (records: readonly StreamRecord[], attempt = 0): CommittedRecord[] =>
  records.map((r, i) => ({ ...r, attempt, subtask: i % 3 }));

const clone = <T>(v: T): T => structuredClone(v);

/** Renumbers per key as if the splits had been read in reverse split order. */
function renumber(
  out: CommittedRecord[], key: (v: unknown) => string, withSeq: (v: unknown, seq: number) => unknown,
): CommittedRecord[] {
  const order = out.map((r, i) => [r, i] as const).sort(([a, i], [b, j]) => b.split - a.split || i - j);
  const next = new Map<string, number>();
  const result = [...out];
  for (const [r, i] of order) {
    const k = key(r.value);
    const seq = (next.get(k) ?? 0) + 1;
    next.set(k, seq);
    result[i] = { ...r, value: withSeq(r.value, seq) };
  }
  return result;
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('end-to-end exactly-once on flights', () => {
  const graph = flightsJob({ selection: { from: 0, to: 2000 }, parallelism: 4, sink: collectSink([]) });
  const fold = referenceFold(graph);
  const judge = (committed: CommittedRecord[], finalState: KeyedStateView = fold.state) =>
    endToEndExactlyOnce({ graph, committed, finalState, expected: fold });

  test("passes on the fold's own output and state", () => {
    const v = judge(commit(fold.outputs));
    expect(v).toMatchObject({ ok: true, property: 'end-to-end-exactly-once' });
    expect(v.summary).toMatch(/holds: 2000 committed records/);
    expect(v.details.sequence?.problemCount).toBe(0);
    expect(v.details.flights?.problemCount).toBe(0);
    // Without a precomputed fold, too.
    expect(endToEndExactlyOnce({ graph, committed: commit(fold.outputs), finalState: fold.state }).ok).toBe(true);
  });

  test('passes when another interleaving numbered the flights differently', () => {
    // Reading the splits in reverse order is another valid interleaving: each airport's numbers
    // still run 1..n and increase with the offset within a split, but records get other numbers.
    const out = renumber(commit(fold.outputs), (v) => (v as FlightOutput).origin,
      (v, seq) => ({ ...(v as FlightOutput), seq }));
    expect(out.filter((r, i) => (r.value as FlightOutput).seq !== (fold.outputs[i]!.value as FlightOutput).seq).length)
      .toBeGreaterThan(1000);
    expect(judge(out).ok).toBe(true);
  });

  test('detects a missing record', () => {
    const out = commit(fold.outputs);
    const [lost] = out.splice(17, 1);
    const v = judge(out);
    expect(v.ok).toBe(false);
    expect(v.details.missing).toEqual([{ id: `${lost!.split}:${lost!.offset}`, value: lost!.value }]);
    expect(v.details.missingCount).toBe(1);
    expect(v.details.flights?.missingFlightIds).toEqual([(lost!.value as FlightOutput).flightId]);
    expect(v.details.flights?.airportStatsDiffs).toHaveLength(1);
    expect(v.details.sequence?.problemCount).toBe(1);
    expect(v.summary).toMatch(/violated: 1 missing record, .*1 key with bad sequence numbers, 2 flights problems/);
  });

  test('detects a duplicate', () => {
    const out = commit(fold.outputs);
    const dup = { ...out[5]!, attempt: 1, subtask: 2 };
    out.push(dup);
    const v = judge(out);
    expect(v.ok).toBe(false);
    expect(v.details.surplus).toEqual([{ id: `${dup.split}:${dup.offset}`, value: dup.value, attempt: 1, subtask: 2 }]);
    expect(v.details.flights?.duplicatedFlightIds).toEqual([(dup.value as FlightOutput).flightId]);
    const seq = v.details.sequence?.problems[0];
    expect(seq).toMatchObject({ key: (dup.value as FlightOutput).origin, duplicated: [(dup.value as FlightOutput).seq] });
    expect(v.details.sequence?.orderViolationCount).toBe(1);
  });

  test('detects a wrong state value', () => {
    const state = clone(fold.state);
    const stats = state[FLIGHTS_UIDS.stats]![AIRPORT_STATS_STATE]!;
    stats['ORD'] = { ...(stats['ORD'] as object), total: 1 };
    delete stats['DFW'];
    const v = judge(commit(fold.outputs), state);
    expect(v.ok).toBe(false);
    expect(v.details.stateDiffs.map((d) => [d.operator, d.state, d.key])).toEqual([
      [FLIGHTS_UIDS.stats, AIRPORT_STATS_STATE, 'ORD'], [FLIGHTS_UIDS.stats, AIRPORT_STATS_STATE, 'DFW'],
    ]);
    expect(v.details.stateDiffs[1]?.actual).toBeUndefined();
    expect(v.summary).toMatch(/2 state diffs/);
  });

  test('detects a seq gap', () => {
    const out = commit(fold.outputs);
    const i = out.findIndex((r) => (r.value as FlightOutput).origin === 'ORD');
    const lastOrd = out.filter((r) => (r.value as FlightOutput).origin === 'ORD').length;
    out.forEach((r, j) => {
      const f = r.value as FlightOutput;
      if (j >= i && f.origin === 'ORD' && f.seq === lastOrd) out[j] = { ...r, value: { ...f, seq: lastOrd + 1 } };
    });
    const v = judge(out);
    expect(v.ok).toBe(false);
    expect(v.details.sequence?.problems).toEqual([
      { key: 'ORD', n: lastOrd, missing: [lastOrd], duplicated: [], unexpected: [lastOrd + 1] },
    ]);
    expect(v.details.missingCount + v.details.surplusCount + v.details.valueMismatchCount).toBe(0);
  });

  test('detects numbers that do not increase with the offset within a split', () => {
    const out = commit(fold.outputs);
    const idx = out.map((r, j) => [r, j] as const)
      .filter(([r]) => r.split === 0 && (r.value as FlightOutput).origin === 'ORD').map(([, j]) => j);
    const [x, y] = [out[idx[0]!]!, out[idx[1]!]!];
    out[idx[0]!] = { ...x, value: { ...(x.value as FlightOutput), seq: (y.value as FlightOutput).seq } };
    out[idx[1]!] = { ...y, value: { ...(y.value as FlightOutput), seq: (x.value as FlightOutput).seq } };
    const v = judge(out);
    expect(v.ok).toBe(false);
    expect(v.details.sequence?.orderViolations[0]).toMatchObject({ split: 0, key: 'ORD', seqs: [2, 1] });
  });

  test('detects a changed value and lists it as a mismatch', () => {
    const out = commit(fold.outputs);
    const r = out[9]!;
    out[9] = { ...r, value: { ...(r.value as FlightOutput), delay: 999 } };
    const v = judge(out);
    expect(v.details.valueMismatches).toEqual([
      { id: `${r.split}:${r.offset}`, expected: r.value, actual: out[9]!.value, attempt: 0, subtask: 0 },
    ]);
    expect(v.details.flights?.airportStatsDiffs[0]?.airport).toBe((r.value as FlightOutput).origin);
  });

  test('truncates long lists but keeps exact counts', () => {
    const v = endToEndExactlyOnce({ graph, committed: [], finalState: {}, expected: fold, maxListed: 3 });
    expect(v.details.missing).toHaveLength(3);
    expect(v.details.missingCount).toBe(2000);
    expect(v.details.stateDiffs).toHaveLength(3);
    expect(v.details.flights?.missingFlightIds).toHaveLength(3);
  });

  test('surplus records from another job are unexpected flights', () => {
    const stray: CommittedRecord = {
      value: { flightId: 19999, origin: 'ZZZ', seq: 1, delay: 0 }, split: 99, offset: 0, tag: '', attempt: 2, subtask: 0,
    };
    const v = judge([...commit(fold.outputs), stray]);
    expect(v.details.flights?.unexpectedFlightIds).toEqual([19999]);
    expect(v.details.flights?.airportStatsDiffs).toEqual([
      { airport: 'ZZZ', expected: undefined, actual: { count: 1, total: 0, max: 0 } },
    ]);
  });
});

describe('end-to-end exactly-once on other jobs', () => {
  test('wordcount: counts judged per word, not per record', () => {
    const graph = wordcountJob({ sink: collectSink([]), splits: 4 });
    const fold = referenceFold(graph);
    expect(detectSequenced(graph)?.name).toMatch(/wordcount/);
    const out = commit(fold.outputs);
    expect(endToEndExactlyOnce({ graph, committed: out, finalState: fold.state }).ok).toBe(true);
    const reordered = renumber(out, (v) => (v as WordCountOutput).word,
      (v, count) => ({ word: (v as WordCountOutput).word, count }));
    expect(reordered).not.toEqual(out);
    expect(endToEndExactlyOnce({ graph, committed: reordered, finalState: fold.state }).ok).toBe(true);
    const broken = out.map((r) => (r.value as WordCountOutput).word === 'river'
      ? { ...r, value: { word: 'river', count: 1 } } : r);
    const bad = endToEndExactlyOnce({ graph, committed: broken, finalState: fold.state });
    expect(bad.ok).toBe(false);
    expect(bad.details.sequence?.problems[0]?.key).toBe('river');
    expect(bad.details.flights).toBeUndefined();
  });

  test('generated jobs: the fold passes its own output; a lost record is caught', () => {
    for (let seed = 0; seed < 60; seed++) {
      const graph = buildGeneratedJob(generateJobSpec(prng(seed)), collectSink([]));
      expect(detectSequenced(graph)).toBeNull();
      const fold = referenceFold(graph);
      const ok = endToEndExactlyOnce({ graph, committed: commit(fold.outputs), finalState: fold.state });
      expect(ok.ok, ok.summary).toBe(true);
      if (fold.outputs.length > 0) {
        const v = endToEndExactlyOnce({ graph, committed: commit(fold.outputs.slice(1)), finalState: fold.state });
        expect(v.ok).toBe(false);
        expect(v.details.missingCount).toBe(1);
      }
    }
  });

  test('judges one sink of several, with whole values when not sequenced', () => {
    const env = new StreamExecutionEnvironment();
    const src = env.fromSource(splitSource([{ id: 0, records: [1, 2] }]));
    src.sinkTo(collectSink([]), { uid: 'a' });
    src.map((v: number) => v + 1).sinkTo(collectSink([]), { uid: 'b' });
    const graph: StreamGraph = env.getStreamGraph();
    const fold = referenceFold(graph);
    const committedB = commit(fold.outputsBySink.get('b') ?? []);
    expect(endToEndExactlyOnce({ graph, committed: committedB, finalState: {}, sink: 'b' }).ok).toBe(true);
    expect(endToEndExactlyOnce({ graph, committed: committedB, finalState: {}, sink: 'nope' }).details.surplusCount).toBe(2);
    const wrong = committedB.map((r) => ({ ...r, value: 0 }));
    const v = endToEndExactlyOnce({ graph, committed: wrong, finalState: {}, sink: 'b', sequenced: null, flights: false });
    expect(v.details.valueMismatchCount).toBe(2);
    // Only values differ: the summary names the likeliest cause in a user's job (order-dependent values).
    expect(v.summary).toMatch(/^end-to-end exactly-once violated: 2 value mismatches \(every record committed once, only values differ: if a value depends on the order .* docs\/jobs\.md "Input"\)$/);
    // With a record committed twice as well, the values are not the only difference: no such hint.
    const twice = endToEndExactlyOnce({ graph, committed: [...wrong, ...wrong.slice(0, 1)], finalState: {}, sink: 'b', sequenced: null, flights: false });
    expect(twice.summary).toBe('end-to-end exactly-once violated: 1 surplus record, 2 value mismatches');
  });
});
