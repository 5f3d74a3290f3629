/**
 * compareSpecs' guard: if the RunSpec arbitrary ever draws something from the mode, compare
 * refuses to call its runs mode-neutral (a HarnessError) instead of comparing different specs.
 * The arbitrary is replaced by one whose checkpoint interval depends on the mode.
 */
import { describe, expect, test, vi } from 'vitest';
import { HarnessError } from '../explore/explore.ts';
import type * as Arbitraries from '../arbitraries/runSpecArbitrary.ts';

vi.mock('../arbitraries/runSpecArbitrary.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Arbitraries>();
  return {
    ...real,
    runSpecArbitrary: (o: Parameters<typeof real.runSpecArbitrary>[0]) => real.runSpecArbitrary(o).map((spec) => (
      o.mode === 'at-least-once' ? { ...spec, checkpoint: { ...spec.checkpoint, intervalMs: spec.checkpoint.intervalMs + 1 } } : spec)),
  };
});

const { compareSpecs } = await import('./compareModes.ts');

describe('compareSpecs with a mode-dependent arbitrary', () => {
  const o = { job: 'flights' as const, seeds: 2, seed: 1, maxRecords: 60 };
  test('a spec that differs in more than the mode is a harness failure', () => {
    expect(() => compareSpecs({ ...o, modes: ['aligned', 'at-least-once'] })).toThrow(HarnessError);
    expect(() => compareSpecs({ ...o, modes: ['aligned', 'at-least-once'] })).toThrow(/seed index 0 drawn in mode at-least-once/);
  });
  test('modes the arbitrary draws alike pass', () => {
    expect(compareSpecs({ ...o, modes: ['aligned', 'none'] })).toHaveLength(2);
  });
});
