/**
 * Test support: runs a job on a MiniCluster and shapes what it reports as a RunResult, until
 * `simulate(spec)` exists. The spec is filled in by hand from the options (only the fields the
 * oracles read matter: checkpoint configuration, heal time, restart strategy, budgets).
 */
import type { StreamGraph, TransactionInfo } from '../../../engine/index.ts';
import { MiniCluster } from '../../../sim/MiniCluster.ts';
import { transactionName } from '../../../sim/SimTransactionalStore.ts';
import type { MiniClusterOptions } from '../../../sim/MiniCluster.ts';
import { checkpointStatsResult } from '../../../sim/run/checkpointStatsResult.ts';
import { runFlowMetrics } from '../../../sim/run/flowMetrics.ts';
import type { RunResult } from '../../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION } from '../../../sim/run/RunSpec.ts';
import type {
  CheckpointSpec, DelayMs, ExpandedRunSpec, JobSpec,
} from '../../../sim/run/RunSpec.ts';
import {
  DEFAULT_NETWORK_LATENCY, DEFAULT_RPC_LATENCY, DEFAULT_STORE_LATENCY,
} from '../../../sim/WorldOptions.ts';

/** Options of {@link clusterRunResult}. */
export interface ClusterRunOptions {
  /** The job, without checkpointing (the mode adds it). */
  readonly graph: StreamGraph;
  readonly checkpoint: CheckpointSpec;
  readonly seed: string;
  /** For the spec only (the graph is what runs). */
  readonly job?: JobSpec;
  readonly healTimeMs?: number;
  readonly maxEvents?: number;
  readonly maxTimeMs?: number;
  readonly bugs?: readonly string[];
  readonly cluster?: Omit<MiniClusterOptions, 'world' | 'streamGraph'>;
  /** Schedules faults before the run. */
  readonly setUp?: (cluster: MiniCluster) => void;
}

/** Runs the job and returns the cluster and its result as a RunResult. */
export function clusterRunResult(o: ClusterRunOptions): { cluster: MiniCluster; result: RunResult } {
  const c = o.checkpoint;
  const checkpointing = c.mode === 'none' ? undefined : {
    intervalMs: c.intervalMs,
    mode: c.mode === 'at-least-once' ? 'AT_LEAST_ONCE' as const : 'EXACTLY_ONCE' as const,
    ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
    ...(c.minPauseMs === undefined ? {} : { minPauseMs: c.minPauseMs }),
    ...(c.maxConcurrent === undefined ? {} : { maxConcurrent: c.maxConcurrent }),
    ...(c.tolerableFailures === undefined ? {} : { tolerableFailures: c.tolerableFailures }),
    ...(c.retained === undefined ? {} : { retained: c.retained }),
  };
  const { checkpointing: _ignored, ...plain } = o.graph;
  const graph: StreamGraph = checkpointing === undefined ? plain : { ...plain, checkpointing };
  const healTimeMs = o.healTimeMs ?? 0;
  const maxEvents = o.maxEvents ?? 5_000_000;
  const maxTimeMs = o.maxTimeMs ?? 60_000;
  const cluster = new MiniCluster({
    ...o.cluster,
    streamGraph: graph,
    world: {
      seed: o.seed,
      healTimeUs: healTimeMs * 1000,
      budgets: { maxEvents, maxTimeUs: maxTimeMs * 1000 },
      ...(o.bugs === undefined ? {} : { bugs: o.bugs }),
    },
  });
  o.setUp?.(cluster);
  const run = cluster.run();
  const d = cluster.config;
  const ms = (us: number): number => us / 1000;
  const latency = (l: { minUs: number; medianUs: number; maxUs: number }): DelayMs =>
    ({ minMs: ms(l.minUs), medianMs: ms(l.medianUs), maxMs: ms(l.maxUs) });
  const r = d.restartStrategy;
  const spec: ExpandedRunSpec = {
    version: RUN_SPEC_VERSION,
    seed: o.seed,
    job: o.job ?? { kind: 'flights', selection: { from: 0, to: 0 } },
    parallelism: 1,
    taskManagers: cluster.taskManagerHosts.length,
    slotsPerTaskManager: d.slotsPerTaskManager,
    costsMs: {},
    network: {
      recordsPerBuffer: d.recordsPerBuffer, bufferTimeoutMs: ms(d.bufferTimeoutUs),
      dataLatency: latency(DEFAULT_NETWORK_LATENCY), rpcLatency: latency(DEFAULT_RPC_LATENCY),
      rpcTimeoutMs: ms(d.rpcTimeoutUs),
    },
    storeLatency: latency(DEFAULT_STORE_LATENCY),
    heartbeat: { intervalMs: ms(d.heartbeatIntervalUs), timeoutMs: ms(d.heartbeatTimeoutUs) },
    jobManager: { ioPoolSize: d.jobManagerIoPoolSize },
    checkpoint: {
      timeoutMs: 1000, minPauseMs: 0, maxConcurrent: 1, tolerableFailures: 0, retained: 1,
      retention: 'NO_EXTERNALIZED_CHECKPOINTS', ...c,
    },
    restartStrategy: r.kind === 'none' ? r : r.kind === 'fixed-delay'
      ? { kind: 'fixed-delay', attempts: 'unlimited', delayMs: ms(r.delayUs) }
      : { kind: 'exponential-delay', initialDelayMs: ms(r.initialDelayUs), maxDelayMs: ms(r.maxDelayUs),
        multiplier: r.multiplier, attempts: 'unlimited' },
    faults: [],
    actions: [],
    healTimeMs,
    budgets: { maxEvents, maxTimeMs },
    overrides: [],
    mutations: [...(o.bugs ?? [])],
  };
  const show = (t: TransactionInfo): string => transactionName(t.id);
  const result: RunResult = {
    spec,
    graph,
    traceHash: run.traceHash,
    trace: cluster.world.trace.events,
    outcome: { reason: run.run.reason, events: run.run.events, timeMs: run.run.timeUs / 1000, message: run.run.message },
    jobStatus: run.jobStatus,
    jobEndMs: run.jobEndUs === undefined ? undefined : run.jobEndUs / 1000,
    checkpoints: {
      triggered: cluster.world.trace.events.filter((e) => e.type === 'checkpoint.triggered').length,
      completed: run.completedCheckpoints,
      aborted: {},
    },
    checkpointStats: checkpointStatsResult(run.checkpointStats),
    flow: runFlowMetrics(run.committed, cluster.world.transactionalStore.commitTimes(), cluster.world.metrics,
      run.run.timeUs),
    restores: cluster.world.trace.events.filter((e) => e.type === 'checkpoint.restored').length,
    committed: run.committed,
    preCommitted: cluster.world.transactionalStore.preCommittedRecords(),
    abortedPreCommitted: cluster.world.transactionalStore.abortedPreCommittedRecords(),
    finalState: run.finalState,
    objectStorePaths: cluster.world.objectStore.paths(),
    lingeringTransactions: cluster.world.transactionalStore.allTransactions()
      .filter((t) => t.status === 'open' || t.status === 'pre-committed').map(show),
    marks: Object.fromEntries(cluster.world.marks),
    unusedOverrides: [],
    schedule: { decisions: cluster.world.choices.count, orderDecisions: cluster.world.choices.orderCount },
    faults: [],
    unfiredFaults: [],
    actions: [],
    unfiredActions: [],
    jobRuns: [{ index: 1, parallelism: {}, submittedMs: 0, status: run.jobStatus }],
    violations: [],
  };
  return { cluster, result };
}
