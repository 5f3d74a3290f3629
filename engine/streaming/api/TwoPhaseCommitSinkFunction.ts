/**
 * The base of a user's own two-phase-commit sink: the steps a transactional sink performs, each
 * on a handle to one transaction in the simulated transactional store, with defaults that do
 * the plain thing. A user subclasses it and overrides some steps (buffer records in `invoke` and
 * write them in `preCommit`, say), and `twoPhaseCommitSink(name, () => new MySink())` runs it.
 *
 * The protocol stays the engine's: the sink operator (TwoPhaseCommitSinkOperator) keeps the
 * checkpointed state, the pending list, fencing, the recovery order and the rescale cleanup, and
 * calls the function only to perform a step: when a transaction begins, for each record, at a
 * checkpoint's snapshot, on its completion, on recovery and on close. It never calls the store
 * for a step the function performs, so a function that commits too early (inside `preCommit`,
 * that is during the snapshot) makes output visible before the checkpoint completes, as the same
 * mistake would in Flink.
 *
 * How a sink's output reaches the oracles: what counts is the committed records in the
 * transactional store under the sink's name. Each record is written with its identity
 * (`split`, `offset`, `tag` of the StreamRecord the sink received, and its `value`); the store
 * adds the writing `attempt` and `subtask`. The end-to-end-exactly-once oracle matches the
 * committed records, by identity and value, against the reference fold's output of the whole
 * input: a record written under another identity or value, written twice, or committed by two
 * attempts shows as missing, surplus or different.
 *
 * Errors thrown by a step (the function's own, or the store's TransactionStateError and
 * FencedError it lets through) fail the task, as any user function's do: the job restarts by its
 * restart strategy and the sink recovers from the last completed checkpoint.
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction
 */
import type { TransactionId } from '../../api/TransactionalStore.ts';
import type { StreamRecord } from './StreamRecord.ts';

/**
 * What a sink function learns of its subtask before its first step (Flink's RuntimeContext:
 * getIndexOfThisSubtask, getNumberOfParallelSubtasks, getAttemptNumber).
 */
export interface SinkFunctionContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  /** The subtask's attempt number, from 0; it grows with every restart of the subtask. */
  readonly attemptNumber: number;
  /** The checkpoint or savepoint the subtask was restored from; undefined on a fresh start. */
  readonly restoredCheckpointId: number | undefined;
}

/**
 * A handle on one transaction of the simulated transactional store, as a step receives it (the
 * `TXN` of Flink's TwoPhaseCommitSinkFunction<IN, TXN, CONTEXT>). Every call acts at once
 * (synchronously) for the calling subtask's attempt.
 */
export interface SinkTransaction {
  /** (sink name, subtask, attempt, epoch) of the transaction; never reused. */
  readonly id: TransactionId;
  /**
   * Opens the transaction in the store.
   * @throws TransactionStateError if it exists already; FencedError for a fenced attempt.
   */
  begin(): void;
  /**
   * Appends `record` to the open transaction, stored as `{ value, split, offset, tag, attempt,
   * subtask }` (TransactionalSinkRecord); the oracles match it by `split`, `offset`, `tag` and
   * `value`, so a record written as it was received keeps its identity.
   * @throws TypeError when `record` is not an object with integer `split` and `offset` and a
   *   string `tag`; TransactionStateError unless the transaction is open; FencedError.
   */
  write(record: StreamRecord): void;
  /**
   * Open -> pre-committed (durable, not visible), for the checkpoint being snapshotted (none at
   * the end of input without checkpointing).
   * @throws TransactionStateError unless open; FencedError.
   */
  preCommit(): void;
  /**
   * Makes a pre-committed transaction's records visible; committing a committed one does
   * nothing (a recovery may commit again).
   * @throws TransactionStateError if open, aborted or unknown; FencedError.
   */
  commit(): void;
  /**
   * Aborts an open or pre-committed transaction; an aborted one stays aborted, and a committed
   * one stays committed (nothing is left to roll back: Flink's recoverAndAbort of a Kafka
   * transaction re-initialises its transactional id, which aborts only what is still open).
   * @throws TransactionStateError if unknown; FencedError.
   */
  abort(): void;
}

/**
 * Makes one subtask's sink function; called once per subtask attempt, as Flink deserializes one
 * function object per subtask.
 */
export type TwoPhaseCommitSinkFunctionFactory<IN = unknown> = () => TwoPhaseCommitSinkFunction<IN>;

/**
 * The steps of a two-phase-commit sink, each performed on the transaction handle it is given.
 * Every default does the plain thing: begin, write the record as received, pre-commit, commit,
 * abort; recovery commits (recoverAndCommit) or aborts (recoverAndAbort). See the file comment
 * for who calls them when, and how the output is judged.
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction
 *      (beginTransaction, invoke, preCommit, commit, abort, recoverAndCommit, recoverAndAbort)
 */
export class TwoPhaseCommitSinkFunction<IN = unknown> {
  /**
   * Called once, before any other step. Flink opens a rich function after its initializeState;
   * here it comes first, so the recovery steps can already see the subtask.
   */
  open(_context: SinkFunctionContext): void {}

  /**
   * A new transaction: on start, after each recovery and after each snapshot (unless the input
   * has ended). Default `txn.begin()`.
   */
  beginTransaction(txn: SinkTransaction): void {
    txn.begin();
  }

  /** One record for the current transaction. Default: `txn.write(record)`, as received. */
  invoke(txn: SinkTransaction, record: StreamRecord<IN>): void {
    txn.write(record);
  }

  /**
   * The snapshot of a checkpoint (or the end of input without checkpointing): flush and
   * pre-commit the current transaction. Default `txn.preCommit()`. Committing here is the
   * classic mistake: the output becomes visible before the checkpoint completes.
   */
  preCommit(txn: SinkTransaction): void {
    txn.preCommit();
  }

  /**
   * A completed checkpoint covers this pre-committed transaction (or the input ended without
   * checkpointing): make it visible. Default `txn.commit()`.
   */
  commit(txn: SinkTransaction): void {
    txn.commit();
  }

  /** The open transaction of a closing subtask is dropped. Default `txn.abort()`. */
  abort(txn: SinkTransaction): void {
    txn.abort();
  }

  /**
   * On restore, a transaction the restored state holds as pre-committed: commit it (it may be
   * committed already). Default `txn.commit()`.
   */
  recoverAndCommit(txn: SinkTransaction): void {
    txn.commit();
  }

  /**
   * On restore, the transaction that was open at the restored snapshot: abort it. Default
   * `this.abort(txn)`, as in Flink.
   */
  recoverAndAbort(txn: SinkTransaction): void {
    this.abort(txn);
  }
}
