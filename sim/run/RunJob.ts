/**
 * RunJob: the job side of a RunSpec. It knows each built-in job's operators (uids), default
 * parallelism and builder, and turns a spec's job, parallelism, max parallelism and costs into
 * the StreamGraph `simulate` runs, always ending in a two-phase-commit sink named after the
 * sink's operator uid.
 *
 * Invariants: the uids listed for a job are exactly the graph's node uids; building the same
 * inputs twice gives equal graphs (the functions are the workloads' own, shared with the
 * reference fold).
 */
import { twoPhaseCommitSink } from '../../engine/index.ts';
import type { StreamGraph } from '../../engine/index.ts';
import { FLIGHTS_UIDS, flightsJob } from '../workloads/flights.ts';
import {
  buildGeneratedJob, generatedStageUid, type GeneratedJobSpec,
} from '../workloads/generatedJob.ts';
import { WORDCOUNT_TEXT, WORDCOUNT_UIDS, wordcountJob } from '../workloads/wordcount.ts';
import type { JobSpec } from './RunSpec.ts';

/** Default parallelism of the flights job (DESIGN.md: the main job at parallelism 4). */
export const FLIGHTS_DEFAULT_PARALLELISM = 4;
/** Default number of flights splits. */
export const FLIGHTS_DEFAULT_SPLITS = 16;
/** Default parallelism of the wordcount job. */
export const WORDCOUNT_DEFAULT_PARALLELISM = 1;

/** Operator uid -> parallelism. */
export type ParallelismByUid = Readonly<Record<string, number>>;

/** The operator uids of `job`, sources first, the sink last. */
export function jobUids(job: JobSpec): readonly string[] {
  switch (job.kind) {
    case 'flights':
      return [FLIGHTS_UIDS.source, FLIGHTS_UIDS.stats, FLIGHTS_UIDS.sink];
    case 'wordcount':
      return [WORDCOUNT_UIDS.source, WORDCOUNT_UIDS.tokenize, WORDCOUNT_UIDS.count, WORDCOUNT_UIDS.sink];
    case 'generated':
      return ['gen-source', ...job.spec.stages.map((_s, i) => generatedStageUid(job.spec, i)), 'gen-sink'];
  }
}

/** The parallelism of every operator of `job` when the spec names none. */
export function defaultParallelism(job: JobSpec): ParallelismByUid {
  const uids = jobUids(job);
  if (job.kind === 'generated') {
    const s = job.spec;
    const ps = [s.sourceParallelism, ...s.stages.map((st) => st.parallelism), s.sinkParallelism];
    return Object.fromEntries(uids.map((u, i) => [u, ps[i] as number]));
  }
  const p = job.kind === 'flights' ? FLIGHTS_DEFAULT_PARALLELISM : WORDCOUNT_DEFAULT_PARALLELISM;
  return Object.fromEntries(uids.map((u) => [u, p]));
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
 * Builds the job's StreamGraph (without checkpointing; `simulate` adds it).
 * @throws Error, InvalidJobError or InvalidGeneratedJobError from the workload builders for
 *   inputs validateRunSpec would have refused.
 */
export function buildJobGraph(job: JobSpec, options: JobGraphOptions): StreamGraph {
  const p = options.parallelism;
  const maxP = options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism };
  let graph: StreamGraph;
  switch (job.kind) {
    case 'flights':
      graph = flightsJob({
        selection: job.selection,
        parallelism: {
          source: p[FLIGHTS_UIDS.source] ?? FLIGHTS_DEFAULT_PARALLELISM,
          stats: p[FLIGHTS_UIDS.stats] ?? FLIGHTS_DEFAULT_PARALLELISM,
          sink: p[FLIGHTS_UIDS.sink] ?? FLIGHTS_DEFAULT_PARALLELISM,
        },
        splits: job.splits ?? FLIGHTS_DEFAULT_SPLITS,
        sink: twoPhaseCommitSink(FLIGHTS_UIDS.sink),
        ...maxP,
      });
      break;
    case 'wordcount':
      graph = wordcountJob({
        parallelism: p[WORDCOUNT_UIDS.source] ?? WORDCOUNT_DEFAULT_PARALLELISM,
        lines: WORDCOUNT_TEXT.slice(0, job.lines ?? WORDCOUNT_TEXT.length),
        ...(job.splits === undefined ? {} : { splits: job.splits }),
        sink: twoPhaseCommitSink(WORDCOUNT_UIDS.sink),
        ...maxP,
      });
      break;
    case 'generated':
      graph = buildGeneratedJob(generatedShape(job.spec, p, options.maxParallelism), twoPhaseCommitSink('gen-sink'));
      break;
  }
  const costs = options.costsUs;
  return costs === undefined ? graph : withCosts(graph, costs);
}

/** `graph` with per-record costs by uid (whole µs); missing uids keep theirs. */
export function withCosts(graph: StreamGraph, costsUs: Readonly<Record<string, number>>): StreamGraph {
  return { ...graph, nodes: graph.nodes.map((n) => ({ ...n, costUs: costsUs[n.uid] ?? n.costUs })) };
}
