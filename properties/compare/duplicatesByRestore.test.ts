/**
 * duplicatesByRestore on a real at-least-once run with duplicates (sampleRun), as it is and
 * doctored: every duplicate of a run the at-least-once oracle passes goes to a restore whose
 * checkpoint had not passed the record; without restores, or for a copy begun before every
 * restore, none is attributed.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { doctor, sampleRun } from '../oracles/testing/sampleRuns.ts';
import { splitPositions } from '../oracles/splitPositions.ts';
import { duplicatesByRestore } from './duplicatesByRestore.ts';

interface Identity { split: number; offset: number; tag: string }
const sum = (shares: ReturnType<typeof duplicatesByRestore>): number => shares.reduce((n, s) => n + s.duplicates, 0);

describe('duplicatesByRestore', () => {
  const run = sampleRun('at-least-once', true);
  const judged = defaultJudge(run, 'at-least-once');

  test('a run the at-least-once oracle passes has every duplicate attributed to a restore that can explain it', () => {
    expect(judged.violations).toEqual([]);
    expect(judged.duplicates).toBeGreaterThan(0);
    const shares = duplicatesByRestore(run, judged.duplicates);
    const restored = run.trace.filter((e) => e.type === 'checkpoint.restored');
    expect(shares.map((s) => [s.restoreTimeMs, s.checkpointId]))
      .toEqual(restored.map((e) => [e.timeUs / 1000, e.attrs['checkpointId']]));
    expect(sum(shares)).toBe(judged.duplicates);
    // Each share's checkpoint had not passed some duplicated record (p_s(c) <= o).
    const copies = new Map<string, number>();
    for (const c of run.committed) {
      const r = c.record as Identity;
      copies.set(`${r.split}:${r.offset}`, (copies.get(`${r.split}:${r.offset}`) ?? 0) + 1);
    }
    const duplicated = [...copies].filter(([, n]) => n > 1).map(([k]) => k.split(':').map(Number) as [number, number]);
    for (const s of shares.filter((x) => x.duplicates > 0)) {
      const cp = run.checkpoints.completed.find((c) => c.checkpointId === s.checkpointId);
      const positions = splitPositions(cp, run.graph).positions;
      expect(duplicated.some(([split, offset]) => (positions.get(split) ?? Infinity) <= offset)).toBe(true);
    }
  });

  test('no duplicate counted: every restore listed with 0', () => {
    const shares = duplicatesByRestore(run, 0);
    expect(shares.length).toBeGreaterThan(0);
    expect(sum(shares)).toBe(0);
  });

  test('without restores in the trace nothing is attributed (and nothing listed)', () => {
    const noRestores = doctor(run, { trace: run.trace.filter((e) => e.type !== 'checkpoint.restored') });
    expect(duplicatesByRestore(noRestores, judged.duplicates)).toEqual([]);
  });

  test('a copy committed in a transaction begun before every restore is attributed to none', () => {
    const firstRestoreUs = Math.min(...run.trace.filter((e) => e.type === 'checkpoint.restored').map((e) => e.timeUs));
    const began = new Map(run.trace.filter((e) => e.type === 'sink.transaction-begun')
      .map((e) => [`${String(e.attrs['subtask'])}/${String(e.attrs['attempt'])}/${String(e.attrs['epoch'])}`, e.timeUs]));
    const early = run.committed.find((c) => (began.get(`${c.txn.subtask}/${c.txn.attempt}/${c.txn.epoch}`) ?? Infinity) < firstRestoreUs);
    if (early === undefined) throw new Error('the sample run commits nothing before its first restore');
    const doctored: RunResult = doctor(run, { committed: [...run.committed, early] });
    const j = defaultJudge(doctored, 'at-least-once');
    expect(j.duplicates).toBe(judged.duplicates + 1);
    expect(sum(duplicatesByRestore(doctored, j.duplicates))).toBe(judged.duplicates);
  });
});
