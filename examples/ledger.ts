/**
 * A bank ledger as a job module (docs/jobs.md): transfer records go through
 * source -> keyBy(account) -> running balance in ValueState -> a custom two-phase-commit sink
 * that buffers each transaction's records and writes them at pre-commit, as Flink's
 * Kafka/JDBC-style sinks batch their writes.
 *
 * Exports:
 * - `default`: the correct job; `explore --job ./examples/ledger.ts` passes.
 * - `commitsInSnapshotJob`: the same job whose sink commits during the checkpoint's snapshot
 *   (the classic two-phase-commit mistake); explore finds an end-to-end-exactly-once violation.
 *
 * Why each account's transfers sit in one split: a balance is a running sum, and the value
 * emitted with each transfer depends on the order the account's transfers reach the keyed
 * operator. Flink keeps the order of one channel (one split read by one source subtask), but
 * records of one key from two splits interleave as scheduling decides, so the emitted balances
 * would differ from the reference fold's run to run without any bug.
 */
import {
  defineJob, splitSource, twoPhaseCommitSink, TwoPhaseCommitSinkFunction,
  type JobDefinition, type SinkTransaction, type SplitData, type StreamRecord,
} from 'checkpoint-sim';

/** One transfer: `amount` (cents, may be negative) booked on `account`; `id` is unique. */
export interface Transfer {
  readonly id: number;
  readonly account: string;
  readonly amount: number;
}

/** What the ledger commits per transfer: the account's balance (cents) after it. */
export interface Booking {
  readonly account: string;
  readonly balance: number;
  readonly transferId: number;
  readonly amount: number;
}

const ACCOUNTS = 6;
const SPLITS = 3;

/**
 * `size` transfers (size >= 1) over ACCOUNTS accounts in SPLITS splits, every account's
 * transfers in one split (account k in split k % SPLITS), so each account's order is its split's.
 * Pure in `size`.
 */
export function generateTransfers(size: number): SplitData<Transfer>[] {
  const splits: Transfer[][] = Array.from({ length: SPLITS }, () => []);
  for (let id = 0; id < size; id++) {
    const k = (id * 7) % ACCOUNTS;
    // Deterministic amounts, some negative, from the id alone.
    const amount = ((id * 37) % 201) - 60;
    splits[k % SPLITS]?.push({ id, account: `acct-${k}`, amount });
  }
  return splits.map((records, id) => ({ id, records }));
}

/**
 * The correct sink: records of the open transaction are buffered in the function and written
 * to the transaction in `preCommit`, which then pre-commits it; `commit` (the default) makes it
 * visible once the checkpoint completed. A restore loses the buffer, which is right: the open
 * transaction is aborted and its records are replayed from the restored source offsets.
 */
export class LedgerSink extends TwoPhaseCommitSinkFunction<Booking> {
  protected buffered: StreamRecord<Booking>[] = [];

  override beginTransaction(txn: SinkTransaction): void {
    this.buffered = [];
    txn.begin();
  }

  override invoke(_txn: SinkTransaction, record: StreamRecord<Booking>): void {
    this.buffered.push(record);
  }

  /** Writes the buffer (records as received, keeping their identity) and pre-commits. */
  protected flush(txn: SinkTransaction): void {
    for (const record of this.buffered) txn.write(record);
    this.buffered = [];
  }

  override preCommit(txn: SinkTransaction): void {
    this.flush(txn);
    txn.preCommit();
  }
}

/**
 * DO NOT DO THIS. The sink commits during the checkpoint's snapshot ("commit in
 * snapshotState": here `preCommit` is the step the snapshot calls), so the records become
 * visible before the checkpoint completes. If the job then fails before the checkpoint
 * completes, it restores the previous checkpoint and replays those records: they are committed
 * twice (and a failed/aborted checkpoint cannot take them back). Commit belongs in `commit`,
 * which runs after notifyCheckpointComplete.
 */
export class CommitsInSnapshotLedgerSink extends LedgerSink {
  override preCommit(txn: SinkTransaction): void {
    this.flush(txn);
    txn.preCommit();
    txn.commit(); // BUG: visible at snapshot time, before the checkpoint is complete.
  }
}

/** The ledger job with the given sink function; `name` is the job's name. */
function ledgerJob(name: string, sink: () => TwoPhaseCommitSinkFunction<Booking>): JobDefinition<Transfer> {
  return defineJob<Transfer>({
    name,
    parallelism: 2,
    input: { generate: generateTransfers, maxSize: 400, minSize: 1 },
    build(env, splits) {
      env.fromSource(splitSource(splits), { name: 'transfers', uid: 'transfers' })
        .keyBy((t: Transfer) => t.account)
        .process<Booking>({
          processElement(t: Transfer, ctx, out) {
            const balance = ctx.getState<number>({ kind: 'value', name: 'balance' });
            const next = (balance.value() ?? 0) + t.amount;
            balance.update(next);
            out.collect({ account: t.account, balance: next, transferId: t.id, amount: t.amount });
          },
        }, { name: 'balances', uid: 'balances' })
        .sinkTo(twoPhaseCommitSink('ledger', sink), { name: 'ledger', uid: 'ledger' });
    },
  });
}

export default ledgerJob('ledger', () => new LedgerSink());

export const commitsInSnapshotJob = ledgerJob('ledger-commits-in-snapshot', () => new CommitsInSnapshotLedgerSink());
