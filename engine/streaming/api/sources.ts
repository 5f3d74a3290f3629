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

/** A bounded source over the given splits. @throws Error on duplicate split ids. */
export function splitSource<T>(splits: readonly SplitData<T>[]): SplitSource<T> {
  const ids = new Set<number>();
  for (const s of splits) {
    if (ids.has(s.id)) throw new Error(`duplicate split id ${s.id}`);
    ids.add(s.id);
  }
  return { kind: 'splits', splits };
}

/** Cuts `records` into `count` splits of consecutive records (ids 0..count-1, sizes differ by ≤ 1). */
export function consecutiveSplits<T>(records: readonly T[], count: number): SplitData<T>[] {
  if (!Number.isInteger(count) || count < 1) throw new Error(`split count must be a positive integer, got ${count}`);
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
 *   of input). `name` identifies the sink in the store.
 * - `collect`: appends every record, with the writing attempt, to `target` at once (an
 *   at-least-once test sink that survives nothing and promises nothing).
 */
export type SinkDefinition =
  | { readonly kind: 'two-phase-commit'; readonly name: string }
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

/** A two-phase-commit sink named `name`. */
export function twoPhaseCommitSink(name: string): SinkDefinition {
  return { kind: 'two-phase-commit', name };
}

/** A collecting test sink appending to `target`. */
export function collectSink(target: CollectedRecord[]): SinkDefinition {
  return { kind: 'collect', target };
}
