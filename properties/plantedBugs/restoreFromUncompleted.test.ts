/**
 * Planted classic mistake `restore-from-uncompleted` end to end: a restore uses the newest
 * checkpoint even if it never completed. Flink restores only the latest checkpoint of the
 * CompletedCheckpointStore, which holds nothing before its `_metadata` is written (reference 1.9,
 * 5.1). Here a global failover comes right after the coordinator took the first task's
 * acknowledgement of checkpoint 2: the failover aborts checkpoint 2, and the mistake keeps it
 * (with its files) and restores it, so the tasks that had not acknowledged start with no state:
 * a source subtask without its splits, keyed state without its counts.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

const BUG = 'restore-from-uncompleted';

function spec(mutations: string[]): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'rfu',
    job: { kind: 'flights', selection: { from: 0, to: 200 }, splits: 4 },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'global-failure', when: { at: { kind: 'task', checkpoint: 2, phase: 'ack-received', task: 'v0#0' } } }],
    healTimeMs: 500, budgets: { maxEvents: 2_000_000, maxTimeMs: 3_000 }, overrides: [], mutations,
  } as RunSpec;
}

/** The checkpoint id of each restore. */
const restoredIds = (r: RunResult): unknown[] => r.trace.filter((e) => e.type === 'checkpoint.restored').map((e) => e.attrs['checkpointId']);

describe(`planted classic mistake ${BUG}`, () => {
  test('correct: the failover aborts checkpoint 2 and restores checkpoint 1, the latest completed; the run holds', () => {
    const r = simulate(spec([]));
    expect(r.checkpoints.completed.map((c) => c.checkpointId)).toContain(1);
    expect(restoredIds(r)).toEqual([1]);
    expect(judgeRun(r).violations).toEqual([]);
  });

  test('planted: checkpoint 2, aborted with one task\'s state, is restored; records are lost (end-to-end) and the next checkpoint is no consistent cut', () => {
    const r = simulate(spec([BUG]));
    expect(r.trace.find((e) => e.type === 'checkpoint.keptUncompleted')?.attrs).toEqual({ checkpointId: 2, acked: 1 });
    expect(restoredIds(r)).toEqual([2]);
    const violations = judgeRun(r).violations;
    expect(violations.map((v) => v.property)).toEqual(expect.arrayContaining(['consistent-cut', 'end-to-end-exactly-once']));
    expect(violations.find((v) => v.property === 'end-to-end-exactly-once')?.summary).toMatch(/\d+ missing records/);
  });

  test('planted: a later completion discards the kept checkpoint, so the end leaves no file behind', () => {
    const r = simulate(spec([BUG]));
    expect(r.objectStorePaths).toEqual([]);
    expect(r.trace.some((e) => e.type === 'checkpoint.discarded' && e.attrs['checkpointId'] === 2)).toBe(true);
  });
});
