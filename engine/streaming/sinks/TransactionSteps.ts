/**
 * The steps the two-phase-commit sink operator has performed on its transactions: either on the
 * transactional store directly (the built-in sink, {@link storeSteps}), or by a user's
 * {@link TwoPhaseCommitSinkFunction} on a {@link SinkTransaction} handle ({@link functionSteps}).
 * The operator decides which step happens when (its state, the pending list, fencing, recovery
 * order, rescale cleanup); a step only performs it.
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction (the
 *      abstract methods its final lifecycle methods call)
 *
 * Invariants: `storeSteps` makes exactly the store calls the operator made before user functions
 * existed (the behaviour fingerprint depends on it); `functionSteps` calls the user function once
 * per step and the store only through the handle the function is given.
 */
import { AssertionError } from '../../util/assert.ts';
import type { TransactionalStore, TransactionId } from '../../api/TransactionalStore.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import type {
  SinkTransaction, TwoPhaseCommitSinkFunction, TwoPhaseCommitSinkFunctionFactory,
} from '../api/TwoPhaseCommitSinkFunction.ts';
import type { StreamOperatorContext } from '../operators/StreamOperator.ts';
import type { TransactionalSinkRecord } from './TwoPhaseCommitSinkOperator.ts';

/**
 * The trace event of an abort that found its transaction committed: a recovery's (a restore of a
 * snapshot older than a commit, such as a checkpoint older than a stop's synchronous savepoint),
 * or a user function's.
 */
export const SINK_ABORT_OF_COMMITTED_EVENT = 'sink.abort-of-committed';

/**
 * One subtask attempt's transaction steps. Every id is one the operator began or restored.
 * Errors of the store (FencedError, TransactionStateError) or of a user function propagate.
 */
export interface TransactionSteps {
  /** Opens `id` (a new transaction of this attempt). */
  begin(id: TransactionId): void;
  /** Writes `record`, with its identity, into the open `id`. */
  write(id: TransactionId, record: StreamRecord): void;
  /** Pre-commits `id` for `checkpointId` (undefined: the end of input). */
  preCommit(id: TransactionId, checkpointId: number | undefined): void;
  /** Commits `id`, of this subtask: a completed checkpoint's, or the end of input's. */
  commit(id: TransactionId): void;
  /** Aborts `id`, the open transaction of this subtask, on close. */
  abort(id: TransactionId): void;
  /** On restore, commits `id` (of any old subtask) that the restored state holds as pending. */
  recoverAndCommit(id: TransactionId): void;
  /** On restore, aborts `id` (of any old subtask), open at the restored snapshot. */
  recoverAndAbort(id: TransactionId): void;
}

/** Where the steps act: the store, and the calling subtask attempt. */
interface StepTarget {
  readonly store: TransactionalStore;
  readonly subtask: number;
  readonly attempt: number;
}

/**
 * Aborts `id` for the calling subtask attempt unless it is committed already; a committed one
 * stays committed and `SINK_ABORT_OF_COMMITTED_EVENT` is traced. This is Kafka's behaviour for a
 * recovery: FlinkKafkaProducer.recoverAndAbort (and KafkaSink's lingering-transaction abort)
 * re-initialises the transactional id, which aborts only a transaction still open, so a restore
 * of a checkpoint older than a commit (a failover after a stop's synchronous savepoint committed)
 * shows its duplicates to the oracles instead of failing every restore. The store itself refuses
 * to abort a committed transaction, so an engine that aborts one any other way still fails.
 * The status is read only here (a store look-up, never traced).
 */
function abortUnlessCommitted(target: StepTarget, id: TransactionId, ctx: StreamOperatorContext): void {
  const { store, subtask, attempt } = target;
  const known = store.list(id.sink, id.subtask).find((t) => sameId(t.id, id));
  if (known?.status === 'committed') {
    ctx.env.tracer.event(SINK_ABORT_OF_COMMITTED_EVENT, {
      task: ctx.taskName, sink: id.sink, subtask: id.subtask, attempt: id.attempt, epoch: id.epoch,
    });
    return;
  }
  store.abort(id, attempt, subtask);
}

/**
 * The built-in sink's steps: each a direct store call, as the operator always made them, except
 * that recoverAndAbort leaves a committed transaction committed (see abortUnlessCommitted).
 */
export function storeSteps(target: StepTarget, ctx: StreamOperatorContext): TransactionSteps {
  const { store, subtask, attempt } = target;
  return {
    begin: (id) => store.begin(id, attempt),
    write: (id, record) => {
      const written: TransactionalSinkRecord = {
        value: record.value, split: record.split, offset: record.offset, tag: record.tag,
        attempt, subtask,
      };
      store.write(id, written, attempt);
    },
    preCommit: (id, checkpointId) => {
      if (checkpointId === undefined) store.preCommit(id, attempt);
      else store.preCommit(id, attempt, checkpointId);
    },
    commit: (id) => store.commit(id, attempt),
    abort: (id) => store.abort(id, attempt),
    recoverAndCommit: (id) => store.commit(id, attempt, subtask),
    recoverAndAbort: (id) => abortUnlessCommitted(target, id, ctx),
  };
}

/**
 * A user function's steps: makes the subtask's function with `create`, opens it with the
 * subtask's context, then calls it at each step with a handle on the transaction. The handle
 * acts for this subtask attempt (commit and abort name the calling subtask, so a recovery may
 * act on another subtask's partition, as the built-in sink's does). An engine AssertionError
 * the function throws (its own use of `assert`) becomes a plain Error, so it fails the task like
 * any user error instead of ending the run as an engine counterexample.
 * @throws whatever `create` or the function's `open` throws (the task fails to start).
 */
export function functionSteps(
  create: TwoPhaseCommitSinkFunctionFactory,
  ctx: StreamOperatorContext,
): TransactionSteps {
  const target: StepTarget = {
    store: ctx.env.transactionalStore, subtask: ctx.subtaskIndex, attempt: ctx.attemptNumber,
  };
  const fn: TwoPhaseCommitSinkFunction = userCall('create', () => create());
  userCall('open', () => fn.open({
    subtaskIndex: ctx.subtaskIndex, parallelism: ctx.parallelism,
    attemptNumber: ctx.attemptNumber, restoredCheckpointId: ctx.restoredCheckpointId,
  }));
  const handles = new TransactionHandles(target, ctx);
  return {
    begin: (id) => userCall('beginTransaction', () => fn.beginTransaction(handles.of(id))),
    write: (id, record) => userCall('invoke', () => fn.invoke(handles.of(id), record)),
    preCommit: (id, checkpointId) => {
      handles.preCommitFor = checkpointId;
      try {
        userCall('preCommit', () => fn.preCommit(handles.of(id)));
      } finally {
        handles.preCommitFor = undefined;
      }
    },
    commit: (id) => userCall('commit', () => fn.commit(handles.of(id))),
    abort: (id) => userCall('abort', () => fn.abort(handles.of(id))),
    recoverAndCommit: (id) => userCall('recoverAndCommit', () => fn.recoverAndCommit(handles.of(id))),
    recoverAndAbort: (id) => userCall('recoverAndAbort', () => fn.recoverAndAbort(handles.of(id))),
  };
}

/** Runs a user-function call; an engine AssertionError it throws becomes a plain Error. */
function userCall<T>(step: string, call: () => T): T {
  try {
    return call();
  } catch (e) {
    if (e instanceof AssertionError) {
      throw new Error(`two-phase-commit sink function ${step} failed: ${e.message}`, { cause: e });
    }
    throw e;
  }
}

/** The handles of one subtask attempt's transactions; the last one is kept (the current). */
class TransactionHandles {
  /** The checkpoint a handle's preCommit pre-commits for: set during the preCommit step only. */
  preCommitFor: number | undefined;
  private last: SinkTransaction | undefined;

  constructor(private readonly target: StepTarget, private readonly ctx: StreamOperatorContext) {}

  of(id: TransactionId): SinkTransaction {
    const last = this.last;
    if (last !== undefined && last.id === id) return last;
    const handle = this.create(id);
    this.last = handle;
    return handle;
  }

  private create(id: TransactionId): SinkTransaction {
    const { store, subtask, attempt } = this.target;
    return Object.freeze({
      id,
      begin: () => store.begin(id, attempt),
      write: (record: StreamRecord) => {
        checkRecord(record);
        const written: TransactionalSinkRecord = {
          value: record.value, split: record.split, offset: record.offset, tag: record.tag,
          attempt, subtask,
        };
        store.write(id, written, attempt);
      },
      preCommit: () => {
        const checkpointId = this.preCommitFor;
        if (checkpointId === undefined) store.preCommit(id, attempt);
        else store.preCommit(id, attempt, checkpointId);
      },
      commit: () => store.commit(id, attempt, subtask),
      // A handle leaves a committed transaction committed (see SinkTransaction.abort), so a
      // function that committed too early shows its duplicates to the oracles instead of failing
      // every restore.
      abort: () => abortUnlessCommitted(this.target, id, this.ctx),
    });
  }
}

/** @throws TypeError when `record` lacks the identity the oracles match by. */
function checkRecord(record: StreamRecord): void {
  if (record === null || typeof record !== 'object' || !Number.isSafeInteger(record.split)
    || !Number.isSafeInteger(record.offset) || typeof record.tag !== 'string') {
    throw new TypeError('two-phase-commit sink function wrote a record without the identity '
      + '{ value, split, offset, tag } of a received record');
  }
}

function sameId(a: TransactionId, b: TransactionId): boolean {
  return a.sink === b.sink && a.subtask === b.subtask && a.attempt === b.attempt
    && a.epoch === b.epoch;
}
