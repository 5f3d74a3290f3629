import { describe, expect, test } from 'vitest';
import type { DecodedCheckpoint } from '../../engine/index.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { twoPhaseCommitSink } from '../../engine/index.ts';
import { FLIGHTS_UIDS, flightsJob } from '../../sim/workloads/flights.ts';
import { RUN_SPEC_VERSION } from '../../sim/run/RunSpec.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { clusterRunResult } from './testing/clusterRunResult.ts';
import { consistentCut, vertexOf } from './consistentCut.ts';
import { splitPositions, splitSizes } from './splitPositions.ts';
import { doctor, SAMPLE_GRAPH, sampleRun } from './testing/sampleRuns.ts';

const withCheckpoints = (r: RunResult, completed: DecodedCheckpoint[]): RunResult =>
  doctor(r, { checkpoints: { ...r.checkpoints, completed } });

/** Replaces checkpoint `i` of `r` by `change(checkpoint)`. */
function change(r: RunResult, i: number, f: (c: DecodedCheckpoint) => DecodedCheckpoint): RunResult {
  const completed = [...r.checkpoints.completed];
  completed[i] = f(completed[i] as DecodedCheckpoint);
  return withCheckpoints(r, completed);
}

describe('oracle 1: consistent cut', () => {
  test('holds at every checkpoint of real aligned runs, with and without a crash', () => {
    for (const crash of [false, true]) {
      const r = sampleRun('aligned', crash);
      expect(r.checkpoints.completed.length).toBeGreaterThan(5);
      expect(consistentCut(r)).toEqual([]);
    }
  });

  test('holds with finished subtasks, whose final state comes from an earlier checkpoint', () => {
    // Three splits over two readers: one reader finishes long before the other.
    const graph = flightsJob({ selection: { from: 0, to: 1500 }, parallelism: 2, splits: 3, sink: twoPhaseCommitSink('f') });
    const { result } = clusterRunResult({ graph, seed: 'fin', checkpoint: { mode: 'aligned', intervalMs: 20 } });
    expect(result.jobStatus).toBe('FINISHED');
    expect(result.checkpoints.completed.some((c) => c.finishedTasks.length > 0)).toBe(true);
    expect(consistentCut(result)).toEqual([]);
  });

  test('a state value taken from an older checkpoint is caught with the keys that differ', () => {
    const r = sampleRun('aligned', false);
    const old = r.checkpoints.completed[1] as DecodedCheckpoint;
    const doctored = change(r, 5, (c) => ({
      ...c, operators: { ...c.operators, [FLIGHTS_UIDS.stats]: old.operators[FLIGHTS_UIDS.stats] ?? {} },
    }));
    const [v, ...rest] = consistentCut(doctored);
    expect(rest).toEqual([]);
    const c5 = r.checkpoints.completed[5] as DecodedCheckpoint;
    expect(v).toMatchObject({ property: 'consistent-cut', timeMs: c5.completionTimestampUs / 1000 });
    expect(v?.summary).toMatch(new RegExp(`checkpoint ${c5.checkpointId} is not a consistent cut: \\d+ key`));
    const details = v?.details as { diffs: { operator: string; key: string }[]; diffCount: number };
    expect(details.diffCount).toBeGreaterThan(0);
    expect(details.diffs[0]?.operator).toBe(FLIGHTS_UIDS.stats);
  });

  test('a source position moved back (a split returned to the pool) is caught', () => {
    const r = sampleRun('aligned', false);
    const doctored = change(r, 3, (c) => {
      const e = c.coordinators[FLIGHTS_UIDS.source] as { unassigned: { splitId: number; offset: number }[]; assigned: number[] };
      const gone = e.assigned.find((id) => splitPositions(c, SAMPLE_GRAPH).positions.get(id) === splitSizes(SAMPLE_GRAPH).get(id));
      expect(gone).toBeDefined();
      return { ...c, coordinators: { [FLIGHTS_UIDS.source]: {
        unassigned: [...e.unassigned, { splitId: gone as number, offset: 0 }],
        assigned: e.assigned.filter((id) => id !== gone),
      } } };
    });
    expect(consistentCut(doctored)).toHaveLength(1);
  });

  test('a running subtask without state, and a key in two subtasks, are problems', () => {
    const r = sampleRun('aligned', false);
    const missing = change(r, 2, (c) => {
      const { 1: _gone, ...rest } = c.operators[FLIGHTS_UIDS.stats] ?? {};
      return { ...c, operators: { ...c.operators, [FLIGHTS_UIDS.stats]: rest } };
    });
    const [v] = consistentCut(missing);
    expect((v?.details as { problems: string[] }).problems[0]).toMatch(/airport-stats#1 \(task v1#1\) is neither/);
    const twice = change(r, 2, (c) => {
      const stats = c.operators[FLIGHTS_UIDS.stats] ?? {};
      return { ...c, operators: { ...c.operators, [FLIGHTS_UIDS.stats]: { ...stats, 1: stats['0'] as { path: string; data: unknown } } } };
    });
    const [w] = consistentCut(twice);
    expect((w?.details as { problems: string[] }).problems.join('\n')).toMatch(/is in subtasks 0 and 1/);
  });

  test('generated jobs (fold carried from cut to cut) are judged as with a fold per cut', () => {
    // Two keyed stages with map state (distinct) and a min/max pair; negative values, so the map
    // state's keys keep their insertion order, which differs between the carried fold and F.
    const values = Array.from({ length: 120 }, (_x, i) => -((i * 7) % 50) - 1);
    const spec: RunSpec = {
      version: RUN_SPEC_VERSION,
      seed: 'carried',
      job: { kind: 'generated', spec: {
        records: [values.slice(0, 40), values.slice(40, 80), values.slice(80)],
        stages: [
          { kind: 'keyed', key: 4, fn: 3, parallelism: 2 },
          { kind: 'flatMap', fn: 3, parallelism: 2, rebalance: false },
          { kind: 'keyed', key: 2, fn: 2, parallelism: 2 },
        ],
        sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 8,
      } },
      parallelism: 2,
      costsMs: { 'gen-source': 2 },
      checkpoint: { mode: 'aligned', intervalMs: 10 },
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
      faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 50 }, downMs: 20 }],
      healTimeMs: 100,
      budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
      overrides: [],
      mutations: [],
    };
    const r = simulate(spec);
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.checkpoints.completed.length).toBeGreaterThanOrEqual(3);
    // The same run, said to be another job: every cut folded afresh, in F's order.
    const fresh = (x: RunResult): RunResult => doctor(x, { spec: { ...x.spec, job: { kind: 'wordcount' } } });
    expect(consistentCut(r)).toEqual([]);
    // Checkpoint 1 cuts the input after a partial cut (the fold was carried); its diff lists the
    // map state in F's insertion order.
    const uid = 'gen-0-keyed-constant-distinct';
    const old = r.checkpoints.completed[0] as DecodedCheckpoint;
    const doctored = change(r, 1, (c) => ({ ...c, operators: { ...c.operators, [uid]: old.operators[uid] ?? {} } }));
    const violations = consistentCut(doctored);
    expect(violations).toHaveLength(1);
    expect(JSON.stringify(violations)).toBe(JSON.stringify(consistentCut(fresh(doctored))));
  });

  test('vertexOf reads state file paths', () => {
    expect(vertexOf('chk-3/v1#0@2/airport-stats')).toBe('v1');
    expect(vertexOf('elsewhere')).toBeUndefined();
  });
});

describe('splitPositions', () => {
  const c = sampleRun('aligned', false).checkpoints.completed[2] as DecodedCheckpoint;

  test('covers every split within 0..n_s; no checkpoint means every split at 0', () => {
    const { positions, problems } = splitPositions(c, SAMPLE_GRAPH);
    expect(problems).toEqual([]);
    expect([...positions.keys()].sort((a, b) => a - b)).toEqual([...Array(16).keys()]);
    expect([...splitPositions(undefined, SAMPLE_GRAPH).positions.values()].every((p) => p === 0)).toBe(true);
  });

  test('reports contradictions in the stored state', () => {
    const readers = c.operators[FLIGHTS_UIDS.source] ?? {};
    const e = c.coordinators[FLIGHTS_UIDS.source] as { unassigned: { splitId: number; offset: number }[]; assigned: number[] };
    expect(splitPositions({ ...c, coordinators: {} }, SAMPLE_GRAPH).positions.size).toBe(16);
    const twice = { ...c, operators: { ...c.operators, [FLIGHTS_UIDS.source]: { ...readers, 2: readers['0'] as { path: string; data: unknown } } } };
    expect(splitPositions(twice, SAMPLE_GRAPH).problems.join()).toMatch(/held by two readers/);
    expect(splitPositions({ ...c, coordinators: {} }, SAMPLE_GRAPH).problems.join()).toMatch(/no enumerator state/);
    const nowhere = { ...c, coordinators: { [FLIGHTS_UIDS.source]: { unassigned: e.unassigned, assigned: [] } } };
    expect(splitPositions(nowhere, SAMPLE_GRAPH).problems.join()).toMatch(/in no reader state/);
    const heldId = Number(Object.keys(splitHeld(c))[0]);
    const both = { ...c, coordinators: { [FLIGHTS_UIDS.source]: { unassigned: [...e.unassigned, { splitId: heldId, offset: 0 }], assigned: e.assigned } } };
    expect(splitPositions(both, SAMPLE_GRAPH).problems.join()).toMatch(/both held by a reader/);
    const beyond = { ...c, coordinators: { [FLIGHTS_UIDS.source]: { unassigned: [{ splitId: 15, offset: 10_000 }], assigned: e.assigned.filter((i) => i !== 15) } } };
    expect(splitPositions(beyond, SAMPLE_GRAPH).problems.join()).toMatch(/outside 0\.\.125/);
  });
});

/** The splits the readers of `c` hold, as split id -> position. */
function splitHeld(c: DecodedCheckpoint): Record<string, number> {
  const e = c.coordinators[FLIGHTS_UIDS.source] as { unassigned: { splitId: number }[]; assigned: number[] };
  const { positions } = splitPositions(c, SAMPLE_GRAPH);
  const sizes = splitSizes(SAMPLE_GRAPH);
  const out: Record<string, number> = {};
  for (const id of e.assigned) {
    const p = positions.get(id) as number;
    if (p < (sizes.get(id) as number)) out[String(id)] = p;
  }
  return out;
}
