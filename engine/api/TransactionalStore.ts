/**
 * The transactional store that two-phase-commit sinks write to (a Kafka-like external system).
 * It survives every crash and is reachable from every live host.
 *
 * A transaction id is (sink, subtask, attempt number, checkpoint epoch), so ids are never
 * reused. Fencing works like Kafka's producer epochs: once attempt `a` has called
 * {@link TransactionalStore.initTransactions} for (sink, subtask), every later call made by an
 * attempt older than `a` for that (sink, subtask) throws {@link FencedError}. Readers see only
 * committed records. Commit is idempotent per id.
 *
 * A pre-commit may record the checkpoint id the transaction was pre-committed for, so a restore
 * can tell a transaction some restored state will commit (id up to the restored one) from a
 * lingering one (id after it), whichever subtask's state it ends up in. A restore at another
 * parallelism commits and aborts transactions of other subtasks' partitions: `commit` and
 * `abort` then name the calling subtask (`bySubtask`), and the fence checked is that of the
 * caller's own partition, as KafkaSink's committer resumes a recovered transaction under the
 * transaction's own producer identity, which nothing re-initialises after the restore. Every
 * other call acts on the caller's own partition.
 *
 * Calls are synchronous (the sink blocks its task thread, as a Kafka producer's flush and commit
 * do); the engine charges their cost to the calling task through its cost model.
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction
 */

/** Identity of one sink transaction. */
export interface TransactionId {
  readonly sink: string;
  readonly subtask: number;
  readonly attempt: number;
  readonly epoch: number;
}

/** Lifecycle of a transaction. */
export type TransactionStatus = 'open' | 'pre-committed' | 'committed' | 'aborted';

/** A transaction as listed by the store. */
export interface TransactionInfo {
  readonly id: TransactionId;
  readonly status: TransactionStatus;
  readonly records: number;
  /** The checkpoint id it was pre-committed for; absent until then, or at the end of input. */
  readonly checkpointId?: number;
}

/** A call from a fenced (older) attempt. */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}

/** A call that breaks the transaction protocol (write to a committed transaction, reuse of an id). */
export class TransactionStateError extends Error {
  override readonly name = 'TransactionStateError';
}

/** The transactional store as seen from one host. `by` is the calling attempt's number. */
export interface TransactionalStore {
  /** Fences every attempt of (sink, subtask) older than `by`. */
  initTransactions(sink: string, subtask: number, by: number): void;
  /** Opens a new transaction. @throws FencedError, TransactionStateError if the id exists. */
  begin(id: TransactionId, by: number): void;
  /** Appends a record to an open transaction. @throws FencedError, TransactionStateError. */
  write(id: TransactionId, record: unknown, by: number): void;
  /**
   * Open -> pre-committed (flushed, durable, not visible), recording `checkpointId` (the
   * checkpoint it is pre-committed for) when given. @throws as above.
   */
  preCommit(id: TransactionId, by: number, checkpointId?: number): void;
  /**
   * Makes a pre-committed transaction visible; committing a committed one does nothing
   * (recoverAndCommit is idempotent). `bySubtask` (default `id.subtask`) is the calling
   * subtask: the caller must not be fenced on (sink, bySubtask). @throws FencedError,
   * TransactionStateError if aborted or unknown.
   */
  commit(id: TransactionId, by: number, bySubtask?: number): void;
  /**
   * Aborts an open or pre-committed transaction; aborting an aborted one does nothing.
   * `bySubtask` as for commit. @throws FencedError, TransactionStateError if committed or unknown.
   */
  abort(id: TransactionId, by: number, bySubtask?: number): void;
  /** The transactions of (sink, subtask), in creation order (empty for an unused subtask). */
  list(sink: string, subtask: number): TransactionInfo[];
}
