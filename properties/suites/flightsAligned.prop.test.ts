/**
 * Flights in aligned (exactly-once) mode: small selections (at most 500 records), parallelism up
 * to 4, swarm fault plans. Oracles 1, 3, 5, 6, 7 on every run; the marks show that restores,
 * crashes, declined checkpoints and returned splits really happened.
 */
import { test } from 'vitest';
import { runSpecArbitrary } from '../arbitraries/runSpecArbitrary.ts';
import { checkRuns } from './checkRuns.ts';

test('flights, aligned: exactly-once under swarm faults', () => {
  checkRuns({
    arbitrary: runSpecArbitrary({ job: 'flights', mode: 'aligned', maxRecords: 500, maxParallelism: 4 }),
    expect: 'exactly-once',
    marks: ['restore-from-checkpoint', 'crash', 'checkpoint-declined', 'splits-returned',
      'barrier-during-alignment'],
    defaultRuns: 250,
  });
});
