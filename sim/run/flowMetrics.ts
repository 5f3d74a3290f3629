/**
 * A run's flow metrics (`RunResult.flow`, docs/statistics.md "Flow metrics"): how many records the
 * sinks committed, how long a record took from its source reading it to the commit that made its
 * output visible, the committed records per virtual second, and how long tasks waited for credit
 * (back-pressured). They are computed after the run from what it recorded aside from the trace:
 * the transactional store's pre-commit and commit times per transaction, and the source reads and
 * back-pressure waits tasks reported through the metrics port (sim/SimMetricGroups.ts). Nothing
 * here changes a run or its trace hash.
 *
 * Which read made a committed copy: the latest read of the copy's (split, offset) at or before
 * its transaction's pre-commit. The copy was written before the pre-commit, so it was read
 * before; and a source reads a record again only after a restore, whose attempts start after the
 * ones that read it before were cancelled, so a later read belongs to a later copy. (A stale
 * attempt on a TaskManager paused past its heartbeat timeout may read it meanwhile; its output is
 * fenced, but its read could be taken for the copy's, which can only shorten that latency.)
 * Outputs of a timer (split -1) have no read: they count as committed, not in the latency.
 */
import { harnessAssert } from '../harnessAssert.ts';
import type { SimMetricGroups } from '../SimMetricGroups.ts';
import type { CommittedRecord, TransactionTimes } from '../SimTransactionalStore.ts';
import type { TransactionId } from '../../engine/index.ts';

/** `RunResult.flow`. Times in virtual ms. */
export interface FlowMetrics {
  /** Records the sinks committed (output made visible), all copies. */
  readonly committedRecords: number;
  /**
   * Virtual ms from the source reading a record to the commit that made its output visible, over
   * committed records (all copies; timer outputs have no read and are left out): nearest-rank p50
   * and p99, max, and the mean rounded to the µs; null when none was committed.
   */
  readonly latencyMs: {
    readonly p50: number; readonly p99: number; readonly max: number; readonly mean: number;
  } | null;
  /**
   * committedRecords per virtual second between the first source read and the last commit; null
   * when none was committed (or both fell in one instant).
   */
  readonly throughputPerSec: number | null;
  /**
   * Virtual ms tasks spent waiting for credit (back-pressured: the default action stopped for a
   * free output buffer), summed over tasks, and per task `<vertex>#<subtask>` (attempts summed;
   * every task that ran, 0 when never back-pressured).
   */
  readonly backPressuredMs: { readonly total: number; readonly byTask: Readonly<Record<string, number>> };
}

/** One committed copy, for {@link flowMetrics}: its record's read and its commit, virtual µs. */
export interface CommittedCopyTimes {
  /** When its source read the record; undefined for a copy no read made (a timer's output). */
  readonly readUs: number | undefined;
  readonly committedUs: number;
}

/** What {@link flowMetrics} computes from, in virtual µs. */
export interface FlowInput {
  readonly copies: readonly CommittedCopyTimes[];
  /** The first record any source read; undefined when none was read. */
  readonly firstReadUs: number | undefined;
  /** Per task `<vertex>#<subtask>`, µs back-pressured. */
  readonly backPressuredUs: ReadonlyMap<string, number>;
}

/**
 * The nearest-rank percentile of `sorted` (ascending): the smallest value with at least p% of
 * the values at or below it, i.e. the value at rank ceil(p/100 · n), and the first for p = 0.
 * @param p a percentage in [0, 100].
 * @throws RangeError when `sorted` is empty or `p` is not a number in [0, 100].
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be in [0, 100], got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

const ms = (us: number): number => us / 1000;

/** The flow metrics of `input` (see {@link FlowMetrics}); a pure function. */
export function flowMetrics(input: FlowInput): FlowMetrics {
  const latenciesUs: number[] = [];
  let lastCommitUs = Number.NEGATIVE_INFINITY;
  for (const c of input.copies) {
    if (c.committedUs > lastCommitUs) lastCommitUs = c.committedUs;
    if (c.readUs !== undefined) latenciesUs.push(c.committedUs - c.readUs);
  }
  latenciesUs.sort((a, b) => a - b);
  let sumUs = 0;
  for (const l of latenciesUs) sumUs += l;
  const n = input.copies.length;
  const spanUs = input.firstReadUs === undefined ? 0 : lastCommitUs - input.firstReadUs;
  const byTask: Record<string, number> = {};
  let totalUs = 0;
  for (const task of [...input.backPressuredUs.keys()].sort(byTaskName)) {
    const us = input.backPressuredUs.get(task) as number;
    byTask[task] = ms(us);
    totalUs += us;
  }
  return {
    committedRecords: n,
    latencyMs: latenciesUs.length === 0 ? null : {
      p50: ms(percentile(latenciesUs, 50)),
      p99: ms(percentile(latenciesUs, 99)),
      max: ms(latenciesUs[latenciesUs.length - 1] as number),
      mean: ms(Math.round(sumUs / latenciesUs.length)),
    },
    throughputPerSec: n === 0 || !(spanUs > 0) ? null : n / (spanUs / 1e6),
    backPressuredMs: { total: ms(totalUs), byTask },
  };
}

/**
 * The flow metrics of a finished run: its committed records (in commit order, as the store gives
 * them), the store's commit times, what tasks reported, and the run's end, µs (open waits count
 * up to it).
 * @throws HarnessAssertionError when a committed copy from a source record has no read at or
 *   before its pre-commit, or its transaction no commit time: the metrics port missed something.
 */
export function runFlowMetrics(
  committed: readonly CommittedRecord[],
  commitTimes: ReadonlyMap<TransactionId, TransactionTimes>,
  metrics: SimMetricGroups,
  endUs: number,
): FlowMetrics {
  const copies: CommittedCopyTimes[] = [];
  for (const c of committed) {
    const times = commitTimes.get(c.txn);
    harnessAssert(times !== undefined && times.committedUs >= 0,
      () => `flow metrics: committed transaction ${JSON.stringify(c.txn)} has no commit time`);
    const { split, offset } = identity(c.record);
    let readUs: number | undefined;
    if (split >= 0) {
      readUs = metrics.readTimeUs(split, offset, times.preCommittedUs);
      harnessAssert(readUs !== undefined,
        () => `flow metrics: no read of ${split}:${offset} before its pre-commit at ${times.preCommittedUs}us`);
    }
    copies.push({ readUs, committedUs: times.committedUs });
  }
  return flowMetrics({
    copies, firstReadUs: metrics.firstReadUs(), backPressuredUs: metrics.backPressuredUsByTask(endUs),
  });
}

/** A committed record's source identity; split -1 (a timer's output, or no identity): no read. */
function identity(record: unknown): { split: number; offset: number } {
  if (typeof record !== 'object' || record === null) return { split: -1, offset: -1 };
  const r = record as { split?: unknown; offset?: unknown };
  return typeof r.split === 'number' && typeof r.offset === 'number'
    ? { split: r.split, offset: r.offset } : { split: -1, offset: -1 };
}

/** Tasks `v<vertex>#<subtask>` by vertex, then subtask, numerically (`v2#10` after `v2#9`). */
function byTaskName(a: string, b: string): number {
  const [va, sa] = taskNumbers(a);
  const [vb, sb] = taskNumbers(b);
  if (va !== vb) return va - vb;
  if (sa !== sb) return sa - sb;
  return a < b ? -1 : a > b ? 1 : 0;
}

function taskNumbers(task: string): [number, number] {
  const m = /^v(\d+)#(\d+)$/.exec(task);
  return m === null ? [Number.MAX_SAFE_INTEGER, 0] : [Number(m[1]), Number(m[2])];
}
