/**
 * The entry point of the public job API: a small DataStream-like builder. A job is a bounded
 * split-based source, stateless transformations, keyBy into keyed process functions, and sinks,
 * each with its own parallelism and max parallelism.
 *
 * ```ts
 * const env = new StreamExecutionEnvironment({ jobName: 'wordcount', parallelism: 2 });
 * env.fromSource(splitSource(splits), { name: 'lines' })
 *   .flatMap((line, out) => line.split(' ').forEach((w) => out.collect(w)))
 *   .keyBy((w) => w)
 *   .process(countWords, { name: 'count' })
 *   .sinkTo(twoPhaseCommitSink('counts'));
 * const graph = env.getStreamGraph();
 * ```
 *
 * @see org.apache.flink.streaming.api.environment.StreamExecutionEnvironment, DataStream
 */
import { computeDefaultMaxParallelism } from '../../state/KeyGroupRangeAssignment.ts';
import type {
  CheckpointedPassThroughFunction, FilterFunction, FlatMapFunction, Key, KeyedProcessFunction,
  KeySelector, MapFunction,
} from './functions.ts';
import { InvalidJobError } from './InvalidJobError.ts';
import type { SinkDefinition, SplitSource } from './sources.ts';
import { toCoordinatorConfiguration, type CheckpointConfig } from './CheckpointConfig.ts';
import type { OperatorSpec, PartitionerKind, StreamEdge, StreamGraph, StreamNode } from './StreamGraph.ts';

export { InvalidJobError } from './InvalidJobError.ts';

/** Per-operator options. */
export interface OperatorOptions {
  readonly name?: string;
  /** Stable operator id; defaults to `<kind>-<node id>`. */
  readonly uid?: string;
  readonly parallelism?: number;
  readonly maxParallelism?: number;
  /** Processing cost per record in virtual microseconds (default from the environment). */
  readonly costUs?: number;
}

/** Environment options. */
export interface EnvironmentOptions {
  readonly jobName?: string;
  /** Default parallelism of every operator. Default 1. */
  readonly parallelism?: number;
  /** Default cost per record of a non-source operator, µs. Default 20. */
  readonly defaultCostUs?: number;
  /** Default cost per record read by a source, µs. Default 100. */
  readonly defaultSourceCostUs?: number;
  /** Chain forward edges of equal parallelism into one task. Default true. */
  readonly chaining?: boolean;
  /**
   * Max parallelism of every operator that sets none (Flink's `env.setMaxParallelism`); such an
   * operator's max parallelism counts as configured. Default: derived per operator
   * (computeDefaultMaxParallelism).
   */
  readonly maxParallelism?: number;
  /**
   * Parallelism per operator uid, over what the job's code sets: how the harness deploys a job
   * at the parallelism a RunSpec or explore chose (in the manner of Flink's
   * `pipeline.jobvertex-parallelism-overrides`, by uid rather than by JobVertexID).
   */
  readonly operatorParallelism?: Readonly<Record<string, number>>;
}

/**
 * How the next operator is fed. `implicit`: no partitioning was asked for, so the edge is
 * forward when both sides have one parallelism and rebalance otherwise, as Flink's
 * StreamGraph#addEdgeInternal chooses for a transformation without a partitioner.
 */
interface PendingEdge {
  readonly partitioner: PartitionerKind;
  readonly keySelector?: KeySelector<unknown>;
  readonly implicit?: boolean;
}

/** Builds a {@link StreamGraph}. */
export class StreamExecutionEnvironment {
  private readonly nodes: StreamNode[] = [];
  private readonly edges: StreamEdge[] = [];
  readonly parallelism: number;
  private readonly jobName: string;
  private readonly defaultCostUs: number;
  private readonly defaultSourceCostUs: number;
  private readonly chaining: boolean;
  private readonly maxParallelism: number | undefined;
  private readonly operatorParallelism: Readonly<Record<string, number>>;
  private checkpointing: CheckpointConfig | undefined;

  constructor(options: EnvironmentOptions = {}) {
    this.parallelism = checkParallelism(options.parallelism ?? 1, 'parallelism');
    this.jobName = options.jobName ?? 'job';
    this.defaultCostUs = checkCost(options.defaultCostUs ?? 20);
    this.defaultSourceCostUs = checkCost(options.defaultSourceCostUs ?? 100);
    this.chaining = options.chaining ?? true;
    this.maxParallelism = options.maxParallelism === undefined
      ? undefined : checkParallelism(options.maxParallelism, 'maxParallelism');
    this.operatorParallelism = options.operatorParallelism ?? {};
  }

  /**
   * Enables periodic checkpoints every `intervalMs` (virtual ms), with the given options.
   * @throws InvalidJobError for an invalid configuration (e.g. an interval below 10 ms).
   */
  enableCheckpointing(intervalMs: number, options: Omit<CheckpointConfig, 'intervalMs'> = {}): this {
    const config: CheckpointConfig = { ...options, intervalMs };
    toCoordinatorConfiguration(config);
    this.checkpointing = config;
    return this;
  }

  /** Adds a split-based source. */
  fromSource<T>(source: SplitSource<T>, options: OperatorOptions = {}): DataStream<T> {
    const id = this.addNode({ kind: 'source', source: source as SplitSource<unknown> }, options, true);
    return new DataStream<T>(this, id);
  }

  /** The logical graph built so far. @throws InvalidJobError if it has no source or no sink. */
  getStreamGraph(): StreamGraph {
    if (!this.nodes.some((n) => n.spec.kind === 'source')) throw new InvalidJobError('the job has no source');
    if (!this.nodes.some((n) => n.spec.kind === 'sink')) throw new InvalidJobError('the job has no sink');
    const graph = { jobName: this.jobName, nodes: [...this.nodes], edges: [...this.edges], chaining: this.chaining };
    return this.checkpointing === undefined ? graph : { ...graph, checkpointing: this.checkpointing };
  }

  /** @internal Adds a node fed by `input` over `edge`. */
  addOperator(input: number, edge: PendingEdge, spec: OperatorSpec, options: OperatorOptions): number {
    const id = this.addNode(spec, options, false);
    const from = this.nodes[input];
    const to = this.nodes[id];
    const partitioner = edge.implicit === true && from !== undefined && to !== undefined
      && from.parallelism !== to.parallelism ? 'rebalance' : edge.partitioner;
    const e: StreamEdge = edge.keySelector === undefined
      ? { source: input, target: id, partitioner }
      : { source: input, target: id, partitioner, keySelector: edge.keySelector };
    this.edges.push(e);
    if (from !== undefined && to !== undefined && partitioner === 'forward' && from.parallelism !== to.parallelism) {
      throw new InvalidJobError(
        `forward edge ${from.name} -> ${to.name} needs equal parallelism (${from.parallelism} vs ${to.parallelism}): forward partitioning does not allow a change of parallelism; use rebalance()`,
      );
    }
    return id;
  }

  private addNode(spec: OperatorSpec, options: OperatorOptions, isSource: boolean): number {
    const id = this.nodes.length;
    const uid = options.uid ?? `${spec.kind}-${id}`;
    if (this.nodes.some((n) => n.uid === uid)) throw new InvalidJobError(`duplicate operator uid ${uid}`);
    const parallelism = checkParallelism(this.operatorParallelism[uid] ?? options.parallelism ?? this.parallelism, 'parallelism');
    const setMax = options.maxParallelism ?? this.maxParallelism;
    const configured = setMax !== undefined;
    const maxParallelism = configured
      ? checkParallelism(setMax, 'maxParallelism')
      : computeDefaultMaxParallelism(parallelism);
    if (maxParallelism < parallelism) {
      throw new InvalidJobError(`maxParallelism ${maxParallelism} of operator ${uid} is below its parallelism ${parallelism}`);
    }
    this.nodes.push({
      id,
      name: options.name ?? `${spec.kind}-${id}`,
      uid,
      spec,
      parallelism,
      maxParallelism,
      maxParallelismConfigured: configured,
      costUs: checkCost(options.costUs ?? (isSource ? this.defaultSourceCostUs : this.defaultCostUs)),
    });
    return id;
  }
}

/** A stream of records of type T. */
export class DataStream<T> {
  constructor(
    protected readonly env: StreamExecutionEnvironment,
    /** @internal */ readonly nodeId: number,
    private readonly nextEdge: PendingEdge = { partitioner: 'forward', implicit: true },
  ) {}

  map<O>(fn: MapFunction<T, O>, options: OperatorOptions = {}): DataStream<O> {
    return this.then<O>({ kind: 'map', fn: fn as MapFunction<unknown, unknown> }, options);
  }

  filter(fn: FilterFunction<T>, options: OperatorOptions = {}): DataStream<T> {
    return this.then<T>({ kind: 'filter', fn: fn as FilterFunction<unknown> }, options);
  }

  flatMap<O>(fn: FlatMapFunction<T, O>, options: OperatorOptions = {}): DataStream<O> {
    return this.then<O>({ kind: 'flatMap', fn: fn as FlatMapFunction<unknown, unknown> }, options);
  }

  /**
   * Forwards every record unchanged through a function with operator state, one instance per
   * subtask made by `create` (a CheckpointedFunction on an identity map).
   */
  passThrough(create: () => CheckpointedPassThroughFunction<T>, options: OperatorOptions = {}): DataStream<T> {
    return this.then<T>({
      kind: 'checkpointedPassThrough',
      create: create as () => CheckpointedPassThroughFunction<unknown>,
    }, options);
  }

  /** Partitions by key: records go to the subtask owning the key's key group. */
  keyBy<K extends Key>(selector: KeySelector<T>): KeyedStream<T, K> {
    return new KeyedStream<T, K>(this.env, this.nodeId, {
      partitioner: 'hash',
      keySelector: selector as KeySelector<unknown>,
    });
  }

  /**
   * Forward to the downstream subtask of the same index (chained when possible); both sides must
   * have one parallelism, as Flink's ForwardPartitioner requires. Without any partitioning the
   * edge is forward at equal parallelism and rebalance otherwise.
   */
  forward(): DataStream<T> {
    return new DataStream<T>(this.env, this.nodeId, { partitioner: 'forward' });
  }

  /** Round-robin over the downstream subtasks. */
  rebalance(): DataStream<T> {
    return new DataStream<T>(this.env, this.nodeId, { partitioner: 'rebalance' });
  }

  /** Every record to every downstream subtask. */
  broadcast(): DataStream<T> {
    return new DataStream<T>(this.env, this.nodeId, { partitioner: 'broadcast' });
  }

  /** Ends the stream in a sink. */
  sinkTo(sink: SinkDefinition, options: OperatorOptions = {}): void {
    this.then<never>({ kind: 'sink', sink }, options);
  }

  protected then<O>(spec: OperatorSpec, options: OperatorOptions): DataStream<O> {
    if (this.nextEdge.partitioner === 'hash' && spec.kind !== 'keyedProcess') {
      throw new InvalidJobError('a keyed stream must go into process()');
    }
    const id = this.env.addOperator(this.nodeId, this.nextEdge, spec, options);
    return new DataStream<O>(this.env, id);
  }
}

/** A stream partitioned by key. */
export class KeyedStream<T, K extends Key> extends DataStream<T> {
  /** Runs a keyed process function with keyed state and timers. */
  process<O>(fn: KeyedProcessFunction<K, T, O>, options: OperatorOptions = {}): DataStream<O> {
    return this.then<O>({ kind: 'keyedProcess', fn: fn as KeyedProcessFunction<Key, unknown, unknown> }, options);
  }
}

function checkParallelism(p: number, what: string): number {
  if (!Number.isInteger(p) || p < 1 || p > 32768) {
    throw new InvalidJobError(`${what} must be an integer in 1..32768, got ${p}`);
  }
  return p;
}

function checkCost(c: number): number {
  if (!Number.isInteger(c) || c < 0) throw new InvalidJobError(`cost must be a non-negative integer of µs, got ${c}`);
  return c;
}
