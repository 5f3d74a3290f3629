import { checkpoint, crash, defineScenario, expect } from '../index.ts';

const records = Array.from({ length: 4 }, (_s, split) =>
  Array.from({ length: 200 }, (_r, i) => ((split * 200 + i) * 7919) % 2001 - 1000));

export default defineScenario({
  name: 'generated-two-keyed-stages-crash',
  protects: 'A TaskManager lost while a generated job with two keyed stages (keyBy, map, keyBy again over a hash edge) takes checkpoint 3, right after the first keyed stage\'s subtask 0 took its synchronous snapshot: checkpoint 3 is aborted, every keyed stage restores its key groups from checkpoint 2, and the output and both stages\' state are exactly once; the crashed source\'s state write that lands after chk-3 was deleted is the one leftover a crash may leave, as in Flink.',
  job: {
    kind: 'generated',
    spec: {
      records,
      stages: [
        { kind: 'keyed', key: 0, fn: 0, parallelism: 2 },
        { kind: 'map', fn: 0, parallelism: 2, rebalance: false },
        { kind: 'keyed', key: 1, fn: 1, parallelism: 2 },
      ],
      sourceParallelism: 2,
      sinkParallelism: 2,
      maxParallelism: 128,
    },
  },
  // 1 ms a record at the source: the job runs about 20 checkpoint intervals.
  config: { costsMs: { 'gen-source': 1 } },
  steps: [
    // v1 is the first keyed stage chained with the map; v2 the second keyed stage and the sink.
    { at: checkpoint(3).syncDoneOn('v1#0'), do: crash('taskmanager-1') },
  ],
  expect: [
    expect.markReached('crash'),
    expect.at(checkpoint(3).triggered(), expect.checkpointsCompleted({ exactly: 2 })),
    expect.checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND'),
    expect.restoredFrom(2, { nth: 1 }),
    expect.checkpointCompleted(4),
    expect.jobStatus('FINISHED'),
  ],
});
