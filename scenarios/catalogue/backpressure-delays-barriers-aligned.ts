import { checkpoint, defineScenario, expect, slowTask } from '../index.ts';

export default defineScenario({
  name: 'backpressure-delays-barriers-aligned',
  protects: 'A sink chain slowed tenfold for 120 ms back-pressures the sources in aligned mode: the barriers queue behind the buffered records, so checkpoints 4 to 6 take two to four times as long, yet every checkpoint in the slow stretch still completes within its timeout, with no failover, and the output stays exactly once.',
  steps: [
    // flights-sink is chained with airport-stats (vertex v1): the whole chain, both subtasks,
    // works at a tenth of its rate, and v0's output buffers fill.
    { at: checkpoint(3).completed(), do: slowTask('flights-sink', 10, 120) },
  ],
  expect: [
    expect.markReached('slow-task'),
    expect.markReached('io.partition.backpressured'),
    expect.checkpointCompleted(4),
    expect.checkpointCompleted(5),
    expect.checkpointCompleted(6),
    // Slow, but within the 200 ms timeout: nothing expires.
    expect.markNotReached('checkpoint-expired'),
    expect.checkpointsCompleted({ atLeast: 20 }),
    expect.failovers({ exactly: 0 }),
    expect.jobStatus('FINISHED'),
  ],
});
