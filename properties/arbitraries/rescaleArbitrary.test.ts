/**
 * rescaleActions: two drawn rescales are one user's two rescales in a row. The second fires in
 * the job run the first started, whatever its drawn trigger; so it never fires in the first run
 * while the first rescale's stop or cancel is under way (two rescales at once, where a cancel's
 * restore from the retained checkpoint lands behind the other's committed savepoint: duplicates
 * the schedule caused, found as a false violation on the ledger example).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { rescaleActions, rescaleArbitrary, type DrawnRescale } from './rescaleArbitrary.ts';

const at = (atMs: number): DrawnRescale['when'] => ({ atMs });
const point = (checkpoint: number): DrawnRescale['when'] => ({ at: { kind: 'jobmaster', checkpoint, phase: 'completed' } });
const drawn = (when: DrawnRescale['when'], via: DrawnRescale['via'] = 'stop-with-savepoint'): DrawnRescale =>
  ({ when, delta: 1, via, claimMode: 'NO_CLAIM' });

describe('rescaleActions', () => {
  test('the first rescale keeps its drawn trigger; the second fires in the run the first started', () => {
    const [first, second] = rescaleActions([drawn(point(3), 'cancel'), drawn(at(150))], 1, 4);
    expect(first).toMatchObject({ type: 'rescale', when: point(3), via: 'cancel', parallelism: 2 });
    expect(second).toMatchObject({ type: 'rescale', when: { at: { kind: 'job', status: 'RUNNING', jobRun: 2 } }, parallelism: 3 });
    const [, pointed] = rescaleActions([drawn(at(100)), drawn(point(2))], 1, 4);
    expect(pointed?.when).toEqual({ at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed', jobRun: 2 } });
  });

  test('over every draw, no rescale after the first can fire in the first run', () => {
    fc.assert(fc.property(rescaleArbitrary({ spanMs: 400, maxParallelism: 4 }), fc.integer({ min: 1, max: 4 }), (rescales, p) => {
      for (const [i, a] of rescaleActions(rescales, p, 4).entries()) {
        if (i === 0) continue;
        expect('at' in a.when && (a.when.at as { readonly jobRun?: number }).jobRun).toBe(i + 1);
      }
    }), { seed: 7, numRuns: 300 });
  });
});
