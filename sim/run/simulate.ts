/**
 * simulate: runs one RunSpec (DESIGN.md "One run, as data flowing through the house"). It
 * expands and validates the spec, builds the job with a two-phase-commit sink and the mode's
 * checkpointing, converts milliseconds to virtual microseconds, builds a MiniCluster (the world
 * with its seed, overrides, heal time, budgets, latencies, world-setting faults and planted
 * bugs), installs the fault plan, runs to job end + drain or a budget, and assembles the
 * RunResult the oracles judge (its `violations` are left empty for them).
 *
 * Invariants: the same spec gives the same trace hash; nothing here reads real time or
 * randomness; an engine assertion ends the run and the result says so (`outcome.reason`
 * `engine-assertion`, `engineAssertion`: the oracles judge it a counterexample), a harness
 * assertion propagates (sim/engineAssertion.ts tells them apart), bad input is a SimInputError.
 */
import { transactionName } from '../SimTransactionalStore.ts';
import type {
  CheckpointConfig, ClusterConfiguration, RestartStrategy, StreamGraph,
} from '../../engine/index.ts';
import { createJobGraph } from '../../engine/index.ts';
import { registerFoldSkips } from '../jobs/foldSkips.ts';
import { checkJudgeable } from '../jobs/judgeability.ts';
import { jobJudgingOf, resolveJob, throwUserCodeViolation } from '../jobs/resolveJob.ts';
import { MiniCluster, type EngineAssertion } from '../MiniCluster.ts';
import { SimInputError } from '../SimInputError.ts';
import type { WorldOptions } from '../WorldOptions.ts';
import type { ChoicesReport } from '../World.ts';
import { expandRunSpecWithGraph } from './expandRunSpec.ts';
import { ActionPlan } from './ActionPlan.ts';
import { FaultPlan } from './FaultPlan.ts';
import { faultHostTask, faultTask, faultTaskPhase, INPUT_PHASES, messageFaultTasks } from './faultTasks.ts';
import { checkChannelEventTasks } from './inputChannels.ts';
import { delayUs, faultWorldOptions, type FaultWorldOptions } from './faultWorldOptions.ts';
import { tracesKeyedInputs } from './keyedInputEvidence.ts';
import { checkpointStatsResult } from './checkpointStatsResult.ts';
import { runFlowMetrics } from './flowMetrics.ts';
import type { RunResult } from './RunResult.ts';
import { buildJobGraph, parallelismByUid, withCosts } from './RunJob.ts';
import type { Action, ExpandedRunSpec, Fault, RestartStrategySpec, RunSpec } from './RunSpec.ts';

/** Options of a run that do not change its trace. */
export interface SimulateOptions {
  /** Call every registered invariant check after each event (unit and scenario tests). */
  readonly checkInvariants?: boolean;
  /** How many trace events to keep in `RunResult.trace`; default all. */
  readonly traceLimit?: number;
  /**
   * Keep executor task events (type `task`, attrs `{ executor, label }`) in `RunResult.trace`
   * too; default false. They are hashed either way, so the trace hash is the same. For exports
   * that draw threads (reports/chromeTrace.ts); the oracles do not read them.
   */
  readonly traceTasks?: boolean;
}

const us = (ms: number): number => Math.round(ms * 1000);

/**
 * The job's StreamGraph with the spec's costs and the mode's checkpointing. `built`, when given,
 * is the job's graph as {@link expandRunSpecWithGraph} built it for this spec (it is not built
 * again).
 */
/** `graph`, its fold skips recorded for a job module that turned judging off somewhere (foldSkips.ts). */
function withFoldSkips(spec: ExpandedRunSpec, graph: StreamGraph): StreamGraph {
  if (spec.job.kind === 'module') {
    const { definition, label } = resolveJob(spec.job);
    registerFoldSkips(graph, checkJudgeable(graph, definition.judge, label));
  }
  return graph;
}

export function runGraph(spec: ExpandedRunSpec, built?: StreamGraph,
  parallelism?: Readonly<Record<string, number>>): StreamGraph {
  const costsUs = Object.fromEntries(Object.entries(spec.costsMs).map(([uid, ms]) => [uid, us(ms)]));
  let graph: StreamGraph;
  try {
    graph = built !== undefined && parallelism === undefined ? withCosts(built, costsUs) : buildJobGraph(spec.job, {
      parallelism: parallelism ?? parallelismByUid(spec.job, spec.parallelism),
      costsUs,
      ...(spec.maxParallelism === undefined ? {} : { maxParallelism: spec.maxParallelism }),
    });
  } catch (e) {
    if (e instanceof SimInputError) throw e;
    throw new SimInputError(`job: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const cp = spec.checkpoint;
  if (cp.mode === 'none') return withFoldSkips(spec, graph);
  const checkpointing: CheckpointConfig = {
    intervalMs: cp.intervalMs,
    mode: cp.mode === 'at-least-once' ? 'AT_LEAST_ONCE' : 'EXACTLY_ONCE',
    timeoutMs: cp.timeoutMs,
    minPauseMs: cp.minPauseMs,
    maxConcurrent: cp.maxConcurrent,
    tolerableFailures: cp.tolerableFailures,
    retained: cp.retained,
    externalizedCheckpointRetention: cp.retention,
  };
  return withFoldSkips(spec, { ...graph, checkpointing });
}

function restartStrategy(s: RestartStrategySpec): RestartStrategy {
  const attempts = (a: number | 'unlimited'): number => (a === 'unlimited' ? Number.POSITIVE_INFINITY : a);
  switch (s.kind) {
    case 'none':
      return { kind: 'none' };
    case 'fixed-delay':
      return { kind: 'fixed-delay', attempts: attempts(s.attempts), delayUs: us(s.delayMs) };
    case 'exponential-delay':
      return {
        kind: 'exponential-delay', initialDelayUs: us(s.initialDelayMs), maxDelayUs: us(s.maxDelayMs),
        multiplier: s.multiplier, attempts: attempts(s.attempts),
      };
  }
}

/** The cluster configuration overrides of `spec`. */
function clusterConfig(spec: ExpandedRunSpec, graph: StreamGraph): Partial<ClusterConfiguration> {
  return {
    slotsPerTaskManager: spec.slotsPerTaskManager,
    rpcTimeoutUs: us(spec.network.rpcTimeoutMs),
    heartbeatIntervalUs: us(spec.heartbeat.intervalMs),
    heartbeatTimeoutUs: us(spec.heartbeat.timeoutMs),
    recordsPerBuffer: spec.network.recordsPerBuffer,
    bufferTimeoutUs: us(spec.network.bufferTimeoutMs),
    restartStrategy: restartStrategy(spec.restartStrategy),
    traceKeyedInputs: tracesKeyedInputs(spec.checkpoint.mode, graph),
    jobManagerIoPoolSize: spec.jobManager.ioPoolSize,
  };
}

/** The world options of `spec`. */
function worldOptions(spec: ExpandedRunSpec, options: SimulateOptions, faults: FaultWorldOptions): WorldOptions {
  return {
    seed: spec.seed,
    overrides: spec.overrides,
    ...(spec.pct === undefined ? {} : { pct: spec.pct }),
    healTimeUs: us(spec.healTimeMs),
    budgets: { maxEvents: spec.budgets.maxEvents, maxTimeUs: us(spec.budgets.maxTimeMs) },
    rpc: {
      defaultLatency: delayUs(spec.network.rpcLatency),
      lossByKind: faults.lossByKind,
      injectedLatencyByKind: faults.injectedLatencyByKind,
    },
    network: { latency: delayUs(spec.network.dataLatency) },
    objectStore: { latency: delayUs(spec.storeLatency), ...faults.objectStore },
    bugs: spec.mutations,
    // The RunResult carries no decision log (replay works from seed and overrides), so keeping
    // one would only cost an object per decision.
    decisionLogLimit: 0,
    ...(options.checkInvariants === undefined ? {} : { checkInvariants: options.checkInvariants }),
    ...(options.traceLimit === undefined ? {} : { traceLimit: options.traceLimit }),
    ...(options.traceTasks === true ? { traceTasks: true } : {}),
  };
}

/** Every subtask of the job graph of `graph`, as `<vertex>#<subtask>` (how points name tasks). */
function taskNames(graph: StreamGraph, vertices = createJobGraph(graph).vertices): string[] {
  return vertices.flatMap((v) => Array.from({ length: v.parallelism }, (_x, i) => `${v.id}#${i}`));
}

/**
 * Checks that every protocol point, message fault and crash or pause host naming a task
 * (`<vertex>#<subtask>`) names a subtask of the job's JobGraph, and that every channel-event
 * fault names a channel it has (inputChannels.ts) (vertices are chains, so the names depend on
 * chaining and parallelism, which
 * only the built graph knows). A point for a task that does not exist would never fire.
 * @throws SimInputError (one line) naming the fault (or action) and the tasks that exist.
 */
function checkFaultTasks(spec: ExpandedRunSpec, graph: StreamGraph): void {
  const pointed = [
    ...spec.faults.map((f, i) => ({ path: `faults[${i}]`, f: f as Fault | Action })),
    ...spec.actions.map((a, i) => ({ path: `actions[${i}]`, f: a as Fault | Action })),
  ];
  const named = pointed.flatMap(({ path, f }) => {
    const task = faultTask(f);
    return task === undefined ? [] : [{ path, task, phase: faultTaskPhase(f) ?? '' }];
  });
  const messageEnds = spec.faults.flatMap((f, i) => [
    ...messageFaultTasks(f).map((e) => ({ i, ...e })),
    ...(faultHostTask(f) === undefined ? [] : [{ i, field: 'host', task: faultHostTask(f) as string }]),
  ]);
  const channelEvents = spec.faults.some((f) => f.type === 'channel-event');
  if (named.length === 0 && messageEnds.length === 0 && !channelEvents) return;
  const jobGraph = createJobGraph(graph);
  checkChannelEventTasks(spec.faults, jobGraph);
  const vertices = jobGraph.vertices;
  const tasks = taskNames(graph, vertices);
  for (const { i, field, task } of messageEnds) {
    if (!tasks.includes(task)) {
      throw new SimInputError(`faults[${i}].${field}: no task ${task} in this job (tasks: ${tasks.join(', ')})`);
    }
  }
  for (const { path, task, phase } of named) {
    if (!tasks.includes(task)) {
      throw new SimInputError(`${path}.when.at.task: no task ${task} in this job (tasks: ${tasks.join(', ')})`);
    }
    // A point no run can reach would only ever show as a fault (or action) that never fired.
    const vertex = vertices.find((v) => task.startsWith(`${v.id}#`));
    if (INPUT_PHASES.has(phase) && vertex?.isSource === true) {
      throw new SimInputError(`${path}.when.at: phase ${phase} never happens on ${task}, a source task `
        + '(it has no input channels: sources are triggered by RPC)');
    }
  }
}

/** The RunResult's view of the order decisions and the PCT schedule (RunResult.schedule). */
function scheduleResult(c: ChoicesReport): RunResult['schedule'] {
  return {
    decisions: c.count,
    orderDecisions: c.orderCount,
    ...(c.pct === undefined ? {} : {
      pct: {
        changePoints: [...c.pct.changePoints], unusedChangePoints: [...c.pct.unusedChangePoints],
        lanes: c.pct.lanes, differed: c.orderProposalsDiffering,
      },
    }),
  };
}

/** The RunResult's view of an engine assertion: times in ms, as at every edge. */
function engineAssertion(a: EngineAssertion): NonNullable<RunResult['engineAssertion']> {
  return { message: a.message, location: a.location, stack: a.stack, timeMs: a.timeUs / 1000 };
}

/**
 * The tasks `<vertex>#<subtask>` a valid `spec`'s job has, after checking that every task its
 * faults name exists (what simulate checks before it runs), so a caller can check task names of
 * its own (a scenario's expectation points) against the same job.
 * @throws SimInputError for a fault naming a task the job lacks, or a point no run can reach.
 */
export function checkSpecTasks(spec: RunSpec): readonly string[] {
  const { expanded, graph: built } = expandRunSpecWithGraph(spec);
  const graph = runGraph(expanded, built);
  checkFaultTasks(expanded, graph);
  return taskNames(graph);
}

/**
 * Runs `spec` and returns its RunResult (violations empty: the oracles fill them). A run an
 * engine assertion ended returns too, with what it produced until then.
 * @throws SimInputError (one line) for an invalid spec; a HarnessAssertionError, or any other
 *   error than an AssertionError, that the run throws.
 */
export function simulate(spec: RunSpec, options: SimulateOptions = {}): RunResult {
  const { expanded, graph: built } = expandRunSpecWithGraph(spec);
  const graph = runGraph(expanded, built);
  checkFaultTasks(expanded, graph);
  const faultSettings = faultWorldOptions(expanded.faults);
  const cluster = new MiniCluster({
    world: worldOptions(expanded, options, faultSettings),
    streamGraph: graph,
    config: clusterConfig(expanded, graph),
    taskManagers: expanded.taskManagers,
  });
  const world = cluster.world;
  let triggered = 0;
  let restores = 0;
  const aborted: Record<string, number> = {};
  world.onTrace(() => true, (e) => {
    if (e.type === 'checkpoint.triggered') triggered++;
    else if (e.type === 'checkpoint.restored') {
      const id = e.attrs['checkpointId'];
      if (typeof id === 'number' && id > 0) restores++;
    } else {
      const reason = String(e.attrs['reason']);
      aborted[reason] = (aborted[reason] ?? 0) + 1;
    }
  }, { types: ['checkpoint.triggered', 'checkpoint.aborted', 'checkpoint.restored'] });
  const plan = new FaultPlan(expanded.faults, cluster, us(expanded.healTimeMs), expanded.actions, faultSettings.touched);
  plan.install();
  const actionPlan = new ActionPlan(expanded.actions, cluster, {
    firstParallelism: parallelismByUid(expanded.job, expanded.parallelism),
    // A later run is the same job at its own parallelism (a generated job's stages included).
    graph: (parallelism) => runGraph(expanded, undefined, parallelism),
  });
  actionPlan.install();
  const r = cluster.run();
  throwUserCodeViolation(expanded.job);
  const stuckStop = actionPlan.finish();
  const lingering = world.transactionalStore.allTransactions()
    .filter((t) => t.status === 'open' || t.status === 'pre-committed')
    .map(({ id }) => transactionName(id));
  const judging = jobJudgingOf(expanded.job);
  return {
    spec: expanded,
    graph,
    ...(judging === undefined ? {} : { judging }),
    traceHash: r.traceHash,
    trace: world.trace.events,
    ...(world.trace.dropped > 0 ? { traceDropped: world.trace.dropped } : {}),
    outcome: { reason: r.run.reason, events: r.run.events, timeMs: r.run.timeUs / 1000, message: r.run.message },
    ...(r.engineAssertion === undefined ? {} : {
      engineAssertion: engineAssertion(r.engineAssertion),
    }),
    jobStatus: r.jobStatus,
    jobEndMs: r.jobEndUs === undefined ? undefined : r.jobEndUs / 1000,
    checkpoints: { triggered, completed: r.completedCheckpoints, aborted },
    checkpointStats: checkpointStatsResult(r.checkpointStats),
    flow: runFlowMetrics(r.committed, world.transactionalStore.commitTimes(), world.metrics, r.run.timeUs),
    restores,
    committed: r.committed,
    preCommitted: world.transactionalStore.preCommittedRecords(),
    abortedPreCommitted: world.transactionalStore.abortedPreCommittedRecords(),
    finalState: r.finalState,
    objectStorePaths: world.objectStore.paths(),
    lingeringTransactions: lingering,
    marks: Object.fromEntries(world.marks),
    unusedOverrides: world.choices.unusedOverrides,
    schedule: scheduleResult(world.choices),
    faults: plan.log,
    unfiredFaults: plan.unfired(),
    actions: actionPlan.log,
    unfiredActions: actionPlan.unfired(),
    jobRuns: actionPlan.jobRuns.map((run) => ({
      ...run, status: cluster.jobMasters[run.index - 1]?.jobStatus ?? 'CREATED',
      // Only for a history of several runs (the one run's are `checkpointStats`).
      ...(actionPlan.jobRuns.length > 1 ? { checkpointStats: checkpointStatsResult(r.jobRunCheckpointStats[run.index - 1]) } : {}),
    })),
    ...(stuckStop === undefined ? {} : { stuckStop }),
    violations: [],
  };
}
