/**
 * JobDefinition: a job the harness can build, explore and judge. A user's job module exports one
 * (docs/jobs.md); the built-in flights, wordcount and generated jobs are JobDefinitions too
 * (sim/jobs/builtInJobs.ts), so every job takes the same path through simulate and the oracles.
 *
 * A definition is the job's logic and input, not its deployment: the harness creates the
 * StreamExecutionEnvironment (job name, default parallelism, per-operator parallelism and max
 * parallelism drawn by explore or set by the RunSpec), calls {@link JobDefinition.build}, adds
 * checkpointing and per-record costs, and runs it. The same definition built twice with the same
 * input and options must give equal graphs (the reference fold runs the very functions the
 * engine runs).
 *
 * How the oracles judge it ({@link JobJudging}): per keyed operator, its final and checkpointed
 * keyed state is compared with the reference fold's exactly (default) or not at all; per sink,
 * the committed output is compared by record identity and value (default), by identity only, by
 * a comparison the module supplies (a projection of the value, and optionally a per-key sequence
 * number judged as exactly 1..n), or not at all. What is not judged is counted and shown, never
 * reported as a pass.
 */
import type { SplitData, StreamExecutionEnvironment } from '../../engine/index.ts';

/** The part of a job's judging that concerns one keyed operator's state. */
export type StateJudging = 'exact' | 'off';

/**
 * A comparison of committed values the module supplies, for values that depend on the order
 * records arrive in (flights' per-airport sequence number): `project` keeps the part that must
 * equal the reference fold's value per record identity; `sequence`, when given, reads a per-key
 * number that must run exactly 1..n per key (n = the records the fold emits for the key) and
 * increase with the offset within one split.
 */
export interface OutputComparison {
  /** Name for reports, e.g. `seq per airport`. */
  readonly name: string;
  /** The part of a value compared per identity. Pure and total. */
  readonly project: (value: unknown) => unknown;
  readonly sequence?: {
    /** The key the numbers count per. */
    readonly key: (value: unknown) => string;
    /** The number, from 1. */
    readonly seq: (value: unknown) => number;
  };
}

/**
 * How one sink's committed output is judged: `identity-and-value` (default), `identity` (the
 * multiset of record identities only), an {@link OutputComparison}, or `off` (not compared;
 * required for a sink downstream of an operator the reference fold cannot run).
 */
export type OutputJudging = 'identity-and-value' | 'identity' | 'off' | OutputComparison;

/** How the oracles judge a job; everything absent takes its default. */
export interface JobJudging {
  /** Keyed operator uid -> whether its keyed state is compared; default `exact`. */
  readonly state?: Readonly<Record<string, StateJudging>>;
  /** Sink uid -> how its output is compared; default `identity-and-value`. */
  readonly output?: Readonly<Record<string, OutputJudging>>;
}

/**
 * A generated input: `generate(size)` gives the source splits for `size` (an integer in
 * minSize..maxSize, the number of records by convention); explore draws the size and shrinks
 * it toward `minSize`. Must be a pure function of `size`.
 */
export interface JobInputGenerator<T = unknown> {
  generate(size: number): readonly SplitData<T>[];
  readonly maxSize: number;
  /** Default 1. */
  readonly minSize?: number;
  /** The size a spec without one uses; default maxSize. */
  readonly defaultSize?: number;
}

/**
 * The job's input: its source splits (split ids unique), or a generator of them. A spec's
 * `job.size` cuts fixed splits to their first `size` records in split order.
 */
export type JobInput<T = unknown> = readonly SplitData<T>[] | JobInputGenerator<T>;

/** A job the harness can build, explore and judge (see the file comment). */
export interface JobDefinition<T = unknown> {
  /** The job's name (the StreamGraph's jobName). */
  readonly name: string;
  /** Parallelism of every operator that sets none and is not overridden; default 1. */
  readonly parallelism?: number;
  readonly input: JobInput<T>;
  /**
   * Builds the job on `env` from `splits` (the input, generated or cut to the spec's size): one
   * or more `fromSource(splitSource(...))`, operators with stable uids, and sinks. Must not
   * enable checkpointing (the RunSpec does) and must be deterministic.
   */
  build(env: StreamExecutionEnvironment, splits: readonly SplitData<T>[]): void;
  readonly judge?: JobJudging;
}

/**
 * Returns `definition` unchanged: gives a module's export its type (`export default
 * defineJob({ ... })`).
 */
export function defineJob<T>(definition: JobDefinition<T>): JobDefinition<T> {
  return definition;
}

/** Whether `value` looks like a {@link JobDefinition} (a name, an input and a build function). */
export function isJobDefinition(value: unknown): value is JobDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['name'] === 'string' && typeof v['build'] === 'function' && v['input'] !== undefined;
}
