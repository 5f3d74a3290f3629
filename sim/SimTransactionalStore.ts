/**
 * SimTransactionalStore: the Kafka-like store two-phase-commit sinks write to (engine/api
 * TransactionalStore.ts). It belongs to the World, so it survives every crash.
 *
 * Invariants: a transaction id (sink, subtask, attempt, epoch) is used at most once, ever;
 * status moves open -> pre-committed -> committed, or open/pre-committed -> aborted; once
 * attempt `a` initialized (sink, subtask), calls by older attempts throw FencedError; commit of
 * a committed transaction and abort of an aborted one do nothing; readers see only committed
 * records, in commit order. A pre-commit keeps the checkpoint id it was made for (listed, never
 * traced); commit and abort by another subtask (a restore at another parallelism) are fenced on
 * the caller's own partition (see the port). Sim-side it also notes when each transaction was pre-committed and
 * committed (virtual µs), for the run's flow metrics (sim/run/flowMetrics.ts); the engine never
 * sees those times.
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction
 */
import { FencedError, TransactionStateError } from '../engine/api/index.ts';
import type {
  TransactionalStore, TransactionId, TransactionInfo, TransactionStatus,
} from '../engine/api/index.ts';
import type { SimClock } from './SimContext.ts';
import type { Trace } from './Trace.ts';

/** A committed record as readers see it, with the transaction it came from. */
export interface CommittedRecord {
  readonly record: unknown;
  readonly txn: TransactionId;
}

/** When a committed transaction was pre-committed and committed, virtual µs. */
export interface TransactionTimes {
  readonly preCommittedUs: number;
  readonly committedUs: number;
}

interface Txn {
  readonly id: TransactionId;
  status: TransactionStatus;
  readonly records: unknown[];
  /** The checkpoint it was pre-committed for, when the sink said. */
  checkpointId: number | undefined;
  /** -1 until it happens. */
  preCommittedUs: number;
  committedUs: number;
}

/** A transaction written to recently (see SimTransactionalStore.recentWrites). */
interface RecentWrite {
  /** A copy of the id, compared field by field. */
  readonly id: TransactionId;
  /** The caller's id object when it was frozen (it cannot change): matched by identity. */
  readonly frozenId: TransactionId | undefined;
  readonly p: Partition;
  readonly t: Txn;
}

interface Partition {
  fencedBelow: number;
  readonly txns: Txn[];
}

const idKey = (id: TransactionId): string => `${id.sink}\u0000${id.subtask}\u0000${id.attempt}\u0000${id.epoch}`;
/** How traces, lingering transactions and oracles name a transaction: `sink#subtask@attempt/e<epoch>`. */
export const transactionName = (id: TransactionId): string => `${id.sink}#${id.subtask}@${id.attempt}/e${id.epoch}`;
const show = transactionName;

export class SimTransactionalStore implements TransactionalStore {
  private readonly partitions = new Map<string, Partition>();
  private readonly txns = new Map<string, Txn>();
  private readonly committed: CommittedRecord[] = [];
  /**
   * The transactions written to most recently, one per (sink, subtask) partition at most: each
   * sink subtask writes record after record to one transaction, and the subtasks of a job take
   * turns, so a single last-write slot would miss on almost every batch.
   */
  private recentWrites: RecentWrite[] = [];

  constructor(private readonly trace: Trace, private readonly clock: SimClock) {}

  /** Sim-side: every committed record, in commit order. */
  committedRecords(): readonly CommittedRecord[] {
    return this.committed;
  }

  /**
   * Sim-side: the records of every transaction still pre-committed (neither committed nor
   * aborted), transaction by transaction in creation order.
   */
  preCommittedRecords(): CommittedRecord[] {
    const out: CommittedRecord[] = [];
    for (const t of this.txns.values()) {
      if (t.status === 'pre-committed') for (const record of t.records) out.push({ record, txn: t.id });
    }
    return out;
  }

  /**
   * Sim-side: the records of every transaction aborted after it was pre-committed (a recovery's
   * abort of a lingering one, say), transaction by transaction in creation order.
   */
  abortedPreCommittedRecords(): CommittedRecord[] {
    const out: CommittedRecord[] = [];
    for (const t of this.txns.values()) {
      if (t.status === 'aborted' && t.preCommittedUs >= 0) for (const record of t.records) out.push({ record, txn: t.id });
    }
    return out;
  }

  /**
   * Sim-side: the pre-commit and commit times of every committed transaction, keyed by the id
   * object its committed records carry (`CommittedRecord.txn`).
   */
  commitTimes(): ReadonlyMap<TransactionId, TransactionTimes> {
    const out = new Map<TransactionId, TransactionTimes>();
    for (const t of this.txns.values()) {
      if (t.status === 'committed') out.set(t.id, { preCommittedUs: t.preCommittedUs, committedUs: t.committedUs });
    }
    return out;
  }

  /** Sim-side: every transaction ever begun, in creation order. */
  allTransactions(): TransactionInfo[] {
    return [...this.txns.values()].map(info);
  }

  initTransactions(sink: string, subtask: number, by: number): void {
    const p = this.partition(sink, subtask);
    this.fence(p, by, `initTransactions ${sink}#${subtask}`);
    p.fencedBelow = Math.max(p.fencedBelow, by);
    this.trace.record('txn-store', 'txn.init', { sink, subtask, by });
  }

  begin(id: TransactionId, by: number): void {
    const p = this.partition(id.sink, id.subtask);
    this.fence(p, by, `begin ${show(id)}`);
    const key = idKey(id);
    if (this.txns.has(key)) throw new TransactionStateError(`transaction ${show(id)} already exists`);
    const t: Txn = { id: { ...id }, status: 'open', records: [], checkpointId: undefined, preCommittedUs: -1,
      committedUs: -1 };
    this.txns.set(key, t);
    p.txns.push(t);
    this.trace.record('txn-store', 'txn.begin', { txn: show(id), by });
  }

  write(id: TransactionId, record: unknown, by: number): void {
    // The per-record path: a transaction written to recently needs only the fencing check.
    let t: Txn | undefined;
    const recent = this.recentWrites;
    for (let i = 0; i < recent.length; i++) {
      const w = recent[i] as RecentWrite;
      if (w.frozenId === id || sameId(w.id, id)) {
        if (by >= w.p.fencedBelow) t = w.t;
        break;
      }
    }
    t ??= this.existingForWrite(id, by);
    if (t.status !== 'open') throw new TransactionStateError(`write to ${t.status} transaction ${show(id)}`);
    t.records.push(record);
  }

  preCommit(id: TransactionId, by: number, checkpointId?: number): void {
    const t = this.existing(id, by, 'preCommit');
    if (t.status !== 'open') throw new TransactionStateError(`preCommit of ${t.status} transaction ${show(id)}`);
    t.status = 'pre-committed';
    t.checkpointId = checkpointId;
    t.preCommittedUs = this.clock.nowUs;
    this.trace.record('txn-store', 'txn.preCommit', { txn: show(id), records: t.records.length });
  }

  commit(id: TransactionId, by: number, bySubtask: number = id.subtask): void {
    const t = this.existing(id, by, 'commit', bySubtask);
    if (t.status === 'committed') return;
    if (t.status !== 'pre-committed') throw new TransactionStateError(`commit of ${t.status} transaction ${show(id)}`);
    t.status = 'committed';
    t.committedUs = this.clock.nowUs;
    for (const record of t.records) this.committed.push({ record, txn: t.id });
    this.trace.record('txn-store', 'txn.commit', { txn: show(id), records: t.records.length });
  }

  abort(id: TransactionId, by: number, bySubtask: number = id.subtask): void {
    const t = this.existing(id, by, 'abort', bySubtask);
    if (t.status === 'aborted') return;
    if (t.status === 'committed') throw new TransactionStateError(`abort of committed transaction ${show(id)}`);
    t.status = 'aborted';
    this.trace.record('txn-store', 'txn.abort', { txn: show(id) });
  }

  list(sink: string, subtask: number): TransactionInfo[] {
    return (this.partitions.get(`${sink}\u0000${subtask}`)?.txns ?? []).map(info);
  }

  private partition(sink: string, subtask: number): Partition {
    const key = `${sink}\u0000${subtask}`;
    let p = this.partitions.get(key);
    if (p === undefined) {
      p = { fencedBelow: Number.NEGATIVE_INFINITY, txns: [] };
      this.partitions.set(key, p);
    }
    return p;
  }

  /** `what` is a string or, on paths that must not build one per call, a function making it. */
  private fence(p: Partition, by: number, describe: string | (() => string)): void {
    if (by < p.fencedBelow) {
      const what = typeof describe === 'string' ? describe : describe();
      this.trace.record('txn-store', 'txn.fenced', { what, by, fencedBelow: p.fencedBelow });
      throw new FencedError(`${what} by attempt ${by}: fenced by attempt ${p.fencedBelow}`);
    }
  }

  private existingForWrite(id: TransactionId, by: number): Txn {
    const t = this.existing(id, by, 'write');
    const p = this.partition(id.sink, id.subtask);
    // One slot per partition: the newest transaction of a partition replaces the older one.
    this.recentWrites = this.recentWrites.filter((w) => w.p !== p);
    this.recentWrites.push({ id: { ...id }, frozenId: Object.isFrozen(id) ? id : undefined, p, t });
    return t;
  }

  /** `bySubtask` (default: the transaction's own) names the partition whose fence applies. */
  private existing(id: TransactionId, by: number, what: string, bySubtask = id.subtask): Txn {
    this.fence(this.partition(id.sink, bySubtask), by, () => (bySubtask === id.subtask
      ? `${what} ${show(id)}` : `${what} ${show(id)} by subtask ${bySubtask}`));
    const t = this.txns.get(idKey(id));
    if (t === undefined) throw new TransactionStateError(`${what}: unknown transaction ${show(id)}`);
    return t;
  }
}

function sameId(a: TransactionId, b: TransactionId): boolean {
  return a.epoch === b.epoch && a.attempt === b.attempt && a.subtask === b.subtask &&
    a.sink === b.sink;
}

function info(t: Txn): TransactionInfo {
  const base = { id: t.id, status: t.status, records: t.records.length };
  return t.checkpointId === undefined ? base : { ...base, checkpointId: t.checkpointId };
}
