/**
 * Expectations of histories of several job runs: `expect.jobRun`, `expect.fullCheckpoint`, and a
 * checkpoint expectation's `jobRun` (ids go on after a restore, so checkpoint 5 of the rescale
 * scenario exists only in run 2).
 */
import { describe, expect as vexpect, test } from 'vitest';
import rescale423 from './catalogue/rescale-4-2-3.ts';
import { compileScenario } from './compileScenario.ts';
import { expect } from './expect.ts';
import { judgeExpectation } from './judgeExpectation.ts';
import { simulate } from '../sim/run/simulate.ts';

describe('job-run expectations on rescale-4-2-3', () => {
  const result = simulate(compileScenario(rescale423).spec);
  const holds = (e: Parameters<typeof judgeExpectation>[0]): boolean => judgeExpectation(e, result).ok;

  test('a checkpoint of a later run is found with its jobRun, and not in run 1', () => {
    vexpect(holds(expect.checkpointCompleted(5, { jobRun: 2 }))).toBe(true);
    vexpect(holds(expect.checkpointCompleted(5))).toBe(false);
    vexpect(judgeExpectation(expect.checkpointCompleted(5), result).actual).toMatch(/^checkpoint 5 was never triggered/);
  });

  test('jobRun holds for each run as it was and fails, listing every run, for one that was not', () => {
    vexpect(holds(expect.jobRun(2, { parallelism: 2, restoredFrom: 'savepoint', claimMode: 'NO_CLAIM', status: 'FINISHED' }))).toBe(true);
    const wrong = judgeExpectation(expect.jobRun(2, { parallelism: 3 }), result);
    vexpect(wrong.ok).toBe(false);
    vexpect(wrong.actual).toMatch(/^the history had 3 job run\(s\): run 1 at parallelism 4, FINISHED; run 2 at parallelism 2 from savepoint/);
    vexpect(holds(expect.jobRun(4))).toBe(false);
  });

  test('fullCheckpoint: the first checkpoint of a NO_CLAIM run is FULL, none of run 1 is', () => {
    const first = result.trace.find((e) => e.type === 'checkpoint.triggered' && e.attrs['jobRun'] === 2);
    vexpect(holds(expect.fullCheckpoint(Number(first?.attrs['checkpointId']), { jobRun: 2 }))).toBe(true);
    vexpect(holds(expect.fullCheckpoint(1))).toBe(false);
  });
});
