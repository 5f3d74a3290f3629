/**
 * expandRunSpec: a RunSpec with every default filled in (the "expanded configuration" that
 * reports print first, as TigerBeetle prints a seed's whole configuration). The defaults are
 * DESIGN.md's, scaled to the simulated world: the flights job at parallelism 4 spans about 2
 * virtual seconds; checkpoints every 100 ms, timeout 1 s, max concurrent 1, min pause 0,
 * tolerable failures 0, retained 1; 2 slots per TaskManager and enough TaskManagers for the
 * largest parallelism; heartbeats every 5 ms, timeout 25 ms; RPC timeout 20 ms; restarts with a
 * fixed 10 ms delay and unlimited attempts.
 *
 * Invariants: the result is valid, plain JSON, runs exactly as the input does, and expanding it
 * again returns an equal spec (idempotent). Max parallelism stays absent when absent (Flink
 * derives it per operator).
 */
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../engine/index.ts';
import type { DelayDistribution, StreamGraph } from '../../engine/index.ts';
import {
  DEFAULT_NETWORK_LATENCY, DEFAULT_RPC_LATENCY, DEFAULT_STORE_LATENCY,
} from '../WorldOptions.ts';
import { WORDCOUNT_DEFAULT_SPLITS, WORDCOUNT_TEXT } from '../workloads/wordcount.ts';
import { generatedStageUid } from '../workloads/generatedJob.ts';
import {
  buildJobGraph, FLIGHTS_DEFAULT_SPLITS, parallelismByUid,
} from './RunJob.ts';
import type {
  CheckpointSpec, DelayMs, ExpandedRunSpec, JobSpec, RestartStrategySpec, RunSpec,
} from './RunSpec.ts';
import { largestParallelism, validateRunSpec } from './validateRunSpec.ts';

const C = DEFAULT_CLUSTER_CONFIGURATION;

type CheckpointDefaults = Required<Omit<CheckpointSpec, 'mode' | 'intervalMs' | 'alignedTimeoutMs'>>;

/** Checkpoint defaults (Flink's, with the timeout scaled to the simulated world). */
export const DEFAULT_CHECKPOINT: CheckpointDefaults = Object.freeze({
  timeoutMs: 1000,
  minPauseMs: 0,
  maxConcurrent: 1,
  tolerableFailures: 0,
  retained: 1,
  retention: 'NO_EXTERNALIZED_CHECKPOINTS',
});

/** Restart default: fixed delay, unlimited attempts, 10 ms (the engine's default). */
export const DEFAULT_RESTART_STRATEGY: RestartStrategySpec = Object.freeze({
  kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10,
});

/** A µs distribution in ms. */
function toMs(d: DelayDistribution): DelayMs {
  return { minMs: d.minUs / 1000, medianMs: d.medianUs / 1000, maxMs: d.maxUs / 1000 };
}

function expandJob(job: JobSpec): JobSpec {
  switch (job.kind) {
    case 'flights':
      return { kind: 'flights', selection: { ...job.selection }, splits: job.splits ?? FLIGHTS_DEFAULT_SPLITS };
    case 'wordcount':
      return {
        kind: 'wordcount',
        lines: job.lines ?? WORDCOUNT_TEXT.length,
        splits: job.splits ?? WORDCOUNT_DEFAULT_SPLITS,
      };
    case 'generated':
    case 'module':
      return job;
  }
}

/**
 * A generated job's shape with the parallelism each operator really runs at (`byUid`, from the
 * run's parallelism, which overrides the shape's): a printed expanded configuration then shows
 * what ran, not a stage parallelism that a top-level parallelism replaced.
 */
function withEffectiveParallelism(job: Extract<JobSpec, { kind: 'generated' }>, byUid: Readonly<Record<string, number>>): JobSpec {
  const spec = job.spec;
  return {
    kind: 'generated',
    spec: {
      ...spec,
      sourceParallelism: byUid['gen-source'] ?? spec.sourceParallelism,
      sinkParallelism: byUid['gen-sink'] ?? spec.sinkParallelism,
      stages: spec.stages.map((st, i) => ({ ...st, parallelism: byUid[generatedStageUid(spec, i)] ?? st.parallelism })),
    },
  };
}

/**
 * Validates `spec` and returns it with every default filled in.
 * @throws SimInputError (from validateRunSpec) for an invalid spec.
 */
export function expandRunSpec(spec: RunSpec): ExpandedRunSpec {
  return expandRunSpecWithGraph(spec).expanded;
}

/**
 * {@link expandRunSpec}, also returning the job's StreamGraph it built to read the default costs
 * (built from the expanded job, parallelism and max parallelism, without costs or checkpointing),
 * so that `simulate` need not build it again.
 * @throws SimInputError (from validateRunSpec) for an invalid spec.
 */
export function expandRunSpecWithGraph(spec: RunSpec): { expanded: ExpandedRunSpec; graph: StreamGraph } {
  validateRunSpec(spec);
  const job = expandJob(spec.job);
  const parallelism = typeof spec.parallelism === 'number'
    ? spec.parallelism : parallelismByUid(job, spec.parallelism);
  const byUid = parallelismByUid(job, parallelism);
  // TaskManagers are sized for the largest parallelism of any job run (a rescale's included).
  const maxP = largestParallelism(spec.actions ?? [], byUid);
  const slotsPerTaskManager = spec.slotsPerTaskManager ?? C.slotsPerTaskManager;
  const maxParallelism = spec.maxParallelism === undefined ? {} : { maxParallelism: spec.maxParallelism };
  const graph = buildJobGraph(job, { parallelism: byUid, ...maxParallelism });
  const expandedJob = job.kind === 'generated' ? withEffectiveParallelism(job, byUid) : job;
  const costsMs = Object.fromEntries(graph.nodes.map((n) => [n.uid, spec.costsMs?.[n.uid] ?? n.costUs / 1000]));
  const net = spec.network ?? {};
  const cp = spec.checkpoint;
  const checkpoint = {
    mode: cp.mode,
    intervalMs: cp.intervalMs,
    timeoutMs: cp.timeoutMs ?? DEFAULT_CHECKPOINT.timeoutMs,
    minPauseMs: cp.minPauseMs ?? DEFAULT_CHECKPOINT.minPauseMs,
    maxConcurrent: cp.maxConcurrent ?? DEFAULT_CHECKPOINT.maxConcurrent,
    tolerableFailures: cp.tolerableFailures ?? DEFAULT_CHECKPOINT.tolerableFailures,
    retained: cp.retained ?? DEFAULT_CHECKPOINT.retained,
    retention: cp.retention ?? DEFAULT_CHECKPOINT.retention,
    ...(cp.alignedTimeoutMs === undefined ? {} : { alignedTimeoutMs: cp.alignedTimeoutMs }),
  };
  const expanded: ExpandedRunSpec = {
    version: spec.version,
    seed: spec.seed,
    job: expandedJob,
    parallelism,
    ...maxParallelism,
    taskManagers: spec.taskManagers ?? Math.ceil(maxP / slotsPerTaskManager),
    slotsPerTaskManager,
    costsMs,
    network: {
      recordsPerBuffer: net.recordsPerBuffer ?? C.recordsPerBuffer,
      bufferTimeoutMs: net.bufferTimeoutMs ?? C.bufferTimeoutUs / 1000,
      dataLatency: net.dataLatency ?? toMs(DEFAULT_NETWORK_LATENCY),
      rpcLatency: net.rpcLatency ?? toMs(DEFAULT_RPC_LATENCY),
      rpcTimeoutMs: net.rpcTimeoutMs ?? C.rpcTimeoutUs / 1000,
    },
    storeLatency: spec.storeLatency ?? toMs(DEFAULT_STORE_LATENCY),
    heartbeat: spec.heartbeat ?? {
      intervalMs: C.heartbeatIntervalUs / 1000, timeoutMs: C.heartbeatTimeoutUs / 1000,
    },
    jobManager: { ioPoolSize: spec.jobManager?.ioPoolSize ?? C.jobManagerIoPoolSize },
    checkpoint,
    restartStrategy: spec.restartStrategy ?? DEFAULT_RESTART_STRATEGY,
    faults: spec.faults,
    actions: spec.actions ?? [],
    healTimeMs: spec.healTimeMs,
    budgets: { maxEvents: spec.budgets.maxEvents, maxTimeMs: spec.budgets.maxTimeMs },
    overrides: spec.overrides,
    mutations: spec.mutations,
    ...(spec.pct === undefined ? {} : { pct: spec.pct }),
  };
  return { expanded, graph };
}
