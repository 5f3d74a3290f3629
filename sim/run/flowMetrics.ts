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

/** What {@link flowMetrics} computes from, in virtual µs. */
export interface FlowInput {
  /** Committed copies, all of them. */
  readonly committedRecords: number;
  /** Per committed copy that a source read made (timer outputs have none): commit - read, any order. */
  readonly latenciesUs: ArrayLike<number>;
  /** The last commit; undefined when nothing was committed. */
  readonly lastCommitUs: number | undefined;
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
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be in [0, 100], got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

const ms = (us: number): number => us / 1000;

/**
 * The `k`-th smallest (0-based) of `v[lo, hi)`, found by partitioning `v` in place around a
 * median of three (Hoare's selection, deterministic): afterwards every value before index `k` is
 * at most `v[k]` and every value after it at least, so a second selection with a larger `k` can
 * start at `k`. A run commits tens of thousands of copies and needs two percentiles, which this
 * finds several times faster than sorting them.
 */
function select(v: Float64Array, lo: number, hi: number, k: number): number {
  let l = lo;
  let h = hi - 1;
  while (h > l) {
    const a = v[l] as number;
    const b = v[(l + h) >>> 1] as number;
    const c = v[h] as number;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = l;
    let j = h;
    while (i <= j) {
      while ((v[i] as number) < pivot) i++;
      while ((v[j] as number) > pivot) j--;
      if (i <= j) {
        const t = v[i] as number;
        v[i++] = v[j] as number;
        v[j--] = t;
      }
    }
    if (k <= j) h = j;
    else if (k >= i) l = i;
    else break;
  }
  return v[k] as number;
}

/** The flow metrics of `input` (see {@link FlowMetrics}); a pure function. */
export function flowMetrics(input: FlowInput): FlowMetrics {
  const n = input.committedRecords;
  const latencies = new Float64Array(input.latenciesUs.length);
  latencies.set(input.latenciesUs);
  let sumUs = 0;
  let maxUs = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < latencies.length; i++) {
    const l = latencies[i] as number;
    sumUs += l;
    if (l > maxUs) maxUs = l;
  }
  // Nearest rank, as percentile() on the sorted values (1-based ranks, here 0-based indices).
  const rank = (p: number): number => Math.max(1, Math.ceil((p / 100) * latencies.length)) - 1;
  const r50 = rank(50);
  const p50 = latencies.length === 0 ? 0 : select(latencies, 0, latencies.length, r50);
  const p99 = latencies.length === 0 ? 0 : select(latencies, r50, latencies.length, rank(99));
  const spanUs = input.firstReadUs === undefined || input.lastCommitUs === undefined ? 0
    : input.lastCommitUs - input.firstReadUs;
  const byTask: Record<string, number> = {};
  let totalUs = 0;
  for (const task of [...input.backPressuredUs.keys()].sort(byTaskName)) {
    const us = input.backPressuredUs.get(task) as number;
    byTask[task] = ms(us);
    totalUs += us;
  }
  return {
    committedRecords: n,
    latencyMs: latencies.length === 0 ? null : {
      p50: ms(p50),
      p99: ms(p99),
      max: ms(maxUs),
      mean: ms(Math.round(sumUs / latencies.length)),
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
  const latenciesUs = new Float64Array(committed.length);
  let withRead = 0;
  let lastCommitUs: number | undefined;
  // Records come in commit order, a transaction's together: one look-up per transaction.
  let txn: TransactionId | undefined;
  let times: TransactionTimes | undefined;
  for (const c of committed) {
    if (c.txn !== txn) {
      txn = c.txn;
      times = commitTimes.get(txn);
      if (times === undefined || times.committedUs < 0) {
        harnessAssert(false, `flow metrics: committed transaction ${JSON.stringify(txn)} has no commit time`);
      }
      if (lastCommitUs === undefined || times.committedUs > lastCommitUs) lastCommitUs = times.committedUs;
    }
    const t = times as TransactionTimes;
    const r = c.record as { split?: unknown; offset?: unknown } | null;
    // A record without a source identity, or a timer's output (split -1), was read by no source.
    if (r === null || typeof r !== 'object' || typeof r.split !== 'number' || typeof r.offset !== 'number'
      || r.split < 0) continue;
    const readUs = metrics.readTimeUs(r.split, r.offset, t.preCommittedUs);
    if (readUs === undefined) {
      harnessAssert(false,
        `flow metrics: no read of ${r.split}:${r.offset} before its pre-commit at ${t.preCommittedUs}us`);
    }
    latenciesUs[withRead++] = t.committedUs - readUs;
  }
  return flowMetrics({
    committedRecords: committed.length,
    latenciesUs: latenciesUs.subarray(0, withRead),
    lastCommitUs,
    firstReadUs: metrics.firstReadUs(),
    backPressuredUs: metrics.backPressuredUsByTask(endUs),
  });
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
