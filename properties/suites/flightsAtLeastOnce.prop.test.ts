/**
 * Flights in at-least-once mode: small selections (at most 500 records), parallelism up to 4,
 * swarm fault plans. Oracle 4 (every duplicate attributed to a restore) and 5, 6, 7 on every
 * run; the marks show that restores, crashes, declined checkpoints, returned splits and the
 * tracker's late completions really happened.
 */
import { test } from 'vitest';
import { runSpecArbitrary } from '../arbitraries/runSpecArbitrary.ts';
import { checkRuns } from './checkRuns.ts';

test('flights, at-least-once: every duplicate attributed under swarm faults', () => {
  checkRuns({
    arbitrary: runSpecArbitrary({ job: 'flights', mode: 'at-least-once', maxRecords: 500, maxParallelism: 4 }),
    expect: 'at-least-once',
    marks: ['restore-from-checkpoint', 'crash', 'checkpoint-declined', 'splits-returned', 'tracker-late-completion'],
    defaultRuns: 250,
  });
});
