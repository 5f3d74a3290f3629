/** pairedDifferences on hand-made runs: what is paired, what is left out and why, and the figures. */
import { describe, expect, test } from 'vitest';
import type { RunMode } from '../../sim/run/RunSpec.ts';
import type { CompareRun, RunMetrics } from './CompareReport.ts';
import { COMPARE_METRICS, type CompareMetric } from './compareMetrics.ts';
import { actedFaultsOf, differentFaultSeeds, pairedComparisons, pairedDifference } from './pairedDifferences.ts';

const NO_METRICS: RunMetrics = {
  recordsLost: 0, duplicates: 0, duplicatesByRestore: [], checkpointEndToEndMs: null, alignmentMs: null, syncMs: null, asyncMs: null,
  startDelayMs: null, checkpointedBytes: null, latencyP50Ms: null, latencyP99Ms: null, throughputPerSec: null, backPressuredMs: 0,
  recoveryMs: null,
};

function run(seedIndex: number, mode: RunMode, metrics: Partial<RunMetrics>, actedFaults: number[] = [0], firedActions: number[] = []): CompareRun {
  return {
    seedIndex, runSeed: `s${seedIndex}`, mode, traceHash: '0', expect: mode === 'aligned' ? 'exactly-once' : 'at-least-once',
    violations: [], unfiredFaults: [], unfiredFaultTexts: [], actedFaults, firedActions, metrics: { ...NO_METRICS, ...metrics },
  };
}

const metric = (key: CompareMetric['key']): CompareMetric => {
  const m = COMPARE_METRICS.find((x) => x.key === key);
  if (m === undefined) throw new Error(key);
  return m;
};

describe('pairedDifference', () => {
  // A bimodal spread: the per-mode medians (84.21 vs 70.612 by nearest rank) land on different
  // seeds, while every seed's own difference is small.
  const aligned = [66.693, 70.612, 84.21, 117.468, 118.189];
  const alo = [66.123, 70.112, 84.706, 117.0, 118.689];
  const runs = aligned.flatMap((v, i) => [run(i, 'aligned', { latencyP50Ms: v }), run(i, 'at-least-once', { latencyP50Ms: alo[i] as number })]);

  test('mode minus baseline per seed index, nearest-rank quartiles, rounded to the µs, with higher / lower / equal', () => {
    const d = pairedDifference(runs, 'at-least-once', 'aligned', metric('latencyP50Ms'));
    expect(d.differences).toEqual([-0.57, -0.5, 0.496, -0.468, 0.5]);
    expect(d).toMatchObject({
      count: 5, p25: -0.5, median: -0.468, p75: 0.496, higher: 2, lower: 3, equal: 0, seedIndexes: [0, 1, 2, 3, 4],
      leftOut: { differentFaults: [], noValue: [] },
    });
  });

  test('a seed index where different faults acted, or a run without a value, is left out and said', () => {
    const mixed = [
      ...runs.filter((r) => r.seedIndex !== 1 && r.seedIndex !== 3),
      run(1, 'aligned', { latencyP50Ms: 70 }, [0, 3]), run(1, 'at-least-once', { latencyP50Ms: 170 }, [0]),
      run(3, 'aligned', { latencyP50Ms: null }), run(3, 'at-least-once', { latencyP50Ms: 5 }),
      run(5, 'aligned', { latencyP50Ms: 7 }), run(5, 'at-least-once', { latencyP50Ms: 7 }),
    ];
    const d = pairedDifference(mixed, 'at-least-once', 'aligned', metric('latencyP50Ms'));
    expect(d.seedIndexes).toEqual([0, 2, 4, 5]);
    expect(d.leftOut).toEqual({ differentFaults: [1], noValue: [3] });
    expect(d).toMatchObject({ count: 4, higher: 2, lower: 1, equal: 1, median: 0 });
    expect(differentFaultSeeds(['aligned', 'at-least-once'], mixed)).toEqual([1]);
  });

  test('nothing paired: nulls and counts of 0', () => {
    const d = pairedDifference([run(0, 'aligned', {}), run(0, 'at-least-once', {})], 'at-least-once', 'aligned', metric('recoveryMs'));
    expect(d).toEqual({
      count: 0, p25: null, median: null, p75: null, higher: 0, lower: 0, equal: 0, seedIndexes: [], differences: [],
      leftOut: { differentFaults: [], noValue: [0] },
    });
  });
});

describe('pairedComparisons', () => {
  test('every cost metric of every mode after the first against the first; none with one mode', () => {
    const runs = (['aligned', 'at-least-once', 'none'] as const).flatMap((m, k) => [run(0, m, { checkpointedBytes: 100 + k })]);
    const paired = pairedComparisons(['aligned', 'at-least-once', 'none'], runs);
    expect(paired.map((p) => [p.mode, p.baseline])).toEqual([['at-least-once', 'aligned'], ['none', 'aligned']]);
    expect(Object.keys(paired[0]?.metrics ?? {})).toEqual(COMPARE_METRICS.filter((m) => m.kind === 'cost').map((m) => m.key));
    expect(paired.map((p) => p.metrics.checkpointedBytes.median)).toEqual([1, 2]);
    expect(pairedComparisons(['aligned'], runs)).toEqual([]);
  });

  test('differentFaultSeeds asks every mode, and a missing run counts as different', () => {
    const runs = [run(0, 'aligned', {}), run(0, 'at-least-once', {}), run(0, 'none', {}, [1]),
      run(1, 'aligned', {}), run(1, 'at-least-once', {}), run(1, 'none', {}), run(2, 'aligned', {})];
    expect(differentFaultSeeds(['aligned', 'at-least-once', 'none'], runs)).toEqual([0, 2]);
    expect(differentFaultSeeds(['aligned', 'at-least-once'], runs)).toEqual([2]);
  });

  test('a savepoint that fired in one mode only makes that seed index two experiments too', () => {
    const runs = [run(0, 'aligned', {}, [0], [0]), run(0, 'at-least-once', {}, [0], [0]),
      run(1, 'aligned', {}, [0], [0]), run(1, 'at-least-once', {}, [0], [])];
    expect(differentFaultSeeds(['aligned', 'at-least-once'], runs)).toEqual([1]);
  });
});

describe('actedFaultsOf', () => {
  test('the fault log\'s indexes, skipped ones left out, ascending and once each', () => {
    const faults = [
      { fault: 3, type: 'crash', action: 'crash', timeMs: 1 }, { fault: 1, type: 'pause', action: 'pause', timeMs: 2 },
      { fault: 3, type: 'crash', action: 'restart', timeMs: 3 }, { fault: 2, type: 'global-failure', action: 'skipped', timeMs: 4 },
    ] as const;
    expect(actedFaultsOf({ faults })).toEqual([1, 3]);
  });
});
