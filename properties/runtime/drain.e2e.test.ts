/**
 * The drain phase after the job ends waits for object-store operations in flight, so a slow
 * write whose task already discarded its checkpoint is deleted by that task's cleanup before the
 * storage invariants (oracle 6) look. Found by explore (wordcount, at-least-once, seed 41): the
 * run stopped 50 ms after the job finished while a 10x slowed write of an aborted checkpoint
 * (two 10x faults) was still landing, and its file was reported as leaked. (Seed s11 and a 100 ms
 * interval since the coordinator lock and mails between records changed the schedule of s2.)
 */
import { expect, test } from 'vitest';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

test('a slow write of a discarded checkpoint is cleaned up before the run ends', () => {
  const spec: RunSpec = {
    version: 7, seed: 's11', job: { kind: 'wordcount' }, parallelism: 1, taskManagers: 1,
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
