import { checkpoint, defineScenario, expect, rescale } from '../index.ts';

const records = Array.from({ length: 6 }, (_s, split) =>
  Array.from({ length: 150 }, (_r, i) => ((split * 150 + i) * 7919) % 2001 - 1000));

export default defineScenario({
  name: 'rescale-union-and-list-state',
  protects: 'Operator state across a rescale 2 -> 3: the list state of the splits each subtask saw (SPLIT_DISTRIBUTE) is redistributed round robin, each element exactly once over the new subtasks; the union state of owned split ids goes whole to every new subtask, which keeps only the entries it owns (owner % 3), so the totals are those of the savepoint; the keyed stage\'s key groups are cut to the new ranges and the output is exactly once.',
  source: 'mirrors Flink RoundRobinOperatorStateRepartitionerTest (testRepartitionSplitDistributeStates, testRepartitionUnionState) and StateAssignmentOperation.reDistributePartitionableStates',
  job: {
    kind: 'generated',
    spec: {
      records,
      stages: [
        { kind: 'splitLog', parallelism: 2, rebalance: false },
        { kind: 'keyed', key: 0, fn: 0, parallelism: 2 },
        { kind: 'splitOwners', parallelism: 2 },
      ],
      sourceParallelism: 2,
      sinkParallelism: 2,
      maxParallelism: 128,
    },
  },
  config: { costsMs: { 'gen-source': 1 }, slotsPerTaskManager: 2 },
  steps: [
    { at: checkpoint(3).completed(), do: rescale(3) },
  ],
  expect: [
    expect.jobRun(2, { parallelism: 3, restoredFrom: 'savepoint', status: 'FINISHED' }),
    expect.markReached('rescale-up'),
    expect.markReached('list-state-redistributed'),
    expect.markReached('union-state-redistributed'),
    expect.jobStatus('FINISHED'),
  ],
  promise: 'exactly-once',
});
