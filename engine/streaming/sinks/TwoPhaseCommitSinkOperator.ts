/**
 * A two-phase-commit sink over the transactional store, with Flink's TwoPhaseCommitSinkFunction
 * semantics (reference 5.4): one transaction per checkpoint epoch; the snapshot for checkpoint c
 * pre-commits the current transaction, files it as pending for c and begins the next one;
 * `notifyCheckpointComplete(c)` commits every pending transaction with id ≤ c, in order; an
 * abort notification does nothing. Without checkpointing the single transaction is pre-committed
 * and committed at the end of input.
 *
 * Recovery (`initializeState`), at the same or another parallelism, as KafkaSink does it:
 * 1. fence older attempts of (sink, subtask) with initTransactions, and fence every removed
 *    subtask index j (j ≥ parallelism) this subtask is responsible for: j ≡ subtask (mod
 *    parallelism), so each removed index is fenced by exactly one new subtask (KafkaSink's
 *    TransactionAborter probes the ids of subtasks subtask + k·parallelism the same way). The
 *    removed indices are those below the previous parallelism, recorded in every state element;
 *    a subtask that got no element probes the store for used partitions instead, stopping at the
 *    first unused one, as TransactionAborter stops at the first unused transactional id;
 * 2. for every restored element, whichever old subtask wrote it (the round robin of the state
 *    assignment may hand this subtask elements of several, removed ones included): commit every
 *    pending transaction (idempotently: it may be committed already), then abort the transaction
 *    that was open at the restored snapshot; both act on other subtasks' partitions through
 *    `bySubtask`;
 * 3. in its own partition and each removed one it fenced, abort every transaction of an older
 *    attempt that is lingering: open, or pre-committed for a checkpoint after the restored one
 *    (the task's restored checkpoint id, or the elements' when the context has none; without
 *    either, every pre-committed one) and not recovered here. A transaction pre-committed for the restored
 *    checkpoint or an earlier one is left alone: some element of the restored state holds it, and
 *    the subtask that element went to commits it;
 * 4. begin a fresh transaction.
 * At unchanged parallelism steps 1 to 3 touch only the subtask's own partition, as before.
 * A restore that aborts a lingering transaction of another (removed) subtask index, or aborts one
 * at a changed parallelism, marks `lingering-transaction-aborted`; a same-parallelism failover's
 * lingering aborts are ordinary (trace `sink.abort-lingering` only) and do not mark.
 *
 * Each step on a transaction (begin, write, pre-commit, commit, abort on close, and the
 * recovery's commit and abort of restored transactions) goes through TransactionSteps: the
 * store calls themselves, or a user's TwoPhaseCommitSinkFunction performing the step on a
 * handle (`create`). Fencing, the lingering aborts of step 3, the state and the pending list
 * stay here whichever performs the steps, as KafkaSink's TransactionAborter is no user code.
 *
 * Transaction ids are (sink name, subtask, attempt number, epoch); epochs count from 0 per
 * attempt, so no id is reused. Each written record is `{ value, split, offset, tag, attempt,
 * subtask }` ({@link TransactionalSinkRecord}).
 *
 * Planted bug `sink-commits-only-notified` (mutants.md 47's relative): a completion commits only
 * the transaction pending for exactly that checkpoint, so a lost or reordered notification leaves
 * earlier transactions uncommitted. Planted bug `sink-requires-notified-pending` (47, FLINK-10377):
 * a completion with no transaction pending for exactly its id throws and fails the task. Planted
 * classic mistake `sink-commits-in-snapshot`: the snapshot commits the transaction it pre-commits.
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.TwoPhaseCommitSinkFunction
 * @see org.apache.flink.connector.kafka.sink.KafkaWriter (abortLingeringTransactions),
 *      TransactionAborter, KafkaCommitter (recovery commits of transactions of any subtask)
 *
 * Invariants: pending checkpoint ids strictly increase; the current transaction is open and of
 * this attempt; no transaction is both current and pending; after `finish` with checkpointing
 * on, no new transaction begins.
 */
import { FencedError } from '../../api/TransactionalStore.ts';
import type {
  TransactionalStore, TransactionId, TransactionInfo,
} from '../../api/TransactionalStore.ts';
import { assert } from '../../util/assert.ts';
import { DefaultOperatorStateBackend } from '../../state/DefaultOperatorStateBackend.ts';
import type { ListState } from '../../state/State.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import type { TwoPhaseCommitSinkFunctionFactory } from '../api/TwoPhaseCommitSinkFunction.ts';
import { AbstractStreamOperator } from '../operators/AbstractStreamOperator.ts';
import {
  operatorStateElements, operatorSubtaskState, readRestoredState,
} from '../operators/OperatorSubtaskState.ts';
import {
  withLiveRead, type OperatorSnapshot, type StreamOperatorContext,
} from '../operators/StreamOperator.ts';
import { functionSteps, storeSteps, type TransactionSteps } from './TransactionSteps.ts';

/** The planted-bug switch of this sink. */
export const SINK_COMMITS_ONLY_NOTIFIED = 'sink-commits-only-notified';

/**
 * Planted bug 47 (FLINK-10377): notifyCheckpointComplete(n) requires a transaction pending for
 * exactly n (mutants.md's form; Flink's checkState asked for any pending one) and throws
 * otherwise, which fails the task. A finished sink pre-commits nothing at later checkpoints, so
 * when its final checkpoint's notification is lost, the next notification finds none for its id.
 */
export const SINK_REQUIRES_NOTIFIED_PENDING = 'sink-requires-notified-pending';

/**
 * Planted classic mistake: the sink commits its transaction in snapshotState, right after the
 * pre-commit, instead of when the checkpoint's completion is notified, so output becomes visible
 * for a checkpoint that may never complete and is written again by the replay after a restore.
 * The transaction stays pending as usual (its later commit is a no-op).
 */
export const SINK_COMMITS_IN_SNAPSHOT = 'sink-commits-in-snapshot';

/** The operator list state holding the sink's transactions. */
export const TWO_PHASE_COMMIT_SINK_STATE = 'TwoPhaseCommitSinkState';

/** What one record looks like inside a transaction. */
export interface TransactionalSinkRecord {
  readonly value: unknown;
  readonly split: number;
  readonly offset: number;
  readonly tag: string;
  /** The attempt number of the subtask that wrote it. */
  readonly attempt: number;
  readonly subtask: number;
}

/**
 * One element of the sink's checkpointed list state (Flink's TwoPhaseCommitSinkFunction.State,
 * plus what KafkaSink reads from its context on restore): one per subtask and snapshot.
 */
export interface TwoPhaseCommitSinkState {
  /** The transaction open at snapshot time (null after finish). */
  readonly pendingTransaction: TransactionId | null;
  /** Pre-committed transactions by checkpoint id, ascending. */
  readonly pendingCommit: readonly (readonly [number, TransactionId])[];
  /** The id of the checkpoint (or savepoint) this element was snapshotted for. */
  readonly checkpointId: number;
  /** The parallelism of the sink when it wrote this element. */
  readonly parallelism: number;
}

/** Constructor options of {@link TwoPhaseCommitSinkOperator}. */
export interface TwoPhaseCommitSinkOperatorOptions {
  readonly uid: string;
  /** The sink's name in the transactional store. */
  readonly sinkName: string;
  readonly ctx: StreamOperatorContext;
  /** Checkpointing on: commit on completion; off: commit at the end of input. */
  readonly checkpointingEnabled: boolean;
  /**
   * Makes the subtask's user sink function, which then performs every transaction step
   * (TransactionSteps.ts); absent: the steps are the store calls of the built-in sink.
   */
  readonly create?: TwoPhaseCommitSinkFunctionFactory;
}

/** The two-phase-commit sink; see the file comment. */
export class TwoPhaseCommitSinkOperator extends AbstractStreamOperator {
  private readonly ctx: StreamOperatorContext;
  private readonly store: TransactionalStore;
  private readonly sinkName: string;
  private readonly checkpointingEnabled: boolean;
  private readonly steps: TransactionSteps;
  private readonly stateBackend = new DefaultOperatorStateBackend();
  private readonly state: ListState<TwoPhaseCommitSinkState>;
  private current: TransactionId | undefined;
  private nextEpoch = 0;
  private pending: [number, TransactionId][] = [];
  private finished = false;
  private unregisterInvariants: (() => void) | undefined;

  constructor(options: TwoPhaseCommitSinkOperatorOptions) {
    super(options.uid);
    this.ctx = options.ctx;
    this.store = options.ctx.env.transactionalStore;
    this.sinkName = options.sinkName;
    this.checkpointingEnabled = options.checkpointingEnabled;
    this.steps = options.create === undefined
      ? storeSteps({ store: this.store, subtask: this.subtask, attempt: this.attempt }, options.ctx)
      : functionSteps(options.create, options.ctx);
    this.state = this.stateBackend.getListState<TwoPhaseCommitSinkState>(
      TWO_PHASE_COMMIT_SINK_STATE);
  }

  private get subtask(): number {
    return this.ctx.subtaskIndex;
  }

  private get attempt(): number {
    return this.ctx.attemptNumber;
  }

  /**
   * Fences, recovers (see the file comment, steps 1 to 3) and begins the first transaction.
   * `restored`: undefined, or what readRestoredState reads (OperatorStateHandles whose
   * TWO_PHASE_COMMIT_SINK_STATE elements may come from several old subtasks).
   * @throws FencedError when a newer attempt of this subtask exists already;
   *         TransactionStateError when a restored pending transaction was aborted (lost output).
   */
  override initializeState(restored: unknown): void {
    const restoredStates = operatorStateElements<TwoPhaseCommitSinkState>(
      readRestoredState(restored, this.uid), TWO_PHASE_COMMIT_SINK_STATE);
    const restore = restoreOf(restoredStates, this.ctx.restoredCheckpointId);
    const parallelism = this.ctx.parallelism;
    const rescaled = restore.previousParallelism !== undefined
      && restore.previousParallelism !== parallelism;
    this.store.initTransactions(this.sinkName, this.subtask, this.attempt);
    const removed = this.removedSubtasksToClean(restore.previousParallelism);
    for (const j of removed) this.store.initTransactions(this.sinkName, j, this.attempt);
    const recovered = new Set<string>();
    for (const s of restoredStates) {
      for (const [checkpointId, id] of s.pendingCommit) {
        this.steps.recoverAndCommit(id);
        recovered.add(txnKey(id));
        this.trace('sink.recover-and-commit', id, { checkpoint: checkpointId });
      }
      const open = s.pendingTransaction;
      if (open !== null) {
        // Only a transaction that may mark needs its status (a store look-up, never traced).
        const before = open.subtask >= parallelism || rescaled
          ? this.store.list(this.sinkName, open.subtask).find((t) => txnKey(t.id) === txnKey(open))
          : undefined;
        this.steps.recoverAndAbort(open);
        recovered.add(txnKey(open));
        this.trace('sink.recover-and-abort', open);
        if (before !== undefined) this.markIfLingering(before, rescaled, restore.checkpointId);
      }
    }
    for (const j of [this.subtask, ...removed]) {
      for (const info of this.store.list(this.sinkName, j)) {
        if (!this.isLingering(info, recovered, restore.checkpointId)) continue;
        this.store.abort(info.id, this.attempt, this.subtask);
        this.trace('sink.abort-lingering', info.id, { status: info.status, records: info.records });
        this.markIfLingering(info, rescaled, restore.checkpointId);
      }
    }
    this.current = this.beginTransaction();
  }

  /**
   * The removed subtask indices this subtask fences and cleans: j = subtask + k·parallelism
   * (k ≥ 1) below `previousParallelism`; without it (no element restored here), every such j
   * whose partition the store knows, up to the first it does not.
   */
  private removedSubtasksToClean(previousParallelism: number | undefined): number[] {
    const out: number[] = [];
    const p = this.ctx.parallelism;
    for (let j = this.subtask + p; ; j += p) {
      const known = previousParallelism !== undefined
        ? j < previousParallelism
        : this.store.list(this.sinkName, j).length > 0;
      if (!known) return out;
      out.push(j);
    }
  }

  /**
   * A transaction of an older attempt, not recovered here, that is open, or pre-committed for
   * a checkpoint after `restoredCheckpointId` (or when either id is unknown).
   */
  private isLingering(
    info: TransactionInfo,
    recovered: ReadonlySet<string>,
    restoredCheckpointId: number | undefined,
  ): boolean {
    if (info.id.attempt >= this.attempt || recovered.has(txnKey(info.id))) return false;
    if (info.status === 'open') return true;
    if (info.status !== 'pre-committed') return false;
    return restoredCheckpointId === undefined || info.checkpointId === undefined
      || info.checkpointId > restoredCheckpointId;
  }

  /**
   * Marks `lingering-transaction-aborted` for a transaction this restore just aborted, given its
   * status before: one still open or pre-committed of a removed subtask index, or, at a changed
   * parallelism, one pre-committed for a checkpoint after the restored one. The open transaction
   * of a kept index is the ordinary recoverAndAbort, and a same-parallelism failover's aborts are
   * ordinary too: neither marks (the mark tells a rescale's cleanup happened).
   */
  private markIfLingering(
    before: TransactionInfo, rescaled: boolean, restoredCheckpointId: number | undefined,
  ): void {
    const { id, status } = before;
    if (status !== 'open' && status !== 'pre-committed') return;
    const removedIndex = id.subtask >= this.ctx.parallelism;
    const preCommittedAfter = status === 'pre-committed' && (restoredCheckpointId === undefined
      || before.checkpointId === undefined || before.checkpointId > restoredCheckpointId);
    if (!removedIndex && !(rescaled && preCommittedAfter)) return;
    this.ctx.env.tracer.mark('lingering-transaction-aborted', {
      task: this.ctx.taskName, sink: id.sink, subtask: id.subtask, attempt: id.attempt,
      epoch: id.epoch, status, restoredCheckpoint: restoredCheckpointId ?? -1,
    });
  }

  override open(): void {
    this.unregisterInvariants = this.ctx.env.invariants.register(
      `2pc-sink/${this.ctx.taskName}/${this.uid}`,
      () => this.checkInvariants());
  }

  /** Writes the record, with its identity and this attempt, into the current transaction. */
  processElement(record: StreamRecord): void {
    const current = this.current;
    if (current === undefined) {
      assert(false, `sink ${this.uid} got a record without an open transaction`);
    }
    this.steps.write(current, record);
  }

  /** Without checkpointing: the end of input commits the only transaction. */
  override endInput(): void {
    if (!this.checkpointingEnabled) this.commitAtEndOfInput();
  }

  /** No transaction begins after this; the next snapshot pre-commits the last one. */
  override finish(): void {
    this.finished = true;
    if (!this.checkpointingEnabled) this.commitAtEndOfInput();
  }

  /** Aborts the open transaction, best effort (a fenced zombie cannot, and need not). */
  override close(): void {
    const current = this.current;
    this.current = undefined;
    this.unregisterInvariants?.();
    this.unregisterInvariants = undefined;
    if (current === undefined) return;
    try {
      this.steps.abort(current);
      this.trace('sink.aborted-on-close', current);
    } catch (e) {
      if (!(e instanceof FencedError)) throw e;
    }
  }

  /**
   * The pre-commit: pre-commits the current transaction as pending for `checkpointId`, begins
   * the next (unless finished) and stores `{ pendingTransaction, pendingCommit }`.
   */
  override snapshotState(checkpointId: number): OperatorSnapshot {
    const last = this.pending[this.pending.length - 1];
    assert(last === undefined || checkpointId > last[0],
      () => `sink ${this.uid} snapshot ${checkpointId} not after pending ${String(last?.[0])}`);
    const current = this.current;
    if (current !== undefined) {
      this.steps.preCommit(current, checkpointId);
      this.trace('sink.pre-committed', current, { checkpoint: checkpointId });
      if (this.ctx.env.bugs.has(SINK_COMMITS_IN_SNAPSHOT)) {
        // The planted mistake: visible at snapshot time, before the checkpoint is complete.
        this.steps.commit(current);
        this.trace('sink.committed', current, { checkpoint: checkpointId, notified: -1 });
      }
      this.pending.push([checkpointId, current]);
      this.current = this.finished ? undefined : this.beginTransaction();
    }
    const element: TwoPhaseCommitSinkState = Object.freeze({
      pendingTransaction: this.current ?? null,
      pendingCommit: Object.freeze(this.pending.map(([c, id]) => Object.freeze([c, id] as const))),
      checkpointId,
      parallelism: this.ctx.parallelism,
    });
    this.state.update([element]);
    const handleId = `${this.ctx.taskName}/${this.uid}/chk-${checkpointId}`;
    const sizeBytes = 32 * (1 + this.pending.length);
    // Planted bug 23 (FLINK-9263): the async part reads the sink's list state when it runs.
    return withLiveRead(this.ctx.env.bugs, this.backendSnapshot(handleId, sizeBytes),
      () => this.backendSnapshot(handleId, sizeBytes));
  }

  /** A frozen copy of the sink's state backend now, as one handle `handleId`. */
  private backendSnapshot(handleId: string, sizeBytes: number): OperatorSnapshot {
    const handle = this.stateBackend.snapshot(handleId);
    return {
      operatorUid: this.uid,
      data: operatorSubtaskState({ managedOperatorState: handle === null ? [] : [handle] }),
      sizeBytes,
    };
  }

  /**
   * Commits every pending transaction with checkpoint id ≤ `checkpointId`, in order, removing
   * each; if commits fail, all are still attempted and the first error is rethrown.
   */
  override notifyCheckpointComplete(checkpointId: number): void {
    if (this.ctx.env.bugs.has(SINK_REQUIRES_NOTIFIED_PENDING)
      && !this.pending.some(([c]) => c === checkpointId)) {
      // Planted bug 47 (FLINK-10377): a precondition, not an assertion: it fails the task.
      throw new Error(`checkpoint ${checkpointId} completed, but no transaction pending for it`);
    }
    const onlyExact = this.ctx.env.bugs.has(SINK_COMMITS_ONLY_NOTIFIED);
    const due = this.pending.filter(([c]) => (onlyExact ? c === checkpointId : c <= checkpointId));
    if (due.length === 0) return;
    this.pending = this.pending.filter((p) => !due.includes(p));
    let firstError: { error: unknown } | undefined;
    for (const [c, id] of due) {
      try {
        this.steps.commit(id);
        this.trace('sink.committed', id, { checkpoint: c, notified: checkpointId });
      } catch (error) {
        firstError ??= { error };
      }
    }
    if (firstError !== undefined) throw firstError.error;
  }

  /** Nothing: the transaction stays pending for the next completed checkpoint. */
  override notifyCheckpointAborted(_checkpointId: number): void {}

  /**
   * Decodes a snapshot's (or a restore's) sink state to plain JSON, one element per piece.
   * @throws AssertionError when `data` is not an OperatorSubtaskState.
   */
  static decode(data: unknown): TwoPhaseCommitSinkState[] {
    return operatorStateElements<TwoPhaseCommitSinkState>(readRestoredState(data, 'sink'),
      TWO_PHASE_COMMIT_SINK_STATE);
  }

  /** The open transaction and the pending ones (tests). */
  transactions(): { current: TransactionId | undefined; pending: [number, TransactionId][] } {
    return { current: this.current, pending: this.pending.map(([c, id]) => [c, id]) };
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    let last = -Infinity;
    for (const [c, id] of this.pending) {
      assert(c > last, 'pending checkpoint ids not increasing');
      last = c;
      assert(this.current === undefined || txnKey(id) !== txnKey(this.current),
        'a transaction is both current and pending');
    }
    if (this.current !== undefined) {
      assert(this.current.attempt === this.attempt && this.current.subtask === this.subtask,
        'current transaction of another attempt');
    }
  }

  private beginTransaction(): TransactionId {
    const id: TransactionId = Object.freeze({
      sink: this.sinkName, subtask: this.subtask, attempt: this.attempt, epoch: this.nextEpoch++,
    });
    this.steps.begin(id);
    this.trace('sink.transaction-begun', id);
    return id;
  }

  private commitAtEndOfInput(): void {
    const current = this.current;
    if (current === undefined) return;
    this.current = undefined;
    this.steps.preCommit(current, undefined);
    this.steps.commit(current);
    this.trace('sink.committed-at-end-of-input', current);
  }

  private trace(
    type: string,
    id: TransactionId,
    extra: Record<string, string | number> = {},
  ): void {
    this.ctx.env.tracer.event(type, {
      task: this.ctx.taskName, sink: id.sink, subtask: id.subtask, attempt: id.attempt,
      epoch: id.epoch, ...extra,
    });
  }
}

/**
 * The restored checkpoint id (the task's, as KafkaWriter reads its context's, else the
 * elements') and the sink's parallelism at the snapshot (the elements'; undefined without
 * elements). Every element of one snapshot carries the same.
 */
function restoreOf(states: readonly TwoPhaseCommitSinkState[], fromTask: number | undefined): {
  checkpointId: number | undefined; previousParallelism: number | undefined;
} {
  let checkpointId: number | undefined = fromTask;
  let previousParallelism: number | undefined;
  for (const s of states) {
    checkpointId = Math.max(checkpointId ?? s.checkpointId, s.checkpointId);
    previousParallelism = Math.max(previousParallelism ?? s.parallelism, s.parallelism);
  }
  return { checkpointId, previousParallelism };
}

function txnKey(id: TransactionId): string {
  return `${id.sink}/${id.subtask}/${id.attempt}/${id.epoch}`;
}
