/**
 * Planted classic mistake `sink-commits-in-snapshot` end to end: the built-in two-phase-commit
 * sink commits the transaction it pre-commits in snapshotState, before the checkpoint completed.
 * A failover between that snapshot and the checkpoint's completion restores an earlier state and
 * replays records whose output is committed already: duplicates. Restored from a checkpoint, the
 * recovering sink's abort of the transaction that was open at that checkpoint, which the mistake
 * has committed since, leaves it committed (as Kafka's recoverAndAbort does), so the restore goes
 * on and the replay shows its duplicates.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

const BUG = 'sink-commits-in-snapshot';

/** A global failover right after the sink task `v1#0` took its snapshot of `checkpoint`. */
function spec(mutations: string[], checkpoint: number): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'cis',
    job: { kind: 'flights', selection: { from: 0, to: 200 }, splits: 4 },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'global-failure', when: { at: { kind: 'task', checkpoint, phase: 'sync-done', task: 'v1#0' } } }],
    healTimeMs: 500, budgets: { maxEvents: 2_000_000, maxTimeMs: 3_000 }, overrides: [], mutations,
  } as RunSpec;
}

/** The sink's commits made at a snapshot (`notified` -1) rather than on a notification. */
const commitsAtSnapshot = (r: RunResult): number => r.trace.filter((e) => e.type === 'sink.committed' && e.attrs['notified'] === -1).length;

describe(`planted classic mistake ${BUG}`, () => {
  test('correct: a failover after the sink\'s snapshot, before or after a completed checkpoint, keeps the output exactly once', () => {
    for (const checkpoint of [1, 2]) {
      const r = simulate(spec([], checkpoint));
      expect(commitsAtSnapshot(r)).toBe(0);
      expect(judgeRun(r).violations).toEqual([]);
    }
  });

  test('planted, failover before any checkpoint completed: the replay commits its output again (end-to-end, surplus)', () => {
    const r = simulate(spec([BUG], 1));
    expect(commitsAtSnapshot(r)).toBeGreaterThan(0);
    const [v] = judgeRun(r).violations;
    expect(v?.property).toBe('end-to-end-exactly-once');
    expect(v?.summary).toMatch(/surplus records/);
  });

  test('planted, failover back to checkpoint 1: the recovering sink finds the open transaction committed and leaves it so (as '
    + 'Kafka\'s recoverAndAbort), and the replay commits its records again (end-to-end, surplus)', () => {
    const r = simulate(spec([BUG], 2));
    expect(r.trace.some((e) => e.type === 'task.failed' && /abort of committed transaction/.test(String(e.attrs['error'])))).toBe(false);
    expect(r.trace.filter((e) => e.type === 'sink.abort-of-committed').length).toBeGreaterThan(0);
    const [v] = judgeRun(r).violations;
    expect(v?.property).toBe('end-to-end-exactly-once');
    expect(v?.summary).toMatch(/surplus record/);
  });
});
