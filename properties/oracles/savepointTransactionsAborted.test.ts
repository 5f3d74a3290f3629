/**
 * A stop-with-savepoint whose job then failed is judged at its savepoint: the committed records
 * plus those the savepoint holds pre-committed. When an attempt restarted during the stop (a
 * failover restores an older checkpoint, or none, since Flink never restores a savepoint) aborted
 * the savepoint's transactions as lingering ones, what is missing may be in them: Flink's
 * StopWithSavepointStoppingException caveat. The output is then unjudged, with its reason, never a
 * pass; without such an abort the same shortfall stays a violation.
 */
import { describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from './judgeRun.ts';
import { abortedSavepointTransactions, stopOutcome } from './stopWithSavepoint.ts';

/**
 * Found by explore (generated, at-least-once, seed 51, shrunk): one chain, a stop without drain at
 * 6 ms; its synchronous savepoint 1 is fully acknowledged when its TaskManager crashes, and its
 * `_metadata` write, slowed ten times, outlasts the heartbeat timeout: the region restarts from
 * scratch as the savepoint completes, the new sink aborts the savepoint's transaction, and the
 * stop fails (StopWithSavepointStoppingException).
 */
const SPEC: RunSpec = {
  version: RUN_SPEC_VERSION, seed: 's2147483633',
  job: { kind: 'generated', spec: {
    records: [[0]], stages: [{ kind: 'flatMap', fn: 0, parallelism: 1, rebalance: false }],
    sourceParallelism: 1, sinkParallelism: 1, maxParallelism: 128,
  } },
  parallelism: 1, taskManagers: 1,
  checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 1, tolerableFailures: 0 },
  restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
  faults: [
    { type: 'crash', host: 'taskmanager-1', downMs: 1, when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'acknowledged' } } },
    { type: 'slow-store', factor: 10, checkpoint: 1 },
  ],
  actions: [{ type: 'stop-with-savepoint', drain: false, when: { atMs: 6 } }],
  healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  network: { recordsPerBuffer: 1 },
  costsMs: { 'gen-source': 50, 'gen-0-flatMap-duplicate': 2.5, 'gen-sink': 2.5 },
};

describe('a stop whose savepoint\'s transactions a restart aborted', () => {
  const result = simulate(SPEC);
  const stop = stopOutcome(result);

  test('the savepoint completed, the region restarted from scratch and its sink aborted the savepoint\'s transaction', () => {
    expect(stop?.kind).toBe('job-failed');
    if (stop?.savepoint === undefined) throw new Error('no savepoint');
    expect(result.trace.some((e) => e.type === 'checkpoint.restored' && e.attrs['checkpointId'] === -1)).toBe(true);
    expect(abortedSavepointTransactions(result, stop.savepoint)).toEqual(['gen-sink#0@0/e0']);
  });

  test('its output is unjudged, with the reason and the transaction, not a violation and not a pass', () => {
    const verdict = judgeRun(result);
    expect(verdict.violations).toEqual([]);
    expect(verdict.outputUnjudged.map((u) => [u.sink, u.reason])).toEqual([['gen-sink', 'savepoint-transactions-aborted']]);
    expect(verdict.outputUnjudged[0]?.detail).toContain('gen-sink#0@0/e0');
  });

  test('the same shortfall without the abort is a violation', () => {
    const notAborted = { ...result, trace: result.trace.filter((e) => e.type !== 'txn.abort') };
    const [v] = judgeRun(notAborted).violations;
    expect(v?.property).toBe('at-least-once');
    expect(v?.summary).toMatch(/^2 record\(s\) of F\(prefixes\(savepoint 1\)\) missing/);
  });
});
