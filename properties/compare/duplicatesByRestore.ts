/**
 * duplicatesByRestore: each restore's share of a run's duplicates, for compare's
 * `RunMetrics.duplicatesByRestore`.
 *
 * A duplicate is a committed copy of an output identity `(split, offset, tag)` beyond the
 * reference fold's count of it (the surplus the default judge counts: explore/defaultJudge.ts,
 * surplusAndMissing.ts). The at-least-once oracle (oracles/atLeastOnce.ts) decides whether a
 * restore *can* explain a duplicate of input record `(s, o)`: it went back to a checkpoint `c`
 * with `p_s(c) <= o` (no checkpoint: every split at 0), after a copy was begun. It does not say
 * *which* restore made which copy; compare needs one answer per copy, in every mode, so it
 * applies the same positions rule per copy:
 *
 * - The copies of an identity are ordered by when their sink transaction began (trace
 *   `sink.transaction-begun`; a copy whose begin is not in the trace counts as the earliest).
 *   The first `e` are the originals (`e` the fold's count), every later one is an extra copy.
 * - An extra copy is the doing of the latest restore before its transaction began whose
 *   checkpoint had not passed the record (`p_s(c) <= o`): the attempt that committed it started
 *   from that restore and read the record again. One restore replays the record once, so it takes
 *   at most `e` extra copies of an identity; beyond that the next earlier candidate does.
 * - An extra copy no restore can explain (a violation in every mode; or an identity F does not
 *   produce at all) is attributed to none: the restores' shares then sum to less than the run's
 *   duplicates, and the difference is the unattributed surplus.
 *
 * The restores are the ones the oracle sees: the trace's `checkpoint.restored` events (id -1: a
 * restart from no checkpoint, every split at 0) and, without checkpointing (mode none), every
 * failover (`scheduler.restarting`). A restore whose checkpoint is not among the completed ones
 * explains nothing.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { RunMetrics } from './CompareReport.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { splitPositions } from '../oracles/splitPositions.ts';
import { transactionBegins, txnKey } from '../oracles/transactionBegins.ts';

/** A restore as the trace shows it (µs). */
interface Restore {
  readonly timeUs: number;
  readonly checkpointId: number;
  /** Split id -> the checkpoint's position; undefined: the checkpoint is unknown. */
  readonly positions: ReadonlyMap<number, number> | undefined;
}

/** An output identity as committed records and the fold's outputs carry it. */
interface Identity {
  readonly split: number;
  readonly offset: number;
  readonly tag: string;
}

/**
 * Per restore of `result`, in order: its time (virtual ms), checkpoint id and the duplicates
 * attributed to it (see the file comment). `duplicates` is the judge's surplus count: 0 (no
 * duplicate, or a run the judge does not count: an unfinished job) gives every restore 0 without
 * reading the output.
 */
export function duplicatesByRestore(result: RunResult, duplicates: number): RunMetrics['duplicatesByRestore'] {
  const restores = restoresOf(result);
  const shares = restores.map(() => 0);
  if (duplicates > 0 && restores.length > 0) attribute(result, restores, shares);
  return restores.map((r, i) => ({ restoreTimeMs: r.timeUs / 1000, checkpointId: r.checkpointId, duplicates: shares[i] ?? 0 }));
}

function attribute(result: RunResult, restores: readonly Restore[], shares: number[]): void {
  const key = (r: Identity): string => `${r.split}:${r.offset}:${r.tag}`;
  const expected = new Map<string, number>();
  for (const r of sharedReferenceFold(result.graph).outputs) expected.set(key(r), (expected.get(key(r)) ?? 0) + 1);
  const began = transactionBegins(result.trace);
  const copies = new Map<string, { readonly record: Identity; readonly beganUs: number }[]>();
  for (const c of result.committed) {
    const record = c.record as Identity;
    const list = copies.get(key(record)) ?? [];
    list.push({ record, beganUs: began.get(txnKey(c.txn.sink, c.txn.subtask, c.txn.attempt, c.txn.epoch)) ?? Number.NEGATIVE_INFINITY });
    copies.set(key(record), list);
  }
  for (const [k, list] of copies) {
    const e = expected.get(k) ?? 0;
    if (e === 0 || list.length <= e) continue;
    // Stable: copies begun at the same time keep their commit order.
    const ordered = [...list].sort((a, b) => a.beganUs - b.beganUs);
    const taken = restores.map(() => 0);
    for (const copy of ordered.slice(e)) {
      const { split, offset } = copy.record;
      for (let i = restores.length - 1; i >= 0; i--) {
        const r = restores[i] as Restore;
        const p = r.positions?.get(split);
        if (r.timeUs > copy.beganUs || p === undefined || p > offset || (taken[i] ?? 0) >= e) continue;
        taken[i] = (taken[i] ?? 0) + 1;
        shares[i] = (shares[i] ?? 0) + 1;
        break;
      }
    }
  }
}

/** The run's restores with the split positions of their checkpoints (as the at-least-once oracle reads them). */
function restoresOf(result: RunResult): Restore[] {
  const none = result.spec.checkpoint.mode === 'none';
  const completed = new Map(result.checkpoints.completed.map((c) => [c.checkpointId, c] as const));
  const memo = new Map<number, ReadonlyMap<number, number> | undefined>();
  const positionsOf = (id: number): ReadonlyMap<number, number> | undefined => {
    if (!memo.has(id)) {
      const c = completed.get(id);
      memo.set(id, id < 0 ? splitPositions(undefined, result.graph).positions
        : c === undefined ? undefined : splitPositions(c, result.graph).positions);
    }
    return memo.get(id);
  };
  return result.trace
    .filter((e) => e.type === 'checkpoint.restored' || (none && e.type === 'scheduler.restarting'))
    .map((e) => {
      const checkpointId = e.type === 'checkpoint.restored' ? Number(e.attrs['checkpointId']) : -1;
      return { timeUs: e.timeUs, checkpointId, positions: positionsOf(checkpointId) };
    });
}
