/**
 * The drain phase after the job ends waits for object-store operations in flight, so a slow
 * write whose task already discarded its checkpoint is deleted by that task's cleanup before the
 * storage invariants (oracle 6) look. Found by explore (wordcount, at-least-once, seed 41): the
 * run stopped 50 ms after the job finished while a 10x slowed write of an aborted checkpoint
 * (two 10x faults) was still landing, and its file was reported as leaked. (Seed s42 and a 100 ms
 * interval give that schedule since the coordinators got their own thread; s11 did before.)
 */
import { expect, test } from 'vitest';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

test('a slow write of a discarded checkpoint is cleaned up before the run ends', () => {
  const spec: RunSpec = {
    version: 8, seed: 's42', job: { kind: 'wordcount' }, parallelism: 1, taskManagers: 1,
    network: { bufferTimeoutMs: 0 },
    checkpoint: { mode: 'at-least-once', intervalMs: 100, maxConcurrent: 2, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'slow-store', factor: 10 }, { type: 'slow-store', factor: 10 }],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  };
  const result = simulate(spec);
  expect(result.jobStatus).toBe('FINISHED');
  const discarded = result.trace.filter((e) => e.type === 'checkpoint.asyncDiscarded');
  expect(discarded.length).toBeGreaterThan(0);
  // The run went on past the usual 50 ms drain until the store settled.
  expect(result.outcome.timeMs).toBeGreaterThan((result.jobEndMs ?? 0) + 50);
  expect(result.objectStorePaths).toEqual([]);
  expect(judgeRun(result).violations.map((v) => v.summary)).toEqual([]);
});

/**
 * The drain phase lasts until every paused host resumed and a drain's length after that: a host
 * paused past the job's end has its tasks' cancellation queued (cancelTask, disconnectJobManager)
 * and runs it only once it resumes; the sink's close then aborts the open transaction. Found by
 * explore (generated, aligned, seed 53): a 143 ms pause of the sink's host from checkpoint 1's
 * trigger outlived a cancel's 50 ms drain by 0.273 ms, and the transaction the resumed host would
 * have aborted was reported as lingering.
 */
test('a host paused past the job end resumes and aborts its open transaction before the run ends', () => {
  const spec: RunSpec = {
    version: 8, seed: 's2', job: { kind: 'wordcount' }, parallelism: 1, taskManagers: 1,
    checkpoint: { mode: 'aligned', intervalMs: 50, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'pause', host: 'taskmanager-1', when: { atMs: 20 }, durationMs: 200 }],
    actions: [{ type: 'cancel', when: { atMs: 60 } }],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  };
  const result = simulate(spec);
  expect(result.jobStatus).toBe('CANCELED');
  const at = (type: string): number[] => result.trace.filter((e) => e.type === type).map((e) => e.timeUs / 1000);
  const [resumeMs] = at('host.resume');
  // The host resumed 220 ms in, long after the job's end (60 ms) and its usual drain (110 ms).
  expect(resumeMs).toBe(220);
  expect(result.jobEndMs).toBe(60);
  // It aborted its sink's open transaction then, and the run gave it a drain's length to do so.
  expect(result.trace.filter((e) => e.type === 'txn.abort').map((e) => [e.timeUs / 1000, e.attrs['txn']]))
    .toEqual([[220, 'wordcount-sink#0@0/e0']]);
  expect(result.outcome.timeMs).toBeGreaterThanOrEqual(220 + 50);
  expect(result.lingeringTransactions).toEqual([]);
  expect(judgeRun(result).violations.map((v) => v.summary)).toEqual([]);
});

test('a host that resumes just before the drain would end still gets a drain to cancel its tasks', () => {
  const spec: RunSpec = {
    version: 8, seed: 's2', job: { kind: 'wordcount' }, parallelism: 1, taskManagers: 1,
    checkpoint: { mode: 'aligned', intervalMs: 50, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'pause', host: 'taskmanager-1', when: { atMs: 20 }, durationMs: 89.9 }],
    actions: [{ type: 'cancel', when: { atMs: 60 } }],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
  };
  const result = simulate(spec);
  expect(result.trace.filter((e) => e.type === 'host.resume').map((e) => e.timeUs / 1000)).toEqual([109.9]);
  // The usual drain would have ended at 110 ms, 0.1 ms after the resume.
  expect(result.jobEndMs).toBe(60);
  expect(result.outcome.timeMs).toBeCloseTo(109.9 + 50, 6);
  expect(result.lingeringTransactions).toEqual([]);
});
