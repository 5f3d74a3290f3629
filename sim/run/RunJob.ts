/**
 * RunJob: the job side of a RunSpec. Every job, built-in or a user's module, is a JobDefinition
 * (sim/jobs/resolveJob.ts); this file deploys it: it creates the StreamExecutionEnvironment with
 * the run's per-operator parallelism and max parallelism, lets the definition build the job on
 * it, and applies the spec's per-record costs. The operators (uids) and default parallelism of a
 * job are read from the graph it builds with no overrides.
 *
 * Invariants: the uids listed for a job are exactly the graph's node uids, in node order;
 * building the same inputs twice gives equal graphs (the functions are the definitions' own,
 * shared with the reference fold).
 */
import { StreamExecutionEnvironment } from '../../engine/index.ts';
import type { StreamGraph } from '../../engine/index.ts';
import { checkJudgeable } from '../jobs/judgeability.ts';
import { moduleGuard, resolveJob } from '../jobs/resolveJob.ts';
import { SimInputError } from '../SimInputError.ts';
import { generatedStageUid, type GeneratedJobSpec } from '../workloads/generatedJob.ts';
import type { JobSpec } from './RunSpec.ts';

export {
  FLIGHTS_DEFAULT_PARALLELISM, FLIGHTS_DEFAULT_SPLITS, WORDCOUNT_DEFAULT_PARALLELISM,
} from '../jobs/builtInJobs.ts';

/** Operator uid -> parallelism. */
export type ParallelismByUid = Readonly<Record<string, number>>;

/** The operator uids of `job`, in node order (sources first). @throws as {@link buildJobGraph}. */
export function jobUids(job: JobSpec): readonly string[] {
  return defaultGraph(job).nodes.map((n) => n.uid);
}

/**
 * The uids of `job`'s source operators (each has a coordinator), in node order.
 * @throws as {@link buildJobGraph}.
 */
export function jobSourceUids(job: JobSpec): readonly string[] {
  return defaultGraph(job).nodes.filter((n) => n.spec.kind === 'source').map((n) => n.uid);
}

/** The parallelism of every operator of `job` when the spec names none. @throws as {@link buildJobGraph}. */
export function defaultParallelism(job: JobSpec): ParallelismByUid {
  return Object.fromEntries(defaultGraph(job).nodes.map((n) => [n.uid, n.parallelism]));
}

/** The last job's graph with no overrides: validation asks for the uids and defaults several times. */
let lastDefault: { job: JobSpec; graph: StreamGraph } | undefined;

function defaultGraph(job: JobSpec): StreamGraph {
  if (lastDefault?.job === job) return lastDefault.graph;
  const graph = buildJobGraph(job, { parallelism: {} });
  lastDefault = { job, graph };
  return graph;
}

/**
 * The parallelism of every operator: `parallelism` (one number, or per uid over the defaults).
 * Assumes a validated spec (known uids).
 */
export function parallelismByUid(
  job: JobSpec,
  parallelism: number | Readonly<Record<string, number>> | undefined,
): ParallelismByUid {
  const defaults = defaultParallelism(job);
  if (parallelism === undefined) return defaults;
  if (typeof parallelism === 'number') {
    return Object.fromEntries(Object.keys(defaults).map((u) => [u, parallelism]));
  }
  return { ...defaults, ...parallelism };
}

/** The generated job shape with the given per-uid parallelism and max parallelism applied. */
export function generatedShape(
  spec: GeneratedJobSpec,
  parallelism: ParallelismByUid,
  maxParallelism: number | undefined,
): GeneratedJobSpec {
  const at = (uid: string, fallback: number): number => parallelism[uid] ?? fallback;
  return {
    ...spec,
    sourceParallelism: at('gen-source', spec.sourceParallelism),
    stages: spec.stages.map((st, i) => ({ ...st, parallelism: at(generatedStageUid(spec, i), st.parallelism) })),
    sinkParallelism: at('gen-sink', spec.sinkParallelism),
    maxParallelism: maxParallelism ?? spec.maxParallelism,
  };
}

/** What {@link buildJobGraph} needs besides the job. */
export interface JobGraphOptions {
  readonly parallelism: ParallelismByUid;
  readonly maxParallelism?: number;
  /** Per-record costs by uid, whole µs; missing uids keep the builder's defaults. */
  readonly costsUs?: Readonly<Record<string, number>>;
}

/**
 * Builds the job's StreamGraph (without checkpointing; `simulate` adds it) at `options`'
 * parallelism (uids it does not name keep the job's own) and max parallelism.
 * @throws SimInputError for a job module that is not loaded, whose build fails or enables
 *   checkpointing itself; Error, InvalidJobError or InvalidGeneratedJobError from the built-in
 *   workloads for inputs validateRunSpec would have refused.
 */
export function buildJobGraph(job: JobSpec, options: JobGraphOptions): StreamGraph {
  const p = options.parallelism;
  const deployed = job.kind === 'generated' && (Object.keys(p).length > 0 || options.maxParallelism !== undefined)
    ? { kind: 'generated' as const, spec: generatedShape(job.spec, p, options.maxParallelism) }
    : job;
  const resolved = resolveJob(deployed);
  const { definition } = resolved;
  const env = new StreamExecutionEnvironment({
    jobName: definition.name,
    parallelism: definition.parallelism ?? 1,
    operatorParallelism: p,
    ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
  });
  let graph: StreamGraph;
  if (resolved.module === undefined) {
    definition.build(env, resolved.splits);
    graph = env.getStreamGraph();
  } else {
    const guard = moduleGuard(resolved.module);
    try {
      guard.run('build function', () => definition.build(env, resolved.splits));
      graph = guard.guardGraph(env.getStreamGraph());
    } catch (e) {
      if (e instanceof SimInputError) throw e;
      throw new SimInputError(`job module ${resolved.label}: build failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (graph.checkpointing !== undefined) {
      throw new SimInputError(`job module ${resolved.label}: build enables checkpointing; leave that to the run spec (checkpoint.mode, intervalMs)`);
    }
    checkJudgeable(graph, definition.judge, resolved.label);
  }
  const costs = options.costsUs;
  return costs === undefined ? graph : withCosts(graph, costs);
}

/** `graph` with per-record costs by uid (whole µs); missing uids keep theirs. */
export function withCosts(graph: StreamGraph, costsUs: Readonly<Record<string, number>>): StreamGraph {
  return { ...graph, nodes: graph.nodes.map((n) => ({ ...n, costUs: costsUs[n.uid] ?? n.costUs })) };
}
