/**
 * Source and sink definitions of the public job API.
 *
 * Sources are split-based, as in Flink's FLIP-27: a bounded source is a list of splits, each a
 * sequence of records (like files on shared storage). At run time a SplitEnumerator inside the
 * SourceCoordinator on the JobMaster hands splits to SourceReaders on request, over coordinator
 * events; a reader reports its position (split, offset) so a restore resumes exactly there.
 *
 * @see org.apache.flink.api.connector.source.Source, SourceSplit
 */
import { InvalidJobError } from './InvalidJobError.ts';
import type { TwoPhaseCommitSinkFunctionFactory } from './TwoPhaseCommitSinkFunction.ts';

/** One split: an id (unique within the source) and its records, read in order from offset 0. */
export interface SplitData<T> {
  readonly id: number;
  readonly records: readonly T[];
}

/** A bounded split-based source. */
export interface SplitSource<T> {
  readonly kind: 'splits';
  readonly splits: readonly SplitData<T>[];
}

/**
 * A bounded source over the given splits.
 * @throws InvalidJobError if `splits` is not an array, a split is malformed (an id that is not a
 *   non-negative integer, records that are not an array) or two splits share an id.
 */
export function splitSource<T>(splits: readonly SplitData<T>[]): SplitSource<T> {
  if (!Array.isArray(splits)) throw new InvalidJobError('splitSource: splits must be an array');
  const ids = new Set<number>();
  for (const [i, s] of splits.entries()) {
    if (s === null || typeof s !== 'object') {
      throw new InvalidJobError(`splitSource: split ${i} is not an object`);
    }
    if (!Number.isSafeInteger(s.id) || s.id < 0) {
      throw new InvalidJobError(
        `splitSource: split ${i} has an id that is not a non-negative integer`);
    }
    if (!Array.isArray(s.records)) {
      throw new InvalidJobError(`splitSource: split ${s.id} has no records array`);
    }
    if (ids.has(s.id)) throw new InvalidJobError(`splitSource: duplicate split id ${s.id}`);
    ids.add(s.id);
  }
  return { kind: 'splits', splits };
}

/**
 * Cuts `records` into `count` splits of consecutive records (ids 0..count-1, sizes differ by at
 * most 1).
 * @throws InvalidJobError if `records` is not an array or `count` is not a positive integer.
 */
export function consecutiveSplits<T>(records: readonly T[], count: number): SplitData<T>[] {
  if (!Array.isArray(records)) {
    throw new InvalidJobError('consecutiveSplits: records must be an array');
  }
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
    // A non-finite count is described in words: messages never print Infinity or NaN.
    const got = typeof count !== 'number' ? `a ${typeof count}`
      : Number.isFinite(count) ? String(count) : 'a non-finite number';
    throw new InvalidJobError(
      `consecutiveSplits: split count must be a positive integer, got ${got}`);
  }
  const out: SplitData<T>[] = [];
  const base = Math.floor(records.length / count);
  const extra = records.length % count;
  let at = 0;
  for (let i = 0; i < count; i++) {
    const n = base + (i < extra ? 1 : 0);
    out.push({ id: i, records: records.slice(at, at + n) });
    at += n;
  }
  return out;
}

/**
 * Where a sink writes.
 * - `two-phase-commit`: Flink's TwoPhaseCommitSinkFunction over the transactional store, a
 *   transaction per checkpoint epoch (without checkpointing, one transaction committed at the end
 *   of input). `name` identifies the sink in the store. `create`, when present, makes each
 *   subtask's user TwoPhaseCommitSinkFunction, which performs every transaction step.
 * - `collect`: appends every record, with the writing attempt, to `target` at once (an
 *   at-least-once test sink that survives nothing and promises nothing).
 */
export type SinkDefinition =
  | {
    readonly kind: 'two-phase-commit';
    readonly name: string;
    readonly create?: TwoPhaseCommitSinkFunctionFactory;
  }
  | { readonly kind: 'collect'; readonly target: CollectedRecord[] };

/** What the collect sink stores. */
export interface CollectedRecord {
  readonly value: unknown;
  readonly split: number;
  readonly offset: number;
  readonly tag: string;
  readonly subtask: number;
  readonly attempt: number;
}

/**
 * A two-phase-commit sink named `name` (its committed records are read from the transactional
 * store under that name). Without `create` it is the built-in sink; with it, `create` is called
 * once per subtask attempt for the function that performs the sink's transaction steps (see
 * TwoPhaseCommitSinkFunction for how its output is judged).
 * @throws InvalidJobError if `create` is given and is not a function.
 * @see org.apache.flink.streaming.api.datastream.DataStream#addSink with a
 *      TwoPhaseCommitSinkFunction
 */
export function twoPhaseCommitSink<IN = unknown>(
  name: string,
  create?: TwoPhaseCommitSinkFunctionFactory<IN>,
): SinkDefinition {
  if (create === undefined) return { kind: 'two-phase-commit', name };
  if (typeof create !== 'function') {
    throw new InvalidJobError('twoPhaseCommitSink: create must be a function making the sink function');
  }
  return { kind: 'two-phase-commit', name, create: create as TwoPhaseCommitSinkFunctionFactory };
}

/** A collecting test sink appending to `target`. */
export function collectSink(target: CollectedRecord[]): SinkDefinition {
  return { kind: 'collect', target };
}
