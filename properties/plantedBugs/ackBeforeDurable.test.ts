/**
 * Planted classic mistake `ack-before-durable` end to end: the task acknowledges a checkpoint as
 * its asynchronous part starts, with the handles of state files not written yet, and only traces
 * a write that then fails. Flink's AsyncCheckpointRunnable acknowledges once every snapshot
 * future (the upload included) completed, and declines on a failure. With every state write of
 * checkpoint 2 failing, the correct engine never completes checkpoint 2; the mistake completes
 * it, naming six files that do not exist, and a restore from it can never read them.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

const BUG = 'ack-before-durable';

function spec(mutations: string[], restoreFrom2 = false): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'ack',
    job: { kind: 'flights', selection: { from: 0, to: 200 }, splits: 4 },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [
      { type: 'async-snapshot-failure', probability: 1, checkpoint: 2 },
      ...(restoreFrom2 ? [{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }] : []),
    ],
    healTimeMs: 500, budgets: { maxEvents: 2_000_000, maxTimeMs: 3_000 }, overrides: [], mutations,
  } as RunSpec;
}

/** Per failed state write of checkpoint 2, whether its task had acknowledged checkpoint 2 before. */
function ackedBeforeFailing(r: RunResult): boolean[] {
  return r.trace.filter((e) => e.type === 'checkpoint.asyncFailed' && e.attrs['checkpointId'] === 2).map((failed) => {
    const ack = r.trace.find((e) => e.type === 'checkpoint.acked' && e.attrs['checkpointId'] === 2 && e.attrs['task'] === failed.attrs['task']);
    return ack !== undefined && ack.seq < failed.seq;
  });
}

const completedIds = (r: RunResult): number[] => r.checkpoints.completed.map((c) => c.checkpointId);

describe(`planted classic mistake ${BUG}`, () => {
  test('correct: the failed writes are declined, checkpoint 2 never completes, and the run holds', () => {
    for (const restore of [false, true]) {
      const r = simulate(spec([], restore));
      expect(completedIds(r)).not.toContain(2);
      expect(judgeRun(r).violations).toEqual([]);
    }
  });

  test('planted: every task acknowledges before its state writes fail, and checkpoint 2 completes although none was written', () => {
    const r = simulate(spec([BUG]));
    // One failure per task (its first failed write), four tasks.
    expect(ackedBeforeFailing(r)).toEqual([true, true, true, true]);
    expect(completedIds(r)).toContain(2);
    expect(r.trace.some((e) => e.type === 'checkpoint.declinedByTask' || (e.type === 'rpc.send' && e.attrs['method'] === 'declineCheckpoint'))).toBe(false);
  });

  test('planted, restored from checkpoint 2: its files are missing (storage-invariants), and every restore fails (liveness)', () => {
    const r = simulate(spec([BUG], true));
    const violations = judgeRun(r).violations;
    expect(violations[0]?.property).toBe('storage-invariants');
    expect(violations[0]?.summary).toBe('retained checkpoint 2 is not restorable: 6 file(s) missing');
    expect(violations.map((v) => v.property)).toContain('liveness');
    expect(r.jobStatus).toBe('RESTARTING');
  });
});
