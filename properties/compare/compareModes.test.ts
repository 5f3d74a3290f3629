/**
 * compareModes on a few small flights runs: deterministic (the same options give the same JSON),
 * seed-major, the runs of one seed index the same spec but for the mode (checked by regenerating
 * each mode's run the way explore and replay do), each run judged against its own mode's promise,
 * the figures per mode made from its runs, and a timeline per mode of one seed index.
 */
import { describe, expect, test } from 'vitest';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { canonicalString } from '../canonicalString.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { regenerateSpec } from '../explore/replay.ts';
import type { CompareReport, MetricKey } from './CompareReport.ts';
import { COMPARE_METRICS } from './compareMetrics.ts';
import { compareModes, compareSpecs, modeFigures, specInMode } from './compareModes.ts';
import { distributionOf } from './distributionOf.ts';
import { actedFaultsOf, differentFaultSeeds, pairedComparisons } from './pairedDifferences.ts';

const MODES: readonly RunMode[] = ['aligned', 'at-least-once'];
const OPTIONS = {
  job: 'flights' as const, modes: MODES, seeds: 3, seed: 7, maxRecords: 120,
  simulate: (s: Parameters<typeof simulate>[0]) => simulate(s), judge: defaultJudge, version: '0.0.0-test',
};

describe('compareModes', () => {
  const progress: [number, number][] = [];
  const report: CompareReport = compareModes({ ...OPTIONS, progress: (done, total) => progress.push([done, total]) });

  test('the same options give the same report, byte for byte', () => {
    expect(JSON.stringify(compareModes(OPTIONS))).toBe(JSON.stringify(report));
  });

  test('one run per seed index and mode, seed-major, with progress over the real total', () => {
    expect(report).toMatchObject({
      format: 'checkpoint-sim-compare', formatVersion: 2, checkpointSimVersion: '0.0.0-test', job: 'flights', seed: 7,
      seeds: 3, modes: MODES,
    });
    expect(report.runs.map((r) => [r.seedIndex, r.mode])).toEqual([0, 1, 2].flatMap((i) => MODES.map((m) => [i, m])));
    expect(progress).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, 6]));
  });

  test('the runs of one seed index are one spec in each mode: regenerated as explore draws them, they differ only in the mode', () => {
    for (let i = 0; i < OPTIONS.seeds; i++) {
      // compare draws as explore's swarm strategy does.
      const regenerated = MODES.map((mode) => regenerateSpec({
        job: 'flights', mode, strategy: 'swarm', mutants: [], seed: OPTIONS.seed, path: String(i), maxRecords: OPTIONS.maxRecords,
      }).spec);
      const [aligned, atLeastOnce] = regenerated;
      if (aligned === undefined || atLeastOnce === undefined) throw new Error('unreachable');
      expect(aligned.checkpoint.mode).toBe('aligned');
      expect(atLeastOnce.checkpoint.mode).toBe('at-least-once');
      expect(canonicalString(specInMode(aligned, 'at-least-once'))).toBe(canonicalString(atLeastOnce));
      MODES.forEach((mode, k) => {
        const run = report.runs.find((r) => r.seedIndex === i && r.mode === mode);
        const spec = regenerated[k];
        if (run === undefined || spec === undefined) throw new Error('unreachable');
        expect(run.runSeed).toBe(spec.seed);
        expect(run.traceHash).toBe(simulate(spec).traceHash);
      });
    }
  });

  test('compareSpecs gives the neutral specs, the same whatever modes are compared', () => {
    const specs = compareSpecs(OPTIONS);
    expect(specs).toHaveLength(3);
    expect(canonicalString(compareSpecs({ ...OPTIONS, modes: ['at-least-once', 'none'] }))).toBe(canonicalString(specs));
    expect(specs.map((s) => s.seed)).toEqual(report.runs.filter((r) => r.mode === 'aligned').map((r) => r.runSeed));
  });

  test('each run is judged against its own mode\'s promise', () => {
    for (const r of report.runs) expect(r.expect).toBe(r.mode === 'aligned' ? 'exactly-once' : 'at-least-once');
  });

  test('the figures of a mode are its runs\' counts and the distribution of every metric', () => {
    for (const mode of MODES) {
      const runs = report.runs.filter((r) => r.mode === mode);
      const figures = report.byMode[mode];
      expect(figures).toEqual(modeFigures(runs));
      expect(figures?.runs).toBe(3);
      expect(figures?.unfiredFaults).toBe(runs.reduce((n, r) => n + r.unfiredFaults.length, 0));
      expect(Object.keys(figures?.distributions ?? {})).toEqual(COMPARE_METRICS.map((m) => m.key));
      for (const m of COMPARE_METRICS) {
        expect(figures?.distributions[m.key]).toEqual(distributionOf(runs.map((r) => r.metrics[m.key])));
      }
    }
  });

  test('every numeric metric of a run has a row in COMPARE_METRICS', () => {
    const run = report.runs[0];
    if (run === undefined) throw new Error('no run');
    const numeric = Object.keys(run.metrics).filter((k) => k !== 'duplicatesByRestore') as MetricKey[];
    expect(COMPARE_METRICS.map((m) => m.key).sort()).toEqual(numeric.sort());
  });

  test('each run lists the faults that acted in it (its fault log), and the report the seed indexes where they differ by mode', () => {
    for (let i = 0; i < OPTIONS.seeds; i++) {
      const spec = compareSpecs(OPTIONS)[i];
      if (spec === undefined) throw new Error('unreachable');
      for (const mode of MODES) {
        const run = report.runs.find((r) => r.seedIndex === i && r.mode === mode);
        expect(run?.actedFaults).toEqual(actedFaultsOf(simulate(specInMode(spec, mode))));
      }
    }
    expect(report.differentFaults).toEqual(differentFaultSeeds(MODES, report.runs));
    expect(report.differentFaults).toEqual([0, 1, 2].filter((i) => {
      const [a, b] = MODES.map((m) => JSON.stringify(report.runs.find((r) => r.seedIndex === i && r.mode === m)?.actedFaults));
      return a !== b;
    }));
  });

  test('the paired differences of the second mode against the first, from the runs', () => {
    expect(report.paired).toEqual(pairedComparisons(MODES, report.runs));
    expect(report.paired.map((p) => [p.mode, p.baseline])).toEqual([['at-least-once', 'aligned']]);
    const paired = report.paired[0]?.metrics.checkpointEndToEndMs;
    expect((paired?.count ?? 0) + (paired?.leftOut.differentFaults.length ?? 0) + (paired?.leftOut.noValue.length ?? 0)).toBe(OPTIONS.seeds);
  });

  test('unfired faults are named', () => {
    for (const r of report.runs) expect(r.unfiredFaultTexts).toHaveLength(r.unfiredFaults.length);
  });

  test('a timeline per mode, of one seed index, its checkpoints from trigger to end', () => {
    expect(Object.keys(report.timelines)).toEqual([...MODES]);
    const seeds = new Set(Object.values(report.timelines).map((t) => t.runSeed));
    expect(seeds.size).toBe(1);
    for (const t of Object.values(report.timelines)) {
      expect(t.checkpoints.length).toBeGreaterThan(0);
      for (const c of t.checkpoints) {
        if (c.endMs !== null) expect(c.endMs).toBeGreaterThanOrEqual(c.triggerMs);
        expect(c.status === 'IN_PROGRESS').toBe(c.endMs === null);
      }
      for (const f of t.faults) expect(f.text).toMatch(/^[a-z-]+: /);
    }
  });

  test('bad options are refused', () => {
    expect(() => compareModes({ ...OPTIONS, seeds: 0 })).toThrow(RangeError);
    expect(() => compareModes({ ...OPTIONS, seeds: 1.5 })).toThrow(/positive integer/);
    expect(() => compareModes({ ...OPTIONS, modes: [] })).toThrow(RangeError);
    expect(() => compareModes({ ...OPTIONS, modes: ['aligned', 'aligned'] })).toThrow(/distinct/);
  });
});
