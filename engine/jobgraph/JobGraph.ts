/**
 * The JobGraph: the StreamGraph with forward edges of equal parallelism chained into vertices
 * (one task per subtask of a vertex runs the whole OperatorChain). Immutable.
 *
 * @see org.apache.flink.runtime.jobgraph.JobGraph, JobVertex, JobEdge
 */
import type { CheckpointCoordinatorConfiguration } from '../checkpoint/CheckpointCoordinatorConfiguration.ts';
import type { KeySelector } from '../streaming/api/functions.ts';
import type { PartitionerKind, StreamNode } from '../streaming/api/StreamGraph.ts';

/** An edge between two vertices; one intermediate result (ResultPartition per producer subtask). */
export interface JobEdge {
  /** Index of the edge in JobGraph.edges; names the intermediate result. */
  readonly index: number;
  readonly source: string;
  readonly target: string;
  readonly partitioner: PartitionerKind;
  readonly keySelector?: KeySelector<unknown>;
}

/** A vertex: a chain of operators, head first. */
export interface JobVertex {
  /** Stable id, `v<n>` in topological order. */
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly maxParallelismConfigured: boolean;
  /** The chained operators, head (input side) first. */
  readonly operators: readonly StreamNode[];
  readonly isSource: boolean;
}

export interface JobGraph {
  readonly jobName: string;
  /** The checkpoint coordinator's configuration when checkpointing is on. */
  readonly checkpointing?: CheckpointCoordinatorConfiguration;
  /** Vertices in topological order (sources first). */
  readonly vertices: readonly JobVertex[];
  readonly edges: readonly JobEdge[];
}

/** Input edges of a vertex, in edge order. */
export function inputsOf(graph: JobGraph, vertexId: string): JobEdge[] {
  return graph.edges.filter((e) => e.target === vertexId);
}

/** Output edges of a vertex, in edge order. */
export function outputsOf(graph: JobGraph, vertexId: string): JobEdge[] {
  return graph.edges.filter((e) => e.source === vertexId);
}

/** The vertex with `id`. @throws Error if absent. */
export function vertexById(graph: JobGraph, id: string): JobVertex {
  const v = graph.vertices.find((x) => x.id === id);
  if (v === undefined) throw new Error(`no vertex ${id}`);
  return v;
}
