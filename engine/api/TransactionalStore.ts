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
  /** Open -> pre-committed (flushed, durable, not visible). @throws as above. */
  preCommit(id: TransactionId, by: number): void;
  /**
   * Makes a pre-committed transaction visible; committing a committed one does nothing
   * (recoverAndCommit is idempotent). @throws FencedError, TransactionStateError if aborted or
   * unknown.
   */
  commit(id: TransactionId, by: number): void;
  /** Aborts an open or pre-committed transaction; aborting an aborted one does nothing. */
  abort(id: TransactionId, by: number): void;
  /** The transactions of (sink, subtask), in creation order. */
  list(sink: string, subtask: number): TransactionInfo[];
}
