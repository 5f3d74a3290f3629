import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { checkpointArbitrary, MAX_BACK, resolveFromLast } from './fromLastCheckpoint.ts';
import { runSpecArbitrary } from './runSpecArbitrary.ts';
import { lastCheckpointEstimate } from './sourcePacing.ts';

const base: RunSpec = {
  version: RUN_SPEC_VERSION, seed: 's', job: { kind: 'flights', selection: { from: 0, to: 100 } }, parallelism: 2,
  checkpoint: { mode: 'aligned', intervalMs: 100 }, faults: [], healTimeMs: 600,
  budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
};

describe('resolveFromLast', () => {
  test('counts placeholders back from the last checkpoint, in filters and points of faults and actions, '
    + 'and moves the heal time past the last', () => {
    const spec: RunSpec = {
      ...base,
      faults: [
        { type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 0 },
        { type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: -2, phase: 'acked', task: 'v1#0' } } },
        { type: 'pause', host: 'taskmanager-1', durationMs: 5, when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'completed' } } },
        { type: 'global-failure', when: { atMs: 30 } },
      ],
      actions: [{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: -1, phase: 'completed' } } }],
    };
    let asked = 0;
    const r = resolveFromLast(spec, () => {
      asked++;
      return 12;
    });
    expect(asked).toBe(1);
    expect(r.faults).toEqual([
      { type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: 12 },
      { type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 10, phase: 'acked', task: 'v1#0' } } },
      spec.faults[2], spec.faults[3],
    ]);
    expect(r.actions).toEqual([{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 11, phase: 'completed' } } }]);
    expect(r.healTimeMs).toBe(1950);
    expect(() => validateRunSpec(r)).not.toThrow();
  });

  test('never below checkpoint 1 nor the heal time drawn; a spec without placeholders is left alone', () => {
    const spec: RunSpec = { ...base, faults: [{ type: 'message', action: 'lose', method: 'triggerCheckpoint', checkpoint: -2 }] };
    const r = resolveFromLast(spec, () => 1);
    expect(r.faults[0]).toMatchObject({ checkpoint: 1 });
    expect(r.healTimeMs).toBe(600);
    const plain: RunSpec = { ...base, faults: [{ type: 'message', action: 'lose', method: 'triggerCheckpoint', checkpoint: 2 }] };
    expect(resolveFromLast(plain, () => {
      throw new Error('not asked');
    })).toBe(plain);
  });

  test('checkpointArbitrary draws from the start or back from the last, and shrinks a placeholder toward the last', () => {
    const drawn = fc.sample(checkpointArbitrary(8, { fromStart: 1, fromLast: 1 }), { seed: 1, numRuns: 200 });
    expect(drawn.every((c) => (c >= 1 && c <= 8) || (c <= 0 && c >= -MAX_BACK))).toBe(true);
    expect(drawn.filter((c) => c <= 0).length).toBeGreaterThan(60);
    const out = fc.check(fc.property(checkpointArbitrary(8, { fromStart: 0, fromLast: 1 }), () => false), { seed: 2 });
    expect(out.counterexample?.[0]).toBe(0);
  });
});

describe('the last checkpoint estimate', () => {
  // The estimate is what a drawn placeholder counts back from: on fault-free runs the last
  // completed checkpoint should be the estimate or one or two below it.
  test('brackets the last completed checkpoint of fault-free generated and flights runs', () => {
    for (const job of ['generated', 'flights'] as const) {
      const specs = fc.sample(runSpecArbitrary({ job, mode: 'aligned', maxFaults: 0, maxRecords: 400, savepoints: false, rescales: false }),
        { seed: 21, numRuns: 12 });
      const within = specs.filter((spec) => {
        const completed = simulate(spec).checkpoints.completed.map((c) => c.checkpointId);
        const last = completed[completed.length - 1] ?? 0;
        const estimate = lastCheckpointEstimate(spec);
        return last <= estimate && last >= estimate - MAX_BACK;
      });
      expect(within.length, job).toBeGreaterThanOrEqual(10);
    }
  });

  test('drawn runs hold no placeholder, and one aimed at the end moves the heal time past it', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'flights', mode: 'aligned', maxRecords: 2000 }), { seed: 4, numRuns: 300 });
    for (const s of specs) expect(JSON.stringify([s.faults, s.actions ?? []])).not.toMatch(/"checkpoint":(0|-\d)/);
    const moved = specs.filter((s) => s.healTimeMs > 600);
    expect(moved.length).toBeGreaterThan(10);
    // Moved for a placeholder, or for a long channel hold (runSpecArbitrary's longHoldEndMs).
    const holdEnd = (s: RunSpec): number[] => s.faults.flatMap((f) => (f.type === 'channel-event'
      ? [((f.checkpoint ?? 1) + 1) * s.checkpoint.intervalMs + f.delayMs] : []));
    const byPlaceholder = moved.filter((s) => s.healTimeMs === 1.5 * (lastCheckpointEstimate(s) + 1) * s.checkpoint.intervalMs);
    expect(byPlaceholder.length).toBeGreaterThan(10);
    for (const s of moved) expect([...byPlaceholder, ...moved.filter((x) => holdEnd(x).includes(x.healTimeMs))]).toContain(s);
    // The notification of one of the last checkpoints, one of the new draws.
    expect(specs.some((s) => s.faults.some((f) => f.type === 'message' && f.method === 'confirmCheckpoint'
      && f.checkpoint !== undefined && f.checkpoint >= lastCheckpointEstimate(s) - MAX_BACK))).toBe(true);
  });
});
