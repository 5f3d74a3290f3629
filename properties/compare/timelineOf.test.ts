/**
 * timelineOf draws only the faults that acted (a `skipped` one never did), and
 * representativeSeedIndex picks a seed index where the same faults acted in every mode before
 * one where a fault acted in one mode only.
 */
import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { RunSpec } from '../../sim/run/RunSpec.ts';
import type { Timeline } from './CompareReport.ts';
import { representativeSeedIndex } from './compareModes.ts';
import { timelineOf } from './timelineOf.ts';

describe('timelineOf', () => {
  test('a fault logged as skipped (its point came after the heal time) is no mark', () => {
    const spec = {
      seed: 's',
      faults: [
        { type: 'crash', host: 'taskmanager-1', when: { atMs: 30 } },
        { type: 'crash', host: 'taskmanager-2', when: { at: { kind: 'sink', phase: 'committed', nth: 6 } } },
      ],
    } as unknown as RunSpec;
    const result = {
      outcome: { timeMs: 500 },
      checkpointStats: { checkpoints: [], restores: [] },
      faults: [
        { fault: 0, type: 'crash', action: 'crash', timeMs: 30 },
        { fault: 1, type: 'crash', action: 'skipped', timeMs: 200 },
        { fault: 0, type: 'crash', action: 'restart', timeMs: 120 },
      ],
    } as unknown as RunResult;
    const t = timelineOf(spec, result);
    expect(t.faults.map((f) => [f.index, f.timeMs])).toEqual([[0, 30], [0, 120]]);
    expect(t.faults[0]?.text).toMatch(/^crash: /);
  });
});

describe('representativeSeedIndex', () => {
  const timeline = (faults: number[], restores: number): Timeline => ({
    runSeed: 'x', endMs: 1,
    checkpoints: [],
    faults: faults.map((index) => ({ timeMs: 1, index, text: 'crash: …' })),
    restores: Array.from({ length: restores }, () => ({ timeMs: 2, checkpointId: 1 })),
  });
  const modes = ['aligned', 'at-least-once'] as const;
  const at = (a: Timeline, b: Timeline): Record<string, Timeline> => ({ aligned: a, 'at-least-once': b });

  test('the same faults acted in every mode come before a restore in every mode', () => {
    const bySeed = [
      at(timeline([], 0), timeline([], 0)),
      // Restores in both, but fault 2 acted in aligned mode only.
      at(timeline([0, 2], 1), timeline([0], 1)),
      // The same faults, no restore.
      at(timeline([1], 0), timeline([1], 0)),
      // The same faults (acting several times in one), restores in both: the one.
      at(timeline([0, 0, 1], 1), timeline([1, 0], 2)),
    ];
    expect(representativeSeedIndex(modes, bySeed, [1])).toBe(3);
    expect(representativeSeedIndex(modes, bySeed.slice(0, 3), [1])).toBe(2);
  });

  test('without a seed index of the same faults, a restore in every mode, then a fault in every mode, then 0', () => {
    expect(representativeSeedIndex(modes, [at(timeline([1], 0), timeline([2], 0)), at(timeline([0, 2], 1), timeline([0], 1))], [0, 1])).toBe(1);
    expect(representativeSeedIndex(modes, [at(timeline([], 0), timeline([2], 0)), at(timeline([1], 0), timeline([2], 0))], [0, 1])).toBe(1);
    expect(representativeSeedIndex(modes, [at(timeline([], 0), timeline([], 0))], [])).toBe(0);
    expect(representativeSeedIndex(modes, [], [])).toBe(0);
  });
});
