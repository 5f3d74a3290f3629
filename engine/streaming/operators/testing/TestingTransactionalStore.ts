/**
 * An in-memory transactional store with the port's contract (engine/api/TransactionalStore.ts):
 * fencing per (sink, subtask), ids never reused, idempotent commit, abort of an aborted one a
 * no-op, pre-commits keep their checkpoint id, commit and abort by another subtask are fenced on
 * the caller's partition. Tests read committed output and every call made.
 */
import {
  FencedError, TransactionStateError,
  type TransactionalStore, type TransactionId, type TransactionInfo, type TransactionStatus,
} from '../../../api/TransactionalStore.ts';

interface Txn {
  readonly id: TransactionId;
  status: TransactionStatus;
  readonly records: unknown[];
  checkpointId?: number;
}

/** The in-memory store; see the file comment. */
export class TestingTransactionalStore implements TransactionalStore {
  private readonly txns = new Map<string, Txn>();
  private readonly fence = new Map<string, number>();
  /** Every call, as `op sink/subtask/attempt/epoch by=n` (or `init sink/subtask by=n`). */
  readonly calls: string[] = [];

  initTransactions(sink: string, subtask: number, by: number): void {
    this.calls.push(`init ${sink}/${subtask} by=${by}`);
    const key = `${sink}/${subtask}`;
    this.checkFence(key, by);
    this.fence.set(key, by);
  }

  begin(id: TransactionId, by: number): void {
    this.record('begin', id, by);
    this.checkFence(`${id.sink}/${id.subtask}`, by);
    if (this.txns.has(keyOf(id))) throw new TransactionStateError(
      `transaction ${keyOf(id)} exists`);
    this.txns.set(keyOf(id), { id, status: 'open', records: [] });
  }

  write(id: TransactionId, record: unknown, by: number): void {
    const t = this.get(id, by);
    if (t.status !== 'open') throw new TransactionStateError(`write to ${t.status} ${keyOf(id)}`);
    t.records.push(record);
  }

  preCommit(id: TransactionId, by: number, checkpointId?: number): void {
    this.record('preCommit', id, by);
    const t = this.get(id, by);
    if (t.status !== 'open') throw new TransactionStateError(
      `preCommit of ${t.status} ${keyOf(id)}`);
    t.status = 'pre-committed';
    if (checkpointId !== undefined) t.checkpointId = checkpointId;
  }

  commit(id: TransactionId, by: number, bySubtask: number = id.subtask): void {
    this.record('commit', id, by, bySubtask);
    const t = this.get(id, by, bySubtask);
    if (t.status === 'committed') return;
    if (t.status !== 'pre-committed') throw new TransactionStateError(
      `commit of ${t.status} ${keyOf(id)}`);
    t.status = 'committed';
  }

  abort(id: TransactionId, by: number, bySubtask: number = id.subtask): void {
    this.record('abort', id, by, bySubtask);
    const t = this.get(id, by, bySubtask);
    if (t.status === 'aborted') return;
    if (t.status === 'committed') throw new TransactionStateError(
      `abort of committed ${keyOf(id)}`);
    t.status = 'aborted';
  }

  list(sink: string, subtask: number): TransactionInfo[] {
    return [...this.txns.values()]
      .filter((t) => t.id.sink === sink && t.id.subtask === subtask)
      .map((t) => ({
        id: t.id, status: t.status, records: t.records.length,
        ...(t.checkpointId === undefined ? {} : { checkpointId: t.checkpointId }),
      }));
  }

  /** Records of committed transactions of `sink`, in creation order of the transactions. */
  committed(sink: string): unknown[] {
    return [...this.txns.values()]
      .filter((t) => t.id.sink === sink && t.status === 'committed')
      .flatMap((t) => t.records);
  }

  /** The status of `id`, or undefined when unknown. */
  status(id: TransactionId): TransactionStatus | undefined {
    return this.txns.get(keyOf(id))?.status;
  }

  /** A call by another subtask than the transaction's adds ` as=<subtask>`. */
  private record(op: string, id: TransactionId, by: number, bySubtask = id.subtask): void {
    this.calls.push(`${op} ${keyOf(id)} by=${by}${bySubtask === id.subtask ? '' : ` as=${bySubtask}`}`);
  }

  private get(id: TransactionId, by: number, bySubtask = id.subtask): Txn {
    this.checkFence(`${id.sink}/${bySubtask}`, by);
    const t = this.txns.get(keyOf(id));
    if (t === undefined) throw new TransactionStateError(`unknown transaction ${keyOf(id)}`);
    return t;
  }

  private checkFence(key: string, by: number): void {
    const fenced = this.fence.get(key);
    if (fenced !== undefined && by < fenced) throw new FencedError(
      `attempt ${by} fenced by ${fenced} on ${key}`);
  }
}

function keyOf(id: TransactionId): string {
  return `${id.sink}/${id.subtask}/${id.attempt}/${id.epoch}`;
}
