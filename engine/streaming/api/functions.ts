/**
 * The user-function types of the public job API. User functions are plain TypeScript; the
 * engine runs them on its operators and the reference fold (properties/) runs the very same
 * functions on a trivial state store, which is why keyed functions reach their state only
 * through the context they are given.
 *
 * @see org.apache.flink.api.common.functions.{MapFunction, FilterFunction, FlatMapFunction},
 *      org.apache.flink.streaming.api.functions.KeyedProcessFunction
 */

/** A key: a Java String, Integer (32-bit) or Long (bigint) in Flink's terms. */
export type Key = string | number | bigint;

/** Collects the outputs of a flatMap or a process function. */
export interface Collector<O> {
  collect(value: O): void;
}

export type MapFunction<I, O> = (value: I) => O;
export type FilterFunction<I> = (value: I) => boolean;
export type FlatMapFunction<I, O> = (value: I, out: Collector<O>) => void;
export type KeySelector<I> = (value: I) => Key;

/** Handle to a single value per key. Values are plain data; treat them as immutable. */
export interface ValueState<V> {
  value(): V | undefined;
  update(value: V): void;
  clear(): void;
}

/** Handle to a map per key. */
export interface MapState<K extends string | number, V> {
  get(key: K): V | undefined;
  put(key: K, value: V): void;
  remove(key: K): void;
  contains(key: K): boolean;
  entries(): [K, V][];
  isEmpty(): boolean;
  clear(): void;
}

/** Handle to a list per key. */
export interface ListState<V> {
  get(): V[];
  add(value: V): void;
  update(values: V[]): void;
  clear(): void;
}

/** Declares one piece of keyed state by name and kind. */
export type StateDescriptor =
  | { readonly kind: 'value'; readonly name: string }
  | { readonly kind: 'map'; readonly name: string }
  | { readonly kind: 'list'; readonly name: string };

/** Processing-time timers of the current key (virtual milliseconds at the API edge). */
export interface TimerService {
  currentProcessingTimeMs(): number;
  registerProcessingTimeTimer(timeMs: number): void;
  deleteProcessingTimeTimer(timeMs: number): void;
}

/** What a keyed process function sees for the current record or timer. */
export interface KeyedContext<K extends Key = Key> {
  getCurrentKey(): K;
  getState<V>(descriptor: { kind: 'value'; name: string }): ValueState<V>;
  getMapState<MK extends string | number, V>(descriptor: { kind: 'map'; name: string }): MapState<MK, V>;
  getListState<V>(descriptor: { kind: 'list'; name: string }): ListState<V>;
  timerService(): TimerService;
}

/**
 * A keyed process function: per record, read and update the key's state through `ctx` and emit
 * any number of outputs. Timers call `onTimer`.
 */
export interface KeyedProcessFunction<K extends Key, I, O> {
  processElement(value: I, ctx: KeyedContext<K>, out: Collector<O>): void;
  onTimer?(timestampMs: number, ctx: KeyedContext<K>, out: Collector<O>): void;
}

/** Operator (non-keyed) state of one subtask, as a checkpointed function reaches it. */
export interface OperatorStateStore {
  /**
   * Split-distribute list state `name` (Flink's `getListState`): on restore the elements of all
   * old subtasks are dealt out round robin, each to exactly one new subtask.
   */
  getListState<E>(name: string): ListState<E>;
  /** Union list state `name`: on restore every subtask gets the elements of every old subtask. */
  getUnionListState<E>(name: string): ListState<E>;
}

/** What a checkpointed function sees when its operator initializes its state. */
export interface FunctionInitializationContext {
  /** True when the task was restored from a checkpoint or savepoint (Flink's isRestored). */
  isRestored(): boolean;
  /** The restored checkpoint's id; undefined on a fresh start (Flink's getRestoredCheckpointId). */
  getRestoredCheckpointId(): number | undefined;
  getOperatorStateStore(): OperatorStateStore;
  /** This subtask's index and its operator's parallelism (Flink's RuntimeContext). */
  readonly subtaskIndex: number;
  readonly parallelism: number;
}

/**
 * A pass-through function with operator state: Flink's CheckpointedFunction on an identity
 * MapFunction. It sees every record's value and the split the input record came from, and can
 * neither change nor drop a record (its operator forwards each one as it came), so its state
 * never affects the job's output. One instance per subtask (its operator calls the factory),
 * as Flink deserializes one function object per subtask.
 */
export interface CheckpointedPassThroughFunction<T> {
  /** Registers (and, after a restore, reads) its state; called once, before any record. */
  initializeState(context: FunctionInitializationContext): void;
  /** Sees one record: its value and the split of the input record it derives from. */
  observe(value: T, split: number): void;
  /** The operator is about to snapshot its state for `checkpointId` (write pending updates). */
  snapshotState(checkpointId: number): void;
}
