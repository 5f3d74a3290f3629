import { FIRST_JOB_RUN } from './JobRun.ts';
import { describe, expect, test } from 'vitest';
import { hostId, rpcAddress, type ExecutionAttemptId } from '../api/ids.ts';
import { DEFAULT_CLUSTER_CONFIGURATION } from '../cluster/ClusterConfiguration.ts';
import type { JobGraph, JobVertex } from '../jobgraph/JobGraph.ts';
import type { TaskExecutorGateway } from '../rpc/TaskExecutorGateway.ts';
import type { TaskDeploymentDescriptor } from '../taskexecutor/TaskDeploymentDescriptor.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import { DefaultScheduler } from './DefaultScheduler.ts';
import { ExecutionGraph } from './ExecutionGraph.ts';
import { SlotPool } from './SlotPool.ts';

const vertex = (id: string, isSource: boolean): JobVertex => ({
  id, name: id, parallelism: 2, maxParallelism: 128, maxParallelismConfigured: false, operators: [], isSource,
});

/** A source and a sink at parallelism 2, all-to-all: one pipelined region. */
const JOB: JobGraph = {
  jobName: 'j',
  vertices: [vertex('v0', true), vertex('v1', false)],
  edges: [{ index: 0, source: 'v0', target: 'v1', partitioner: 'rebalance' }],
};

/**
 * The scheduler over fake TaskExecutors that accept every deployment and record deployments (as
 * `<attempt> -> <TaskExecutor>`) and cancellations; `notified` records what the coordinators
 * hear, as `failed <attempt> <cause>`. With `taskExecutors` 1 both slots are on te-1; with 2, the
 * slot of subtask 0 is on te-1 and that of subtask 1 on te-2.
 */
function harness(taskExecutors: 1 | 2 = 1, beforeScheduling: (graph: ExecutionGraph) => void = () => {}) {
  const scheduler = new TestingScheduler();
  const env = createTestingEngineEnv({ host: hostId('jobmanager'), clock: scheduler, executors: scheduler });
  const graph = new ExecutionGraph(JOB);
  beforeScheduling(graph);
  const slotPool = new SlotPool();
  const notified: string[] = [];
  const cancelled: ExecutionAttemptId[] = [];
  const deployed: string[] = [];
  const tdds: TaskDeploymentDescriptor[] = [];
  const gateway = (te: string) => ({
    submitTask: (tdd: TaskDeploymentDescriptor) => {
      deployed.push(`${tdd.attemptId} -> ${te}`);
      tdds.push(tdd);
      return CompletableFuture.completed<void>(undefined);
    },
    cancelTask: (attemptId: ExecutionAttemptId) => { cancelled.push(attemptId); },
  }) as unknown as TaskExecutorGateway;
  const s = new DefaultScheduler({
    env, run: FIRST_JOB_RUN, config: DEFAULT_CLUSTER_CONFIGURATION, main: scheduler.get('jobmaster/main'), graph, slotPool,
    declareRequiredSlots: () => {},
    gateway: (te) => gateway(te),
    attemptReady: () => {},
    attemptFailed: (ev, cause) => notified.push(`failed ${ev.current.attemptId} ${String(cause)}`),
    beforeRedeploy: () => undefined,
  });
  s.startScheduling();
  for (const i of [0, 1]) {
    const te = taskExecutors === 1 ? 1 : i + 1;
    slotPool.offer({
      taskExecutor: rpcAddress(`te-${te}`), host: hostId(`taskmanager-${te}`), slotIndex: taskExecutors === 1 ? i : 0,
      allocationId: `a${i}`,
    });
  }
  s.onSlotsChanged();
  scheduler.runAll();
  const attempt = (v: string, i: number) => graph.vertex(v, i).current.attemptId;
  for (const v of ['v0', 'v1']) {
    for (const i of [0, 1]) for (const state of ['INITIALIZING', 'RUNNING'] as const) s.updateTaskExecutionState({ attemptId: attempt(v, i), state });
  }
  return { scheduler, graph, slotPool, s, notified, cancelled, deployed, tdds, attempt };
}

describe('DefaultScheduler', () => {
  test('RUNNING reported for an attempt still DEPLOYING (its INITIALIZING report was lost) cancels the task and '
    + 'fails the attempt (Execution.switchTo: an unexpected state transition); a report for an attempt being '
    + 'cancelled changes nothing', () => {
    const h = harness();
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v1', 1), state: 'FAILED', error: 'boom' });
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v0', 0), state: 'RUNNING' });
    expect(h.graph.vertex('v0', 0).current.state).toBe('CANCELING');
    for (const [v, i] of [['v0', 0], ['v0', 1], ['v1', 0]] as const) {
      h.s.updateTaskExecutionState({ attemptId: h.attempt(v, i), state: 'CANCELED' });
    }
    h.scheduler.advanceTimeUs(1_000_000);
    // The restarted attempts are DEPLOYING: v0#0 reports INITIALIZING, v0#1 only RUNNING.
    const [src0, src1] = [h.attempt('v0', 0), h.attempt('v0', 1)];
    h.s.updateTaskExecutionState({ attemptId: src0, state: 'INITIALIZING' });
    h.s.updateTaskExecutionState({ attemptId: src0, state: 'RUNNING' });
    expect(h.graph.vertex('v0', 0).current.state).toBe('RUNNING');
    const cancelled = h.cancelled.length;
    h.s.updateTaskExecutionState({ attemptId: src1, state: 'RUNNING' });
    expect(h.cancelled.slice(cancelled, cancelled + 1)).toEqual([src1]);
    expect(h.notified.at(-4)).toBe(`failed ${src1} Concurrent unexpected state transition of task ${src1} from DEPLOYING `
      + '(expected INITIALIZING) to RUNNING while deployment was in progress.');
    expect(h.graph.vertex('v0', 1).current.state).toBe('FAILED');
    expect(h.graph.jobStatus).toBe('RESTARTING');
  });

  test('deployments carry the vertex\'s max parallelism and the consumer\'s as the partition\'s key groups, '
    + 'a max parallelism adopted from restored state included', () => {
    const plain = harness();
    expect(plain.tdds.map((t) => [t.vertexId, t.maxParallelism, t.producedPartitions.map((p) => p.numTargetKeyGroups)]))
      .toEqual([['v0', 128, [128]], ['v0', 128, [128]], ['v1', 128, []], ['v1', 128, []]]);
    const adopted = harness(1, (g) => g.setMaxParallelism('v1', 13));
    expect(adopted.tdds.map((t) => [t.vertexId, t.maxParallelism, t.producedPartitions.map((p) => p.numTargetKeyGroups)]))
      .toEqual([['v0', 128, [13]], ['v0', 128, [13]], ['v1', 13, []], ['v1', 13, []]]);
  });

  test('a restart tells the coordinators of each cancelled execution\'s vertex executionAttemptFailed for it '
    + '(DefaultScheduler.notifyCoordinatorOfCancellation)', () => {
    const h = harness();
    const [src0, src1, sink0, sink1] = [h.attempt('v0', 0), h.attempt('v0', 1), h.attempt('v1', 0), h.attempt('v1', 1)];
    h.s.updateTaskExecutionState({ attemptId: sink1, state: 'FAILED', error: 'boom' });
    expect(h.graph.jobStatus).toBe('RESTARTING');
    // The failed one with its cause (notifyCoordinatorsAboutTaskFailure), then every execution the
    // region's restart cancels, with no error.
    expect(h.notified).toEqual([`failed ${sink1} boom`, `failed ${src0} null`, `failed ${src1} null`,
      `failed ${sink0} null`]);
    expect(h.cancelled).toEqual([src0, src1, sink0]);
  });

  test('the job is RESTARTING before the restart cancels the old executions, and RUNNING again before the '
    + 'new ones are created (addVerticesToRestartPending, removeVerticesFromRestartPending)', () => {
    const h = harness();
    const seen: string[] = [];
    h.graph.addJobStatusListener((status) => seen.push(`${status} after ${h.cancelled.length} cancels, `
      + `attempt ${h.graph.vertex('v0', 0).current.attemptNumber}`));
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v1', 1), state: 'FAILED', error: 'boom' });
    for (const [v, i] of [['v0', 0], ['v0', 1], ['v1', 0]] as const) {
      h.s.updateTaskExecutionState({ attemptId: h.attempt(v, i), state: 'CANCELED' });
    }
    h.scheduler.advanceTimeUs(1_000_000);
    expect(seen).toEqual(['RESTARTING after 0 cancels, attempt 0', 'RUNNING after 3 cancels, attempt 0']);
    expect(h.graph.vertex('v0', 0).current.attemptNumber).toBe(1);
  });

  test('an execution already FAILED, CANCELING or CANCELED is not notified again when a restart cancels it', () => {
    const h = harness();
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v1', 1), state: 'FAILED', error: 'boom' });
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v0', 0), state: 'CANCELED' });
    const before = h.notified.length;
    // A global failure while RESTARTING restarts every vertex again; all are cancelled already.
    h.s.handleGlobalFailure('test');
    expect(h.graph.jobStatus).toBe('RESTARTING');
    expect(h.notified).toHaveLength(before);
  });
  /**
   * te-2 (the slot of subtask 1) is lost while its region restarts: the JobMaster removes its slot
   * from the pool, then fails what ran in it, then (`tell`) tells the scheduler the slots changed.
   */
  function loseTaskExecutor2(h: ReturnType<typeof harness>, tell = true): void {
    h.slotPool.releaseTaskManager(rpcAddress('te-2'));
    for (const v of ['v0', 'v1']) h.s.handleTaskFailure(h.graph.vertex(v, 1).current, 'TaskManager te-2 lost');
    if (tell) h.s.onSlotsChanged();
  }

  test('restarted executions allocate from the slot pool: the restart that runs the moment a lost TaskManager\'s '
    + 'attempts become terminal deploys nothing into its released slot (DefaultDeclarativeSlotPool.releaseSlots, '
    + 'SlotSharingExecutionSlotAllocator)', () => {
    const h = harness(2);
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v1', 0), state: 'FAILED', error: 'boom' });
    for (const v of ['v0', 'v1']) h.s.updateTaskExecutionState({ attemptId: h.attempt(v, 0), state: 'CANCELED' });
    // The backoff passes; the restart waits only for te-2's attempts, still CANCELING.
    h.scheduler.advanceTimeUs(1_000_000);
    expect(h.graph.vertex('v0', 1).current.state).toBe('CANCELING');
    h.deployed.length = 0;
    loseTaskExecutor2(h);
    h.scheduler.runAll();
    expect(h.graph.jobStatus).toBe('RUNNING');
    expect(h.deployed).toEqual([]);
    expect(h.graph.vertex('v0', 1).current.state).toBe('SCHEDULED');
    // A new slot (te-3) takes the restarted executions; te-1 keeps subtask 0.
    h.slotPool.offer({ taskExecutor: rpcAddress('te-3'), host: hostId('taskmanager-3'), slotIndex: 0, allocationId: 'a3' });
    h.s.onSlotsChanged();
    expect(h.deployed.map((d) => d.replace(/#\d@\d/, ''))).toEqual(['v0 -> te-1', 'v0 -> te-3', 'v1 -> te-1', 'v1 -> te-3']);
    expect(h.deployed.filter((d) => d.endsWith('te-3')).map((d) => d.split(' ')[0]))
      .toEqual([h.attempt('v0', 1), h.attempt('v1', 1)]);
  });

  test('a restart whose backoff is still running when a TaskManager is lost deploys nothing into its released slot', () => {
    const h = harness(2);
    h.s.updateTaskExecutionState({ attemptId: h.attempt('v1', 0), state: 'FAILED', error: 'boom' });
    for (const v of ['v0', 'v1']) h.s.updateTaskExecutionState({ attemptId: h.attempt(v, 0), state: 'CANCELED' });
    h.deployed.length = 0;
    // Not told that the slots changed: the restart must still read the pool when it allocates.
    loseTaskExecutor2(h, false);
    expect(h.graph.jobStatus).toBe('RESTARTING');
    h.scheduler.advanceTimeUs(1_000_000);
    expect(h.graph.jobStatus).toBe('RUNNING');
    expect(h.deployed).toEqual([]);
  });
});
