import { FIRST_JOB_RUN } from './JobRun.ts';
import { describe, expect, test } from 'vitest';
import { hostId } from '../api/ids.ts';
import type { JobGraph } from '../jobgraph/JobGraph.ts';
import type { ExecutionState } from '../taskexecutor/ExecutionState.ts';
import { createTestingEngineEnv } from '../testing/TestingEngineEnv.ts';
import { TestingScheduler } from '../testing/TestingScheduler.ts';
import { TestingTracer } from '../testing/TestingTracer.ts';
import { ExecutionGraph } from './ExecutionGraph.ts';
import { createCheckpointCoordinatorContext } from './JobMasterCheckpointContext.ts';

const JOB: JobGraph = {
  jobName: 'j',
  vertices: [{
    id: 'v0', name: 'source', parallelism: 1, maxParallelism: 128, maxParallelismConfigured: false,
    operators: [], isSource: true,
  }],
  edges: [],
};

/** The port over a one-subtask ExecutionGraph; `failed` collects the global failovers. */
function harness() {
  const scheduler = new TestingScheduler();
  const tracer = new TestingTracer();
  const env = createTestingEngineEnv({ host: hostId('jobmanager'), clock: scheduler, executors: scheduler, tracer });
  const graph = new ExecutionGraph(JOB);
  const failed: string[] = [];
  const ctx = createCheckpointCoordinatorContext({
    env, run: FIRST_JOB_RUN, io: scheduler.pool('jobmaster/io', 4), graph, coordinators: [],
    gateway: () => { throw new Error('no RPC in this test'); },
    failGlobal: (cause) => failed.push(cause),
  });
  return { scheduler, tracer, graph, ctx, failed };
}

describe('the JobMaster checkpoint context (DefaultExecutionGraph FailJobCallback)', () => {
  test('failJob is a mail on the JobMaster main thread, not run on the caller\'s thread', () => {
    const h = harness();
    let failedOnIo: string[] | undefined;
    h.scheduler.get('jobmaster/io').execute('report', () => {
      h.ctx.failJob(new Error('CHECKPOINT_EXPIRED'));
      failedOnIo = [...h.failed];
    });
    h.scheduler.runAll();
    expect(failedOnIo).toEqual([]);
    expect(h.failed).toEqual(['CHECKPOINT_EXPIRED']);
    expect(h.scheduler.history).toEqual(['jobmaster/io:report', 'jobmaster/main:checkpoint-fail-job']);
    expect(h.tracer.eventsOf('checkpoint.failJobEnqueued').map((e) => e.attrs))
      .toEqual([{ callback: 1, level: 'job', cause: 'CHECKPOINT_EXPIRED' }]);
    expect(h.tracer.eventsOf('checkpoint.failJobRun').map((e) => e.attrs)).toEqual([{ callback: 1, level: 'job' }]);
  });

  test.each<[ExecutionState, boolean]>([
    ['RUNNING', true], ['INITIALIZING', true], ['CANCELING', false], ['FAILED', false], ['FINISHED', false],
  ])('failJobDueToTaskFailure checks the attempt when the mail runs: %s fails the job: %s '
    + '(failGlobalIfExecutionIsStillRunning)', (stateWhenRun, fails) => {
    const h = harness();
    const ex = h.graph.vertex('v0', 0).current;
    ex.state = 'RUNNING';
    h.ctx.failJobDueToTaskFailure(new Error('CHECKPOINT_DECLINED'), ex.attemptId);
    expect(h.failed).toEqual([]);
    // Whatever happens on the main thread before the mail runs decides.
    ex.state = stateWhenRun;
    h.scheduler.runAll();
    expect(h.failed).toEqual(fails ? ['CHECKPOINT_DECLINED'] : []);
    expect(h.tracer.eventsOf('checkpoint.failJobRun').map((e) => e.attrs))
      .toEqual([{ callback: 1, level: 'task', task: ex.attemptId, taskState: stateWhenRun }]);
  });

  test('failJobDueToTaskFailure of an attempt superseded by the time the mail runs does not fail the job', () => {
    const h = harness();
    const v = h.graph.vertex('v0', 0);
    const old = v.current;
    old.state = 'RUNNING';
    h.ctx.failJobDueToTaskFailure(new Error('CHECKPOINT_DECLINED'), old.attemptId);
    old.state = 'CANCELED';
    v.resetForNewExecution().state = 'RUNNING';
    h.scheduler.runAll();
    expect(h.failed).toEqual([]);
    expect(h.tracer.eventsOf('checkpoint.failJobRun')[0]?.attrs['taskState']).toBe('SUPERSEDED');
  });
});

describe('the job vertices the state assignment sees (ExecutionJobVertex max parallelism)', () => {
  const job = (configured: boolean): JobGraph => ({
    jobName: 'j',
    vertices: [{ id: 'v0', name: 'keyed', parallelism: 2, maxParallelism: 128, maxParallelismConfigured: configured, operators: [], isSource: false }],
    edges: [],
  });
  const contextOf = (graph: ExecutionGraph) => {
    const scheduler = new TestingScheduler();
    const env = createTestingEngineEnv({ host: hostId('jobmanager'), clock: scheduler, executors: scheduler });
    return createCheckpointCoordinatorContext({
      env, run: FIRST_JOB_RUN, io: scheduler.pool('jobmaster/io', 4), graph, coordinators: [],
      gateway: () => { throw new Error('no RPC in this test'); }, failGlobal: () => {},
    });
  };

  test('a max parallelism that was not configured is adopted into the ExecutionGraph, which later deployments read', () => {
    const graph = new ExecutionGraph(job(false));
    const [v] = contextOf(graph).jobVertices();
    expect([v?.maxParallelism, v?.maxParallelismConfigured]).toEqual([128, false]);
    v?.setMaxParallelism(13);
    expect(v?.maxParallelism).toBe(13);
    expect(graph.maxParallelismOf('v0')).toBe(13);
    expect(() => v?.setMaxParallelism(1)).toThrow(/^Rescaling max parallelism from 13 to 1 of v0 is not allowed: it is below the parallelism 2\.$/);
  });

  test('a configured max parallelism cannot be overridden', () => {
    const graph = new ExecutionGraph(job(true));
    const [v] = contextOf(graph).jobVertices();
    expect(() => v?.setMaxParallelism(13)).toThrow(/^Rescaling max parallelism from 128 to 13 of v0 is not allowed: Cannot override a configured max parallelism\.$/);
    expect(graph.maxParallelismOf('v0')).toBe(128);
  });
});
