import { expect, test } from 'vitest';
import { RUN_SPEC_VERSION, type RunSpec } from './RunSpec.ts';
import { simulate } from './simulate.ts';

const spec: RunSpec = {
  version: RUN_SPEC_VERSION, seed: 'pct-run', job: { kind: 'flights', selection: { from: 0, to: 120 } }, parallelism: 2,
  checkpoint: { mode: 'aligned', intervalMs: 20 }, faults: [], healTimeMs: 0,
  budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
};

test('a RunSpec with a PCT schedule runs it: another schedule than the seeded draws, the same twice', () => {
  const seeded = simulate(spec);
  expect(seeded.schedule.pct).toBeUndefined();
  expect(seeded.schedule.orderDecisions).toBeGreaterThan(20);
  expect(seeded.schedule.decisions).toBeGreaterThan(seeded.schedule.orderDecisions);
  const withPct: RunSpec = { ...spec, pct: { changePoints: [5, 1_000_000] } };
  const a = simulate(withPct);
  const b = simulate(withPct);
  expect(b.traceHash).toBe(a.traceHash);
  expect(a.traceHash).not.toBe(seeded.traceHash);
  const pct = a.schedule.pct;
  expect(pct?.changePoints).toEqual([5, 1_000_000]);
  // The run makes far fewer order decisions than a million: that change point is never reached.
  expect(pct?.unusedChangePoints).toEqual([1_000_000]);
  expect(pct?.differed).toBeGreaterThan(0);
  expect(pct?.lanes).toBeGreaterThan(2);
  expect(a.jobStatus).toBe('FINISHED');
  // The schedule changes only orders: the job's output is the same.
  expect(a.committed.length).toBe(seeded.committed.length);
});
