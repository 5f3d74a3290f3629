/**
 * Which stop the oracles judge a run at: a stop-with-savepoint that completed ended the job
 * (FINISHED), so a later stop (here a rescale's, via stop-with-savepoint) fires at a job that no
 * longer runs and is refused; the run is still judged against the input cut at the completed
 * stop's savepoint. (Before, the last stop that fired was taken: the refused one, and the whole
 * input was expected, a false "missing records" on a correct engine. Found on the ledger example.)
 */
import { describe, expect, test } from 'vitest';
import { simulate } from '../../sim/run/simulate.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { judgeRun } from './judgeRun.ts';
import { stopOutcome } from './stopWithSavepoint.ts';

const spec: RunSpec = {
  version: RUN_SPEC_VERSION,
  seed: 'stop-then-rescale',
  job: { kind: 'flights', selection: { from: 0, to: 60 }, splits: 3 },
  parallelism: 1,
  costsMs: { 'flights-source': 5, 'airport-stats': 0.25, 'flights-sink': 0.25 },
  network: { recordsPerBuffer: 1 },
  checkpoint: { mode: 'aligned', intervalMs: 100 },
  faults: [],
  actions: [
    { type: 'stop-with-savepoint', drain: false, when: { atMs: 57 } },
    { type: 'rescale', parallelism: 1, when: { atMs: 90 } },
  ],
  healTimeMs: 600,
  budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 },
  overrides: [],
  mutations: [],
};

describe('stopOutcome', () => {
  test('a stop that completed is the run\'s last word: a later stop refused at the finished job does not replace it', () => {
    const result = simulate(spec);
    expect(result.jobStatus).toBe('FINISHED');
    // Both fired: the stop completed, the rescale's stop was refused (the job had finished).
    expect(result.actions.filter((a) => a.event === 'fired').map((a) => a.action)).toEqual([0, 1]);
    expect(result.actions.find((a) => a.action === 0 && a.event === 'completed')).toBeDefined();
    expect(result.actions.find((a) => a.action === 1 && a.event === 'failed')?.reason).toBe('CHECKPOINT_COORDINATOR_SHUTDOWN');
    const outcome = stopOutcome(result);
    expect(outcome).toMatchObject({ kind: 'finished', action: 0 });
    const verdict = judgeRun(result);
    expect(verdict.violations.map((v) => `${v.property}: ${v.summary}`)).toEqual([]);
    expect(verdict.ok).toBe(true);
  });
});
