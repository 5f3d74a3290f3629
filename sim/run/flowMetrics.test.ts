import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { TransactionId } from '../../engine/index.ts';
import { HarnessAssertionError } from '../harnessAssert.ts';
import { SimMetricGroups } from '../SimMetricGroups.ts';
import type { CommittedRecord, TransactionTimes } from '../SimTransactionalStore.ts';
import { flowMetrics, percentile, runFlowMetrics } from './flowMetrics.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from './RunSpec.ts';
import { simulate } from './simulate.ts';

/** Flights 0..300 on two TaskManagers, a checkpoint every `intervalMs`. */
function spec(o: Partial<RunSpec> & { intervalMs?: number; faults?: Fault[] } = {}): RunSpec {
  const { intervalMs, ...rest } = o;
  return {
    version: RUN_SPEC_VERSION,
    seed: 'flow',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    taskManagers: 2,
    checkpoint: { mode: 'aligned', intervalMs: intervalMs ?? 20 },
    faults: [],
    healTimeMs: 2000,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [],
    mutations: [],
    ...rest,
  };
}

const SLOW_SINK: Fault = {
  type: 'slow-task', operator: 'flights-sink', factor: 20, when: { atMs: 0 }, durationMs: 1000,
};

describe('percentile (nearest rank)', () => {
  const tens = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  test('is the value at rank ceil(p/100 * n), the first for p = 0', () => {
    expect(percentile(tens, 50)).toBe(5);
    expect(percentile(tens, 51)).toBe(6);
    expect(percentile(tens, 99)).toBe(10);
    expect(percentile(tens, 100)).toBe(10);
    expect(percentile(tens, 10)).toBe(1);
    expect(percentile(tens, 11)).toBe(2);
    expect(percentile(tens, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([1, 2, 3], 50)).toBe(2);
  });

  test('refuses no values and p outside [0, 100]', () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile(tens, -1)).toThrow('p must be in [0, 100], got -1');
    expect(() => percentile(tens, 101)).toThrow(RangeError);
    expect(() => percentile(tens, Number.NaN)).toThrow(RangeError);
  });
});

describe('flowMetrics', () => {
  test('latency from read to commit, throughput over first read to last commit, back pressure per task', () => {
    const f = flowMetrics({
      // Reads at 0, 2 and 5 ms, commits at 10, 10 and 20 ms; a timer's output committed at 20 ms
      // has no read, so no latency.
      committedRecords: 4,
      latenciesUs: [10_000, 8_000, 15_000],
      lastCommitUs: 20_000,
      firstReadUs: 0,
      backPressuredUs: new Map([['v1#0', 1500], ['v0#10', 500], ['v0#2', 250]]),
    });
    expect(f.committedRecords).toBe(4);
    expect(f.latencyMs).toEqual({ p50: 10, p99: 15, max: 15, mean: 11 });
    expect(f.throughputPerSec).toBe(4 / 0.02);
    expect(f.backPressuredMs.total).toBe(2.25);
    expect(Object.entries(f.backPressuredMs.byTask)).toEqual([['v0#2', 0.25], ['v0#10', 0.5], ['v1#0', 1.5]]);
  });

  test('its p50, p99 and max are percentile() of the sorted latencies, whatever their order', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 300 }), (us) => {
      const sorted = [...us].sort((a, b) => a - b);
      const l = flowMetrics({
        committedRecords: us.length, latenciesUs: us, lastCommitUs: 100, firstReadUs: 0, backPressuredUs: new Map(),
      }).latencyMs;
      expect(l).toEqual({
        p50: percentile(sorted, 50) / 1000, p99: percentile(sorted, 99) / 1000, max: (sorted.at(-1) ?? 0) / 1000,
        mean: Math.round(us.reduce((a, b) => a + b, 0) / us.length) / 1000,
      });
    }), { seed: 15, numRuns: 300 });
  });

  test('the mean is rounded to the µs', () => {
    const f = flowMetrics({
      committedRecords: 2, latenciesUs: [2, 1], lastCommitUs: 2, firstReadUs: 0, backPressuredUs: new Map(),
    });
    expect(f.latencyMs?.mean).toBe(0.002);
  });

  test('nothing committed: no latency, no throughput', () => {
    expect(flowMetrics({
      committedRecords: 0, latenciesUs: [], lastCommitUs: undefined, firstReadUs: 10,
      backPressuredUs: new Map([['v0#0', 0]]),
    })).toEqual({
      committedRecords: 0, latencyMs: null, throughputPerSec: null,
      backPressuredMs: { total: 0, byTask: { 'v0#0': 0 } },
    });
  });
});

describe('runFlowMetrics', () => {
  const txn = (epoch: number): TransactionId => ({ sink: 'sink', subtask: 0, attempt: epoch, epoch });
  const copy = (t: TransactionId, split: number, offset: number): CommittedRecord =>
    ({ record: { value: 0, split, offset, tag: '', attempt: t.attempt, subtask: 0 }, txn: t });

  test('each copy\'s read is the latest of its record before its pre-commit; timer outputs have none', () => {
    const metrics = new SimMetricGroups();
    const first = metrics.forHost('tm').taskIO('v0#0@0');
    first.markRecordRead(0, 0, 1_000);
    first.markRecordRead(0, 1, 2_000);
    const again = metrics.forHost('tm').taskIO('v0#0@1'); // after a restore from offset 1
    again.markRecordRead(0, 1, 9_000);
    const [t1, t2] = [txn(0), txn(1)];
    const times = new Map<TransactionId, TransactionTimes>([
      [t1, { preCommittedUs: 5_000, committedUs: 6_000 }],
      [t2, { preCommittedUs: 10_000, committedUs: 12_000 }],
    ]);
    const f = runFlowMetrics(
      [copy(t1, 0, 0), copy(t1, 0, 1), copy(t2, 0, 1), copy(t2, -1, 7)], times, metrics, 20_000);
    expect(f.committedRecords).toBe(4);
    // 6000-1000, 6000-2000, 12000-9000: the duplicate's latency runs from its own read.
    expect(f.latencyMs).toEqual({ p50: 4, p99: 5, max: 5, mean: 4 });
    expect(f.throughputPerSec).toBe(4 / 0.011);
  });

  test('a copy without a read before its pre-commit is a harness failure, not a silent gap', () => {
    const metrics = new SimMetricGroups();
    metrics.forHost('tm').taskIO('v0#0@0').markRecordRead(0, 0, 8_000);
    const t = txn(0);
    const times = new Map([[t, { preCommittedUs: 5_000, committedUs: 6_000 }]]);
    expect(() => runFlowMetrics([copy(t, 0, 0)], times, metrics, 10_000)).toThrow(HarnessAssertionError);
    expect(() => runFlowMetrics([copy(t, 0, 0)], new Map(), metrics, 10_000)).toThrow('has no commit time');
  });
});

describe('RunResult.flow', () => {
  test('a slow sink back-pressures its upstream; without it no task waits for credit', () => {
    const plain = simulate(spec()).flow;
    expect(plain.committedRecords).toBe(300);
    expect(plain.backPressuredMs).toEqual({ total: 0, byTask: { 'v0#0': 0, 'v0#1': 0, 'v1#0': 0, 'v1#1': 0 } });
    const slow = simulate(spec({ faults: [SLOW_SINK] })).flow;
    const by = slow.backPressuredMs.byTask;
    expect(by['v0#0']).toBeGreaterThan(0);
    expect(by['v0#1']).toBeGreaterThan(0);
    // The slowed chain (stats and sink) has no output to wait for.
    expect([by['v1#0'], by['v1#1']]).toEqual([0, 0]);
    expect(slow.backPressuredMs.total).toBeCloseTo((by['v0#0'] ?? 0) + (by['v0#1'] ?? 0), 9);
    // Waiting makes the records later, and fewer per second.
    expect(slow.latencyMs?.mean).toBeGreaterThan(plain.latencyMs?.mean ?? Infinity);
    expect(slow.throughputPerSec).toBeLessThan(plain.throughputPerSec ?? 0);
  });

  test('a wait ends when its attempt is cancelled: a task never waits longer than the run lasts', () => {
    // The global failure cancels the back-pressured sources; their restarted attempts wait again.
    const r = simulate(spec({ faults: [SLOW_SINK, { type: 'global-failure', when: { atMs: 60 } }] }));
    expect(r.restores).toBe(1);
    const by = r.flow.backPressuredMs.byTask;
    for (const task of ['v0#0', 'v0#1']) {
      expect(by[task]).toBeGreaterThan(0);
      expect(by[task]).toBeLessThan(r.outcome.timeMs);
    }
  });

  test('a longer checkpoint interval makes records later: the sink makes them visible at commit', () => {
    const every20 = simulate(spec({ intervalMs: 20 })).flow.latencyMs;
    const every100 = simulate(spec({ intervalMs: 100 })).flow.latencyMs;
    expect(every20).not.toBeNull();
    expect(every100).not.toBeNull();
    expect(every100?.p50).toBeGreaterThan((every20?.p50 ?? 0) + 20);
    expect(every100?.mean).toBeGreaterThan((every20?.mean ?? 0) + 20);
    for (const l of [every20, every100]) {
      expect(l?.p50).toBeGreaterThan(0);
      expect(l?.p50).toBeLessThanOrEqual(l?.p99 ?? 0);
      expect(l?.p99).toBeLessThanOrEqual(l?.max ?? 0);
    }
  });

  test('throughput is committed records over the span from the first read to the last commit', () => {
    // Without checkpoints one sink subtask commits everything at once, at the end of input: the
    // first record read waits longest, so the span is the largest latency.
    const r = simulate(spec({ parallelism: 1, taskManagers: 1, checkpoint: { mode: 'none', intervalMs: 20 } }));
    const f = r.flow;
    expect(f.committedRecords).toBe(300);
    expect(f.throughputPerSec).toBeCloseTo(300 / ((f.latencyMs?.max ?? 0) / 1000), 6);
    // The one commit is the store's txn.commit event.
    const commits = r.trace.filter((e) => e.type === 'txn.commit');
    expect(commits).toHaveLength(1);
    const commitMs = (commits[0]?.timeUs ?? 0) / 1000;
    expect(commitMs - (f.latencyMs?.max ?? 0)).toBeGreaterThan(0);
  });

  test('counts every committed copy, duplicates after a restore included', () => {
    const r = simulate(spec({
      checkpoint: { mode: 'at-least-once', intervalMs: 20 },
      seed: 'dup-3',
      faults: [SLOW_SINK, { type: 'crash', host: 'taskmanager-1', when: { atMs: 200 }, downMs: 10 }],
    }));
    expect(r.restores).toBeGreaterThan(0);
    expect(r.committed.length).toBeGreaterThan(300); // the scenario's premise: a duplicate
    expect(r.flow.committedRecords).toBe(r.committed.length);
  });

  test('a run that commits nothing has no latency and no throughput', () => {
    const r = simulate(spec({
      taskManagers: 1,
      restartStrategy: { kind: 'none' },
      faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 5 } }],
    }));
    expect(r.jobStatus).toBe('FAILED');
    const f = r.flow;
    expect(f.committedRecords).toBe(0);
    expect(f.latencyMs).toBeNull();
    expect(f.throughputPerSec).toBeNull();
  });
});
