/**
 * A bank ledger as a job module (docs/jobs.md): transfers go through
 * source -> keyBy(account) -> the account's balance in ValueState and a booking entry (the
 * transfer and its fee) per transfer -> a custom two-phase-commit sink that buffers each
 * transaction's entries and writes them at pre-commit, as Flink's Kafka- and JDBC-style sinks
 * batch their writes.
 *
 * Exports:
 * - `default`: the correct job; `checkpoint-sim explore --job ./examples/ledger.ts` passes.
 * - `commitsInSnapshotJob`: the same job whose sink commits during the checkpoint's snapshot
 *   (the classic two-phase-commit mistake); explore finds an end-to-end-exactly-once violation.
 *
 * Each account's transfers sit in one split, so its transfers reach the keyed operator in input
 * order (Flink keeps the order of one channel; records of one key from two splits interleave as
 * scheduling decides). The balance would not need it (a sum is the same in any order), but a
 * job that writes an order-dependent value (a running balance beside each entry) would.
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

/**
 * What the ledger commits per transfer: a booking entry (the transfer and its fee, cents). The
 * running balance stays in the keyed state, where the oracles compare it; it is not written with
 * each entry, because in at-least-once mode a replayed transfer is applied to the balance again,
 * and the balance written beside a later entry then depends on where the replay fell, which no
 * fold of the input can predict (docs/jobs.md, "Limitations").
 */
export interface Booking {
  readonly account: string;
  readonly transferId: number;
  readonly amount: number;
  readonly fee: number;
}

/** The fee of a transfer: 1% of its size, at least 1 cent. A pure function of the transfer. */
export function feeOf(amount: number): number {
  return Math.max(1, Math.round(Math.abs(amount) / 100));
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
            const fee = feeOf(t.amount);
            balance.update((balance.value() ?? 0) + t.amount - fee);
            out.collect({ account: t.account, transferId: t.id, amount: t.amount, fee });
          },
        }, { name: 'balances', uid: 'balances' })
        .sinkTo(twoPhaseCommitSink('ledger', sink), { name: 'ledger', uid: 'ledger' });
    },
  });
}

export default ledgerJob('ledger', () => new LedgerSink());

export const commitsInSnapshotJob = ledgerJob('ledger-commits-in-snapshot', () => new CommitsInSnapshotLedgerSink());
