import { describe, expect, test } from 'vitest';
import { executionAttemptId, hostId, rpcAddress } from '../../api/ids.ts';
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../cluster/ClusterConfiguration.ts';
import type { JobVertex } from '../../jobgraph/JobGraph.ts';
import { createJobGraph } from '../../jobgraph/StreamingJobGraphGenerator.ts';
import { assignKeyToParallelOperator, computeKeyGroupRangeForOperatorIndex } from '../../state/KeyGroupRangeAssignment.ts';
import type { TaskDeploymentDescriptor } from '../../taskexecutor/TaskDeploymentDescriptor.ts';
import { TestingDataNetwork } from '../../testing/TestingDataNetwork.ts';
import { TestingMetricGroups } from '../../testing/TestingMetricGroups.ts';
import { collectSink, splitSource } from '../api/sources.ts';
import { StreamExecutionEnvironment } from '../api/StreamExecutionEnvironment.ts';
import type { KeyedProcessOperator } from '../operators/KeyedProcessOperator.ts';
import { TestingObjectStore } from '../../checkpoint/testing/TestingObjectStore.ts';
import type { JobManagerTaskRestore, OperatorSubtaskStateHandle } from '../../checkpoint/TaskStateSnapshot.ts';
import { createTestingEngineEnv } from '../../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../../testing/TestingScheduler.ts';
import { createOperators, readOperatorStates, setUpOutputs, type StreamTaskSetupContext } from './StreamTaskSetup.ts';

describe('readOperatorStates: a restored task reads every file its handles name', () => {
  function read(operators: OperatorSubtaskStateHandle[], files: string[]) {
    const scheduler = new TestingScheduler();
    const objectStore = new TestingObjectStore();
    for (const f of files) objectStore.files.set(f, { data: { whole: f }, sizeBytes: 1 });
    const env = createTestingEngineEnv({ host: hostId('taskmanager-1'), clock: scheduler, executors: scheduler, objectStore });
    const restore: JobManagerTaskRestore = {
      restoreCheckpointId: 3, taskStateSnapshot: { operators, isTaskDeployedAsFinished: false, isTaskFinished: false },
    };
    const f = readOperatorStates(env, restore, scheduler.get('mailbox'));
    scheduler.runAll();
    return f;
  }
  const h = (uid: string, path: string, data: unknown): OperatorSubtaskStateHandle => ({ operatorUid: uid, handle: { path, sizeBytes: 1 }, data });

  test('one handle per operator: the handle\'s part of its file', () => {
    const f = read([h('a', 'chk-3/a0', { part: 'a0' }), h('b', 'chk-3/b0', { part: 'b0' })], ['chk-3/a0', 'chk-3/b0']);
    expect([...f.getNow()]).toEqual([['a', { part: 'a0' }], ['b', { part: 'b0' }]]);
  });

  test('several handles of one operator (a rescale merged old subtasks): the list of their parts, in handle order', () => {
    const f = read([h('a', 'chk-3/a0', { part: 'a0' }), h('b', 'chk-3/b0', 'b'), h('a', 'chk-3/a1', { part: 'a1' })],
      ['chk-3/a0', 'chk-3/a1', 'chk-3/b0']);
    expect([...f.getNow()]).toEqual([['a', [{ part: 'a0' }, { part: 'a1' }]], ['b', 'b']]);
  });

  test('a missing file fails the read', () => {
    const f = read([h('a', 'chk-3/a0', {}), h('a', 'chk-3/a1', {})], ['chk-3/a0']);
    expect(() => f.getNow()).toThrow(/chk-3\/a1 not found/);
  });
});

describe('createOperators and setUpOutputs take the max parallelism from the deployment', () => {
  test('a keyed operator\'s key groups are the TDD\'s max parallelism (a restore may have adopted it), '
    + 'and a hash partition routes by the TDD\'s numTargetKeyGroups', () => {
    const job = new StreamExecutionEnvironment({ jobName: 'adopt', parallelism: 2 });
    job.fromSource(splitSource([{ id: 0, records: ['a'] }]), { name: 'src', uid: 'src' })
      .keyBy((w) => w as string)
      .process({ processElement: () => {} }, { name: 'count', uid: 'count' })
      .sinkTo(collectSink([]));
    const jobGraph = createJobGraph(job.getStreamGraph());
    const [src, keyed] = jobGraph.vertices as [JobVertex, JobVertex];
    expect([src.maxParallelism, keyed.maxParallelism]).toEqual([128, 128]);
    const scheduler = new TestingScheduler();
    const objectStore = new TestingObjectStore();
    const network = new TestingDataNetwork(scheduler.get('net')).view(hostId('taskmanager-1'));
    const env = createTestingEngineEnv({ host: hostId('taskmanager-1'), clock: scheduler, executors: scheduler, objectStore, network });
    const setup = (vertex: JobVertex, tdd: Partial<TaskDeploymentDescriptor>): StreamTaskSetupContext => ({
      env, config: DEFAULT_CLUSTER_CONFIGURATION, vertex, executor: scheduler.get('mailbox'),
      metrics: new TestingMetricGroups().taskIO(`${vertex.id}#0@0`),
      processingTime: { nowUs: () => scheduler.nowUs(), registerTimer: () => ({ cancel: () => {} }) },
      fail: (e) => { throw e; }, sendEventToCoordinator: () => {},
      tdd: {
        jobGraph, jobRun: 1, jobMasterAddress: rpcAddress('jobmaster'), checkpointStoragePrefix: '',
        vertexId: vertex.id, subtaskIndex: 0, attemptNumber: 0, attemptId: executionAttemptId(`${vertex.id}#0@0`),
        maxParallelism: 13, slotIndex: 0, allocationId: 'a', inputGates: [], producedPartitions: [], checkpointingEnabled: false,
        ...tdd,
      },
    });
    const [head] = createOperators(setup(keyed, {}));
    expect((head as KeyedProcessOperator).backend.maxParallelism).toBe(13);
    expect((head as KeyedProcessOperator).backend.keyGroupRange).toEqual(computeKeyGroupRangeForOperatorIndex(13, 2, 0));
    // The source's hash partition: a key goes to the channel of its key group among 13.
    const { writers } = setUpOutputs(setup(src, {
      producedPartitions: [{ edgeIndex: 0, partitionId: 'p', numSubpartitions: 2, numTargetKeyGroups: 13 }],
    }));
    const channels = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((w) => writers[0]?.selector.selectChannel({ value: w, split: 0, offset: 0, tag: '/1' }));
    expect(channels).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((w) => assignKeyToParallelOperator(w, 13, 2)));
  });
});
