/**
 * defaultJudge's counts on real runs with doctored outputs: surplus and missing records are
 * counted apart (a run that loses one record and duplicates another has one of each, not none),
 * and a missing record is a violation in every mode, whatever the duplicates.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import { doctor, sampleRun } from '../oracles/testing/sampleRuns.ts';
import { defaultJudge } from './defaultJudge.ts';
import { expectationOf } from './explore.ts';

interface Identity { split: number; offset: number; tag: string }
const idOf = (c: RunResult['committed'][number]): string => {
  const r = c.record as Identity;
  return `${r.split}:${r.offset}:${r.tag}`;
};

/**
 * `r` with the first record committed exactly once removed (lost) and, when `duplicate`, a
 * second copy of another such record appended (committed again in the same transaction).
 */
function loseOneDuplicateOne(r: RunResult, duplicate: boolean): RunResult {
  const copies = new Map<string, number>();
  for (const c of r.committed) copies.set(idOf(c), (copies.get(idOf(c)) ?? 0) + 1);
  const once = r.committed.filter((c) => copies.get(idOf(c)) === 1);
  const [lost, again] = once;
  if (lost === undefined || again === undefined) throw new Error('the sample run has too few records');
  const committed = r.committed.filter((c) => c !== lost);
  return doctor(r, { committed: duplicate ? [...committed, again] : committed });
}

describe('defaultJudge', () => {
  test('a run that loses one record and duplicates another counts one of each', () => {
    const r = sampleRun('aligned', true);
    const doctored = loseOneDuplicateOne(r, true);
    // As many records as F's: a net count would say no duplicate and nothing missing.
    expect(doctored.committed.length).toBe(r.committed.length);
    const j = defaultJudge(doctored, 'exactly-once');
    expect({ duplicates: j.duplicates, missing: j.missing }).toEqual({ duplicates: 1, missing: 1 });
    expect(j.violations.map((v) => v.property)).toEqual(['end-to-end-exactly-once']);
    expect(j.violations[0]?.details).toMatchObject({ missingCount: 1, surplusCount: 1 });
  });

  test('real at-least-once duplicates are counted whole when a record is also lost', () => {
    const r = sampleRun('at-least-once', true);
    const before = defaultJudge(r, 'at-least-once');
    expect(before.violations).toEqual([]);
    expect(before.missing).toBe(0);
    expect(before.duplicates).toBeGreaterThan(0);
    const j = defaultJudge(loseOneDuplicateOne(r, false), 'at-least-once');
    expect({ duplicates: j.duplicates, missing: j.missing }).toEqual({ duplicates: before.duplicates, missing: 1 });
    expect(j.violations.map((v) => v.property)).toEqual(['at-least-once']);
    expect(j.violations[0]?.details).toMatchObject({ missingCount: 1 });
  });

  test.each<RunMode>(['aligned', 'at-least-once', 'none'])(
    'in mode %s a lost record is a violation even when a duplicate makes up the count',
    (mode) => {
      const r = sampleRun(mode, true);
      expect(defaultJudge(r, expectationOf(mode)).violations).toEqual([]);
      const j = defaultJudge(loseOneDuplicateOne(r, true), expectationOf(mode));
      expect(j.missing).toBe(1);
      expect(j.duplicates).toBeGreaterThanOrEqual(1);
      expect(j.violations.length).toBeGreaterThan(0);
      const missingCounts = j.violations.map((v) => (v.details as { missingCount?: number }).missingCount);
      expect(missingCounts).toContain(1);
    },
  );

  test('an unfinished job counts neither (its output is liveness\'s to judge)', () => {
    const r = doctor(loseOneDuplicateOne(sampleRun('aligned', true), true), { jobStatus: 'FAILED' });
    const j = defaultJudge(r, 'exactly-once');
    expect({ duplicates: j.duplicates, missing: j.missing }).toEqual({ duplicates: 0, missing: 0 });
  });

  test('nor does a finished job whose run an engine assertion ended during the drain phase', () => {
    // The job had FINISHED, then the assertion cut the drain short: its output is judged by
    // nothing but the assertion, and counting it would add a lost record to missingRecords.
    const finished = loseOneDuplicateOne(sampleRun('aligned', true), true);
    expect(defaultJudge(finished, 'exactly-once').missing).toBe(1);
    const r = doctor(finished, {
      outcome: { ...finished.outcome, reason: 'engine-assertion', message: 'engine assertion at engine/x.ts:1: drain' },
      engineAssertion: { message: 'drain', location: 'engine/x.ts:1', stack: [], timeMs: finished.outcome.timeMs },
    });
    const j = defaultJudge(r, 'exactly-once');
    expect({ duplicates: j.duplicates, missing: j.missing }).toEqual({ duplicates: 0, missing: 0 });
    expect(j.violations.map((v) => v.property)).toEqual(['engine-assertion']);
  });
});
