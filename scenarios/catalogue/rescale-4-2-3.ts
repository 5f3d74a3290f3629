import { checkpoint, defineScenario, expect, rescale } from '../index.ts';

export default defineScenario({
  name: 'rescale-4-2-3',
  protects: 'Rescale down then up: the flights job runs at parallelism 4, is stopped with a savepoint after checkpoint 2 and restored at 2 (each new subtask gets two old key-group ranges, the readers\' splits round robin, the sinks\' pending transactions committed once), then stopped again after that run\'s checkpoint 5 and restored at 3 (key-group ranges cut anew); the three job runs together commit every flight exactly once and every checkpoint of every run is a consistent cut.',
  source: 'mirrors Flink\'s RescalingITCase (savepoint, stop, restore at a new parallelism) and StateAssignmentOperation (reference 4.2, 4.3)',
  config: { parallelism: 4, slotsPerTaskManager: 2 },
  steps: [
    { at: checkpoint(2).completed(), do: rescale(2) },
    { at: checkpoint(5, { jobRun: 2 }).completed(), do: rescale(3) },
  ],
  expect: [
    expect.jobRun(1, { parallelism: 4, status: 'FINISHED' }),
    expect.jobRun(2, { parallelism: 2, restoredFrom: 'savepoint', claimMode: 'NO_CLAIM', status: 'FINISHED' }),
    expect.jobRun(3, { parallelism: 3, restoredFrom: 'savepoint', status: 'FINISHED' }),
    expect.checkpointCompleted(2),
    // Run 2's ids go on after savepoint 3: its checkpoint 5 triggered the second rescale.
    expect.checkpointCompleted(5, { jobRun: 2 }),
    expect.markReached('rescale-down'),
    expect.markReached('rescale-up'),
    expect.markReached('restored-from-savepoint'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
