/**
 * Wordcount in aligned (exactly-once) mode, parallelism up to 4, under swarm fault plans:
 * oracles 1, 3, 5, 6, 7 on every run.
 */
import { test } from 'vitest';
import { runSpecArbitrary } from '../arbitraries/runSpecArbitrary.ts';
import { checkRuns } from './checkRuns.ts';

test('wordcount, aligned: exactly-once under swarm faults', () => {
  checkRuns({
    arbitrary: runSpecArbitrary({ job: 'wordcount', mode: 'aligned', maxParallelism: 4 }),
    expect: 'exactly-once',
    marks: ['restore-from-checkpoint', 'crash', 'checkpoint-declined', 'barrier-during-alignment'],
    defaultRuns: 150,
  });
});
