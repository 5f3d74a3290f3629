/**
 * The logical graph a job builds: one StreamNode per operator, edges with their partitioners.
 * Immutable once built; the JobGraph generator chains it into vertices.
 *
 * @see org.apache.flink.streaming.api.graph.StreamGraph, StreamNode, StreamEdge
 */
import type {
  CheckpointedPassThroughFunction, FilterFunction, FlatMapFunction, Key, KeyedProcessFunction,
  KeySelector, MapFunction,
} from './functions.ts';
import type { CheckpointConfig } from './CheckpointConfig.ts';
import type { SinkDefinition, SplitSource } from './sources.ts';

/** How records move along an edge. `hash` is keyBy (key groups). */
export type PartitionerKind = 'forward' | 'hash' | 'rebalance' | 'broadcast';

/** What an operator does. */
export type OperatorSpec =
  | { readonly kind: 'source'; readonly source: SplitSource<unknown> }
  | { readonly kind: 'map'; readonly fn: MapFunction<unknown, unknown> }
  | { readonly kind: 'filter'; readonly fn: FilterFunction<unknown> }
  | { readonly kind: 'flatMap'; readonly fn: FlatMapFunction<unknown, unknown> }
  | { readonly kind: 'keyedProcess'; readonly fn: KeyedProcessFunction<Key, unknown, unknown> }
  /** Forwards every record unchanged; `create` makes each subtask's function (operator state). */
  | {
    readonly kind: 'checkpointedPassThrough';
    readonly create: () => CheckpointedPassThroughFunction<unknown>;
  }
  | { readonly kind: 'sink'; readonly sink: SinkDefinition };

/** One operator of the logical graph. */
export interface StreamNode {
  readonly id: number;
  readonly name: string;
  /** Stable operator id (Flink's uid); state is matched to operators by it on restore. */
  readonly uid: string;
  readonly spec: OperatorSpec;
  readonly parallelism: number;
  /** Max parallelism; `configured` false means derived by computeDefaultMaxParallelism. */
  readonly maxParallelism: number;
  readonly maxParallelismConfigured: boolean;
  /** Virtual processing cost per record, microseconds (sources: per record read). */
  readonly costUs: number;
}

/** An edge between two nodes. */
export interface StreamEdge {
  readonly source: number;
  readonly target: number;
  readonly partitioner: PartitionerKind;
  /** For `hash` edges: the key of a record. */
  readonly keySelector?: KeySelector<unknown>;
}

/** The whole logical graph. Node ids are their index in `nodes`. */
export interface StreamGraph {
  readonly jobName: string;
  readonly nodes: readonly StreamNode[];
  readonly edges: readonly StreamEdge[];
  /** Operator chaining on (Flink's default). */
  readonly chaining: boolean;
  /** Checkpointing, when the job enabled it. */
  readonly checkpointing?: CheckpointConfig;
}
