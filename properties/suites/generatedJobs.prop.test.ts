/**
 * Generated jobs (at most 200 records, parallelism up to 2, at most two keyed stages) under swarm
 * fault plans, in aligned mode (exactly-once: oracles 1, 3, 5, 6, 7) and at-least-once mode
 * (oracle 4 and 5, 6, 7).
 */
import { test } from 'vitest';
import { runSpecArbitrary } from '../arbitraries/runSpecArbitrary.ts';
import { checkRuns } from './checkRuns.ts';

test('generated jobs, aligned: exactly-once under swarm faults', () => {
  checkRuns({
    arbitrary: runSpecArbitrary({ job: 'generated', mode: 'aligned', maxRecords: 200, maxParallelism: 2 }),
    expect: 'exactly-once',
    marks: ['restore-from-checkpoint', 'crash', 'checkpoint-declined', 'checkpoint-expired'],
    defaultRuns: 300,
  });
});

test('generated jobs, at-least-once: every duplicate attributed under swarm faults', () => {
  checkRuns({
    arbitrary: runSpecArbitrary({ job: 'generated', mode: 'at-least-once', maxRecords: 200, maxParallelism: 2 }),
    expect: 'at-least-once',
    marks: ['restore-from-checkpoint', 'crash', 'checkpoint-declined', 'checkpoint-expired'],
    defaultRuns: 300,
  });
});
