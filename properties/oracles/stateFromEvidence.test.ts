import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { AIRPORT_STATS_STATE, FLIGHTS_UIDS, type AirportStats, type FlightOutput } from '../../sim/workloads/flights.ts';
import type { GeneratedJobSpec } from '../../sim/workloads/generatedJob.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { atLeastOnce, duplicatesAfterKeyedState, judgeAtLeastOnce } from './atLeastOnce.ts';
import { doctor, sampleRun } from './testing/sampleRuns.ts';

/**
 * `r`'s trace with the record items of the keyed.inputs events `pick` selects rewritten, each
 * range `<split>:<first>-<last>` (KeyedInputLog) spelt out as single items first.
 */
function withItems(r: RunResult, pick: (e: TraceEvent) => boolean, items: (old: string[]) => string[]): RunResult {
  const trace = r.trace.map((e) => {
    if (e.type !== 'keyed.inputs' || !pick(e)) return e;
    const old = String(e.attrs['records']);
    return { ...e, attrs: { ...e.attrs, records: items(old === '' ? [] : old.split(',').flatMap(spelt)).join(',') } };
  });
  return doctor(r, { trace });
}

/** `0:2-4` as `0:2`, `0:3`, `0:4`; any other item as it is. */
function spelt(item: string): string[] {
  const m = /^(\d+):(\d+)-(\d+)$/.exec(item);
  if (m === null) return [item];
  const [first, last] = [Number(m[2]), Number(m[3])];
  return Array.from({ length: last - first + 1 }, (_x, i) => `${m[1]}:${first + i}`);
}

/** The final-state event of `uid`'s latest attempt of subtask `subtask` that traced one. */
function finalEvent(r: RunResult, uid: string, subtask: string): TraceEvent {
  const finals = r.trace.filter((e) => e.type === 'keyed.inputs' && e.attrs['operator'] === uid
    && e.attrs['checkpoint'] === -1 && String(e.attrs['task']).startsWith(`${subtask}@`));
  return finals.at(-1) as TraceEvent;
}

// Found by explore (generated, at-least-once): two keyed stages in a row, the second behind a
// keyBy, a global failure after checkpoint 2. The count's snapshot of checkpoint 2 held 0:1,
// which lies at checkpoint 2's position of split 0: read again, it is counted twice (7 where F
// says 6); the distinct set holds it twice as well, and one copy reached the sink twice. So the
// state's duplicates (2) are not the output's (1), and only the trace's evidence can judge it.
// (Seed s5 without overrides gives that schedule since tasks take mails between records.)
const TWO_KEYED: RunSpec = {
  version: RUN_SPEC_VERSION, seed: 's5',
  job: { kind: 'generated', spec: {
    records: [[-985, -497, 904, -87, 493], [956]],
    stages: [{ kind: 'map', fn: 5, parallelism: 2, rebalance: false }, { kind: 'keyed', key: 4, fn: 0, parallelism: 1 },
      { kind: 'keyed', key: 2, fn: 3, parallelism: 2 }],
    sourceParallelism: 2, sinkParallelism: 1, maxParallelism: 128,
  } },
  parallelism: 4, taskManagers: 2,
  checkpoint: { mode: 'at-least-once', intervalMs: 200, maxConcurrent: 2, tolerableFailures: 0 },
  restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
  faults: [
    { type: 'global-failure', when: { at: { kind: 'sink', phase: 'pre-committed', nth: 8 } } },
    { type: 'global-failure', when: { atMs: 521 } },
    { type: 'global-failure', when: { at: { kind: 'sink', phase: 'pre-committed', nth: 2 } } },
  ],
  healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
  overrides: [], mutations: [],
  network: { bufferTimeoutMs: 0, recordsPerBuffer: 1 },
  costsMs: { 'gen-source': 100, 'gen-0-map-halve': 5, 'gen-1-keyed-constant-count': 5, 'gen-2-keyed-str7-distinct': 5, 'gen-sink': 5 },
};
const COUNT = 'gen-1-keyed-constant-count';

describe('oracle 4 judges the keyed state from the evidence of what the keyed stages read', () => {
  test('a legitimate run whose state holds other duplicates than its output is judged, and holds', () => {
    const result = simulate(TWO_KEYED);
    expect(duplicatesAfterKeyedState(result.graph)).toBe(true);
    expect(result.finalState[COUNT]).toEqual({ count: { all: 7 } });
    expect(sharedReferenceFold(result.graph).state[COUNT]).toEqual({ count: { all: 6 } });
    expect(result.committed.length).toBe(7);
    expect(judgeAtLeastOnce(result)).toEqual({ violations: [], state: { judged: true } });
  });

  test('a count above what the evidence says was read again is a violation', () => {
    const result = simulate(TWO_KEYED);
    const vs = atLeastOnce(doctor(result, { finalState: { ...result.finalState, [COUNT]: { count: { all: 8 } } } }));
    expect(vs.map((v) => v.summary)).toEqual(['committed output or final state differ from F(all input + D): 1 stateDiff']);
    expect(vs[0]?.details).toMatchObject({
      stateDiffs: [{ operator: COUNT, state: 'count', key: 'all', expected: 7, actual: 8 }],
      keyedInputs: { duplicatedInputs: 2, missing: [], unexplained: [] },
    });
  });

  test('a record read again before its checkpoint position is unexplained; one the state never saw is missing', () => {
    const result = simulate(TWO_KEYED);
    // 0:0 lies before the position of split 0 in checkpoint 2, which every later attempt of the
    // count restored: no restore reads it again, so a second copy is unexplained.
    const last = finalEvent(result, COUNT, 'v1#1');
    const reread = withItems(result, (e) => e === last, (items) => [...items, '0:0']);
    const vs = atLeastOnce(doctor(reread, { finalState: { ...result.finalState, [COUNT]: { count: { all: 8 } } } }));
    expect(vs.map((v) => v.summary)).toEqual(['committed output or final state differ from F(all input + D): 1 stateUnexplained']);
    expect(vs[0]?.details).toMatchObject({
      keyedInputs: { unexplained: [{ operator: COUNT, split: 0, offset: 0, tag: '', expected: 1, held: 2, explained: 0 }] },
    });
    // 0:0 as if the count had never processed it: F(all + D) still counts it.
    const dropped = withItems(result, (e) => e.attrs['operator'] === COUNT, (items) => items.filter((x) => x !== '0:0'));
    const ws = atLeastOnce(dropped);
    expect(ws.map((v) => v.summary)).toEqual(['committed output or final state differ from F(all input + D): 1 stateMissing']);
    expect(ws[0]?.details).toMatchObject({
      keyedInputs: { missing: [{ operator: COUNT, split: 0, offset: 0, tag: '', expected: 1, held: 0 }] },
    });
  });

  test('incomplete evidence leaves the state unjudged, with the reason', () => {
    const result = simulate(TWO_KEYED);
    const finalTask = String(finalEvent(result, COUNT, 'v1#1').attrs['task']);
    const noFinal = doctor(result, { trace: result.trace.filter((e) => !(e.type === 'keyed.inputs' && e.attrs['task'] === finalTask)) });
    expect(judgeAtLeastOnce(noFinal).state).toEqual({
      judged: false, reason: 'evidence-incomplete',
      detail: `${COUNT}: subtask v1#1 has no finished attempt with a final state`,
    });
    // The attempt whose snapshot of checkpoint 2 the final attempt restored.
    const restored = result.trace.find((e) => e.type === 'keyed.inputs' && e.attrs['operator'] === COUNT
      && e.attrs['checkpoint'] === 2 && String(e.attrs['task']).startsWith('v1#1@'));
    expect(finalEvent(result, COUNT, 'v1#1').attrs['restored']).toBe(2);
    const noSnapshot = doctor(result, { trace: result.trace.filter((e) => !(e.type === 'keyed.inputs' && e.attrs['task'] === restored?.attrs['task'])) });
    expect(judgeAtLeastOnce(noSnapshot).state).toMatchObject({
      judged: false, reason: 'evidence-incomplete', detail: `${COUNT}: no attempt of v1#1 traced checkpoint 2, which an attempt restored`,
    });
    const noEvidence = doctor(result, { trace: result.trace.filter((e) => e.type !== 'keyed.inputs') });
    expect(judgeAtLeastOnce(noEvidence).state).toMatchObject({ judged: false, reason: 'duplicates-after-keyed-state' });
  });

  test('flights behind a rebalance: 87 state duplicates judged; a flight counted once more is found only with the evidence', () => {
    const traced = sampleRun('at-least-once', true, true);
    expect(judgeAtLeastOnce(traced)).toEqual({ violations: [], state: { judged: true } });
    const stats = traced.finalState[FLIGHTS_UIDS.stats]?.[AIRPORT_STATS_STATE] as Record<string, AirportStats>;
    // Offset 0 of split 0 was read long before the checkpoint every restore used.
    const first = sharedReferenceFold(traced.graph).outputs.find((r) => r.split === 0 && r.offset === 0)?.value as FlightOutput;
    const old = stats[first.origin] as AirportStats;
    const twice = { ...stats, [first.origin]: { count: old.count + 1, total: old.total + first.delay, max: Math.max(old.max, first.delay) } };
    const finalState = { [FLIGHTS_UIDS.stats]: { [AIRPORT_STATS_STATE]: twice } };
    expect(atLeastOnce(doctor(traced, { finalState })).map((v) => v.summary))
      .toEqual(['committed output or final state differ from F(all input + D): 1 stateDiff']);
    // Without the evidence the same state passes, unjudged (and says so).
    const untraced = doctor(sampleRun('at-least-once', true), { finalState });
    expect(judgeAtLeastOnce(untraced)).toMatchObject({ violations: [], state: { judged: false, reason: 'duplicates-after-keyed-state' } });
  });

  test('duplicates that show only in the state, which the search could not decide, are judged from the evidence', () => {
    // 30 records of value 0, counted twice each after the flatMap, filtered out after the count,
    // now behind a rebalance: a count 10 above the run's is 5 copies no restore read again.
    const base: GeneratedJobSpec = {
      records: [Array.from({ length: 30 }, () => 0)],
      stages: [{ kind: 'flatMap', fn: 0, parallelism: 1, rebalance: true }, { kind: 'keyed', key: 0, fn: 0, parallelism: 1 },
        { kind: 'filter', fn: 1, parallelism: 1, rebalance: true }, { kind: 'filter', fn: 0, parallelism: 1, rebalance: false }],
      sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128,
    };
    const result = simulate({
      version: RUN_SPEC_VERSION, seed: 's1', job: { kind: 'generated', spec: base }, parallelism: 1, taskManagers: 1,
      network: { recordsPerBuffer: 1 }, costsMs: { 'gen-source': 5 },
      checkpoint: { mode: 'at-least-once', intervalMs: 20 }, restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [{ type: 'global-failure', when: { atMs: 75 } }],
      healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    });
    expect(result.restores).toBe(1);
    expect(result.committed).toEqual([]);
    expect(judgeAtLeastOnce(result)).toEqual({ violations: [], state: { judged: true } });
    const op = result.finalState['gen-1-keyed-rem4-count'] ?? {};
    const count = (op['count'] as Record<string, number>)['0'] ?? 0;
    const doctored = doctor(result, { finalState: { 'gen-1-keyed-rem4-count': { count: { 0: count + 10 } } } });
    expect(atLeastOnce(doctored).map((v) => v.summary))
      .toEqual(['committed output or final state differ from F(all input + D): 1 stateDiff']);
  });
});
