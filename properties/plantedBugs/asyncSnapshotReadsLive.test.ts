/**
 * Planted bug `async-snapshot-reads-live` (mutants.md 23: FLINK-9269, FLINK-9263, FLINK-8699)
 * end to end: the snapshot's synchronous part keeps references to the live state, and the async
 * part writes the state as it is when its write ends. In aligned mode a task's channels resume
 * as soon as its synchronous part returns, so the records it processes while the state files are
 * written reach the checkpoint: the checkpoint is no consistent cut (its keyed state counts
 * records that its source positions have not read yet), and a restore from it replays them into
 * state that already holds them.
 */
import { describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { judgeRun } from '../oracles/judgeRun.ts';

const BUG = 'async-snapshot-reads-live';

function spec(mutations: string[], withRestore = false): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'a8',
    job: { kind: 'flights', selection: { from: 0, to: 200 }, splits: 4 },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    // A global failover right after checkpoint 2 completed restores the job from it.
    faults: withRestore ? [{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }] : [],
    healTimeMs: withRestore ? 500 : 0,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 30_000 }, overrides: [], mutations,
  } as RunSpec;
}

describe(`planted bug ${BUG}`, () => {
  test('correct: with and without a restore, every checkpoint is a consistent cut and the output exactly once', () => {
    for (const withRestore of [false, true]) expect(judgeRun(simulate(spec([], withRestore))).violations).toEqual([]);
  });

  test('planted, no faults at all: a checkpoint holds keyed state of records after its barrier (consistent-cut)', () => {
    const [v] = judgeRun(simulate(spec([BUG]))).violations;
    expect(v?.property).toBe('consistent-cut');
    expect(v?.summary).toMatch(/^checkpoint 2 is not a consistent cut: \d+ key\(s\) differ from F\(prefixes\(c\)\)$/);
  });

  test('planted, restored from that checkpoint: the replayed records are counted twice (end-to-end, judged without the cut)', () => {
    const r = simulate(spec([BUG], true));
    expect(r.restores).toBe(1);
    const [v] = judgeRun(r, { skip: ['consistent-cut'] }).violations;
    expect(v?.property).toBe('end-to-end-exactly-once');
    expect(v?.summary).toMatch(/state diffs/);
  });
});
