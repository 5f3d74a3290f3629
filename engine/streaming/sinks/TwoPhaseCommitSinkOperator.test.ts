import { describe, expect, test } from 'vitest';
import { FencedError, TransactionStateError,
  type TransactionId } from '../../api/TransactionalStore.ts';
import { createTestingOperatorEnv,
  type TestingOperatorEnv } from '../operators/testing/TestingOperatorEnv.ts';
import { createTestingOperatorContext } from '../operators/testing/TestingOperatorContext.ts';
import { TestingTransactionalStore } from '../operators/testing/TestingTransactionalStore.ts';
import { RoundRobinOperatorStateRepartitioner } from '../../state/RoundRobinOperatorStateRepartitioner.ts';
import { operatorSubtaskState, readRestoredState } from '../operators/OperatorSubtaskState.ts';
import type { OperatorSnapshot } from '../operators/StreamOperator.ts';
import {
  SINK_COMMITS_IN_SNAPSHOT, SINK_COMMITS_ONLY_NOTIFIED, SINK_REQUIRES_NOTIFIED_PENDING,
  TwoPhaseCommitSinkOperator, type TransactionalSinkRecord,
} from './TwoPhaseCommitSinkOperator.ts';

function sink(options: {
  env?: TestingOperatorEnv; attempt?: number; restored?: unknown; checkpointing?: boolean;
} = {}): { op: TwoPhaseCommitSinkOperator; env: TestingOperatorEnv } {
  const env = options.env ?? createTestingOperatorEnv();
  const ctx = createTestingOperatorContext({ env, attemptNumber: options.attempt ?? 0 });
  const op = new TwoPhaseCommitSinkOperator({
    uid: 'sink-3', sinkName: 'out', ctx, checkpointingEnabled: options.checkpointing ?? true,
  });
  op.initializeState(options.restored);
  op.open();
  return { op, env };
}

function write(op: TwoPhaseCommitSinkOperator, value: number): void {
  op.processElement({ value, split: 0, offset: value, tag: '' });
}

const committedValues = (env: TestingOperatorEnv): unknown[] =>
  (env.store.committed('out') as TransactionalSinkRecord[]).map((r) => r.value);

const txn = (attempt: number, epoch: number): TransactionId => (
  { sink: 'out', subtask: 0, attempt, epoch });

describe('TwoPhaseCommitSinkOperator', () => {
  test('given 42, 43, 44 with snapshots 0, 1, 2, when complete(1), then 42 and 43 commit and 2 stays pending', () => {
    const { op, env } = sink();
    write(op, 42); op.snapshotState(0);
    write(op, 43); op.snapshotState(1);
    write(op, 44); op.snapshotState(2);
    op.notifyCheckpointComplete(1);
    expect(committedValues(env)).toEqual([42, 43]);
    expect(op.transactions().pending.map(([c]) => c)).toEqual([2]);
    op.checkInvariants();
  });

  test('when complete(2) then a late complete(1) arrive, all three commit and the late one is a no-op', () => {
    const { op, env } = sink();
    write(op, 42); op.snapshotState(0);
    write(op, 43); op.snapshotState(1);
    write(op, 44); op.snapshotState(2);
    op.notifyCheckpointComplete(2);
    op.notifyCheckpointComplete(1);
    expect(committedValues(env)).toEqual([42, 43, 44]);
    expect(op.transactions().pending).toEqual([]);
    // The written records carry identity and producer.
    expect(env.store.committed('out')[0]).toEqual(
      { value: 42, split: 0, offset: 42, tag: '', attempt: 0, subtask: 0 });
  });

  test('planted bug sink-commits-only-notified: complete(2) commits only the transaction of 2',
    () => {
    const { op, env } = sink(
      { env: createTestingOperatorEnv({ bugs: [SINK_COMMITS_ONLY_NOTIFIED] }) });
    write(op, 42); op.snapshotState(0);
    write(op, 43); op.snapshotState(1);
    write(op, 44); op.snapshotState(2);
    op.notifyCheckpointComplete(2);
    expect(committedValues(env)).toEqual([44]);
    expect(op.transactions().pending.map(([c]) => c)).toEqual([0, 1]);
  });

  test('after finish, a checkpoint pre-commits nothing, and its completion commits the final transaction of the one before', () => {
    const { op, env } = sink();
    write(op, 42); op.finish(); op.snapshotState(4);
    op.snapshotState(5);
    op.notifyCheckpointComplete(5);
    expect(committedValues(env)).toEqual([42]);
    expect(op.transactions()).toEqual({ current: undefined, pending: [] });
  });

  test('planted bug sink-requires-notified-pending: a completion with no transaction pending for exactly its id throws and commits nothing', () => {
    const { op, env } = sink(
      { env: createTestingOperatorEnv({ bugs: [SINK_REQUIRES_NOTIFIED_PENDING] }) });
    write(op, 42); op.snapshotState(3);
    op.notifyCheckpointComplete(3);
    expect(committedValues(env)).toEqual([42]);
    // The final snapshot (4) pre-commits 43; its notification is lost; snapshot 5 pre-commits
    // nothing after finish, so the completion of 5 finds nothing pending for 5.
    write(op, 43); op.finish(); op.snapshotState(4);
    op.snapshotState(5);
    expect(() => op.notifyCheckpointComplete(5)).toThrow('checkpoint 5 completed, but no transaction pending for it');
    expect(committedValues(env)).toEqual([42]);
    expect(op.transactions().pending.map(([c]) => c)).toEqual([4]);
  });

  test('planted classic mistake sink-commits-in-snapshot: the snapshot commits what it pre-commits; the notification commits nothing more', () => {
    const { op, env } = sink({ env: createTestingOperatorEnv({ bugs: [SINK_COMMITS_IN_SNAPSHOT] }) });
    write(op, 42); op.snapshotState(1);
    expect(committedValues(env)).toEqual([42]);
    write(op, 43);
    op.notifyCheckpointAborted(1);
    op.notifyCheckpointComplete(1);
    expect(committedValues(env)).toEqual([42]);
    expect(op.transactions().pending).toEqual([]);
  });

  test('an aborted checkpoint keeps its transaction pending for the next completion', () => {
    const { op, env } = sink();
    write(op, 1); op.snapshotState(5);
    op.notifyCheckpointAborted(5);
    expect(committedValues(env)).toEqual([]);
    write(op, 2); op.snapshotState(6);
    op.notifyCheckpointComplete(6);
    expect(committedValues(env)).toEqual([1, 2]);
  });

  test('given snapshot 1 after 42, 43 and a failure while writing 44 and snapshotting 2, restore commits 42, 43 once and leaves nothing open', () => {
    const store = new TestingTransactionalStore();
    const first = sink({ env: createTestingOperatorEnv({ store }) });
    write(first.op, 42); write(first.op, 43);
    const snapshot1 = first.op.snapshotState(1);
    write(first.op, 44);
    first.op.snapshotState(2); // pre-committed for 2, which never completes; then the crash
    const second = sink(
      { env: createTestingOperatorEnv({ store }), attempt: 1, restored: snapshot1.data });
    expect(committedValues(second.env)).toEqual([42, 43]);
    expect(store.list('out', 0).map((t) => [t.id.attempt, t.id.epoch, t.status])).toEqual([
      [0, 0, 'committed'], [0, 1, 'aborted'], [0, 2, 'aborted'], [1, 0, 'open'],
    ]);
    expect(second.env.trace.eventsOf('sink.abort-lingering').map((e) => e.attrs).map((a) => a['epoch'])).toEqual([2]);
    expect(second.env.trace.eventsOf('sink.recover-and-abort').map((e) => e.attrs).map((a) => a['epoch'])).toEqual([1]);
    // A same-parallelism failover's lingering abort is ordinary: no rescale mark.
    expect(second.env.trace.marks).toEqual([]);
    // Committing again on a second restore from the same checkpoint is idempotent.
    sink({ env: createTestingOperatorEnv({ store }), attempt: 2, restored: snapshot1.data });
    expect(committedValues(second.env)).toEqual([42, 43]);
    // The old attempt is fenced.
    expect(() => write(first.op, 45)).toThrow(FencedError);
    expect(() => first.op.close()).not.toThrow();
  });

  test('a restored transaction that was already committed before the failure is not committed twice', () => {
    const store = new TestingTransactionalStore();
    const first = sink({ env: createTestingOperatorEnv({ store }) });
    write(first.op, 7);
    const snapshot = first.op.snapshotState(3);
    first.op.notifyCheckpointComplete(3);
    sink({ env: createTestingOperatorEnv({ store }), attempt: 1, restored: snapshot.data });
    expect(store.committed('out')).toHaveLength(1);
  });

  test('a restart without state aborts every open or pre-committed transaction of older attempts',
    () => {
    const store = new TestingTransactionalStore();
    const first = sink({ env: createTestingOperatorEnv({ store }) });
    write(first.op, 1);
    first.op.snapshotState(1);
    write(first.op, 2);
    const second = sink({ env: createTestingOperatorEnv({ store }), attempt: 1 });
    expect(store.list('out', 0).map((t) => t.status)).toEqual(['aborted', 'aborted', 'open']);
    expect(second.op.transactions().current).toEqual(txn(1, 0));
  });

  test('without checkpointing the end of input pre-commits and commits the only transaction',
    () => {
    const { op, env } = sink({ checkpointing: false });
    write(op, 1); write(op, 2);
    op.endInput();
    op.finish();
    op.close();
    expect(committedValues(env)).toEqual([1, 2]);
    expect(env.store.calls.filter((c) => c.startsWith('commit'))).toEqual(
      ['commit out/0/0/0 by=0']);
  });

  test('after finish with checkpointing, the next snapshot pre-commits the last transaction and begins none', () => {
    const { op, env } = sink();
    write(op, 1);
    op.endInput();
    op.finish();
    const snapshot = op.snapshotState(4);
    expect(TwoPhaseCommitSinkOperator.decode(snapshot.data)).toEqual([
      { pendingTransaction: null, pendingCommit: [[4, txn(0, 0)]], checkpointId: 4, parallelism: 1 },
    ]);
    const again = op.snapshotState(5); // the final checkpoint 4 was aborted; 5 follows
    expect(TwoPhaseCommitSinkOperator.decode(again.data)[0]?.pendingCommit).toHaveLength(1);
    op.notifyCheckpointComplete(5);
    op.close();
    expect(committedValues(env)).toEqual([1]);
    expect(() => write(op, 2)).toThrow(/without an open transaction/);
  });

  test('the state holds the new open transaction and every pending one', () => {
    const { op } = sink();
    op.snapshotState(1);
    const s = op.snapshotState(2);
    expect(TwoPhaseCommitSinkOperator.decode(s.data)).toEqual([
      {
        pendingTransaction: txn(0, 2), pendingCommit: [[1, txn(0, 0)], [2, txn(0, 1)]],
        checkpointId: 2, parallelism: 1,
      },
    ]);
    expect(() => op.snapshotState(2)).toThrow(/not after pending/);
  });

  test('close aborts the open transaction; a failing commit is rethrown after all were attempted',
    () => {
    class FailingStore extends TestingTransactionalStore {
      override commit(id: TransactionId, by: number): void {
        if (id.epoch === 0) throw new TransactionStateError('boom');
        super.commit(id, by);
      }
    }
    const store = new FailingStore();
    const { op, env } = sink({ env: createTestingOperatorEnv({ store }) });
    write(op, 1); op.snapshotState(1);
    write(op, 2); op.snapshotState(2);
    expect(() => op.notifyCheckpointComplete(2)).toThrow(/boom/);
    expect(committedValues(env)).toEqual([2]);
    expect(op.transactions().pending).toEqual([]);
    op.close();
    expect(store.status(txn(0, 2))).toBe('aborted');
    expect(env.registry.names()).toEqual([]);
  });

  test('close rethrows store errors other than fencing', () => {
    class BrokenStore extends TestingTransactionalStore {
      override abort(): void {
        throw new TransactionStateError('broken');
      }
    }
    const { op } = sink({ env: createTestingOperatorEnv({ store: new BrokenStore() }) });
    expect(() => op.close()).toThrow(/broken/);
  });
});

/** A job run's sink subtasks over one store: subtask i of `parallelism`, all at `attempt`. */
interface SinkRun {
  readonly ops: TwoPhaseCommitSinkOperator[];
  readonly env: TestingOperatorEnv;
}

/**
 * Starts subtasks `order` (default all, ascending) of a run at `parallelism`; `restored[i]` is
 * what subtask i's initializeState gets; `attempts[i]` overrides `attempt` for subtask i.
 */
function startRun(store: TestingTransactionalStore, options: {
  parallelism: number; attempt: number; restored?: readonly unknown[];
  order?: readonly number[]; attempts?: Readonly<Record<number, number>>;
  /** The checkpoint the tasks restore from, as the task context tells it. */
  restoredCheckpointId?: number;
}): SinkRun {
  const env = createTestingOperatorEnv({ store });
  const ops: TwoPhaseCommitSinkOperator[] = [];
  const order = options.order ?? [...Array(options.parallelism).keys()];
  for (const i of order) {
    const ctx = createTestingOperatorContext({
      env, subtaskIndex: i, parallelism: options.parallelism,
      attemptNumber: options.attempts?.[i] ?? options.attempt,
      ...(options.restoredCheckpointId === undefined ? {} : { restoredCheckpointId: options.restoredCheckpointId }),
    });
    const op = new TwoPhaseCommitSinkOperator(
      { uid: 'sink-3', sinkName: 'out', ctx, checkpointingEnabled: true });
    op.initializeState(options.restored?.[i]);
    ops[i] = op;
  }
  return { ops, env };
}

/**
 * What a rescaled restore hands each new subtask, as the state assignment builds it: the old
 * subtasks' operator state handles repartitioned round robin, one OperatorSubtaskState each.
 */
function rescaledRestore(snapshots: readonly OperatorSnapshot[], newParallelism: number): unknown[] {
  const previous = snapshots.map((s) => readRestoredState(s.data, 'sink-3').managedOperatorState);
  return RoundRobinOperatorStateRepartitioner.INSTANCE
    .repartitionState(previous, previous.length, newParallelism)
    .map((handles) => operatorSubtaskState({ managedOperatorState: handles }));
}

const id = (subtask: number, attempt: number, epoch: number): TransactionId => (
  { sink: 'out', subtask, attempt, epoch });

const writeAs = (op: TwoPhaseCommitSinkOperator, subtask: number, value: number): void => {
  op.processElement({ value, split: subtask, offset: value, tag: '' });
};

const commitCalls = (store: TestingTransactionalStore, t: TransactionId): string[] =>
  store.calls.filter((c) => c.startsWith(`commit out/${t.subtask}/${t.attempt}/${t.epoch} `));

const lingeringMarks = (env: TestingOperatorEnv): string[] => env.trace.marks
  .filter((m) => m.type === 'lingering-transaction-aborted')
  .map((m) => `${String(m.attrs['subtask'])}@${String(m.attrs['attempt'])}/e${String(m.attrs['epoch'])} ${String(m.attrs['status'])}`);

describe('TwoPhaseCommitSinkOperator across a rescale (KafkaSink)', () => {
  test('scale-in 4 -> 2: the transaction pre-committed on removed subtask 3 is committed once, by the subtask its element went to', () => {
    const store = new TestingTransactionalStore();
    const old = startRun(store, { parallelism: 4, attempt: 0 });
    old.ops.forEach((op, i) => writeAs(op, i, 10 + i));
    const savepoint = old.ops.map((op) => op.snapshotState(5)); // 5 never notified: the stop
    // New subtask 1 initializes first: it must not abort subtask 1's old transaction, which the
    // round robin handed to new subtask 0 with element 1.
    const next = startRun(store, {
      parallelism: 2, attempt: 1, restored: rescaledRestore(savepoint, 2), restoredCheckpointId: 5, order: [1, 0],
    });
    expect([...store.committed('out')].map((r) => (r as TransactionalSinkRecord).value).sort())
      .toEqual([10, 11, 12, 13]);
    for (let j = 0; j < 4; j++) expect(commitCalls(store, id(j, 0, 0))).toHaveLength(1);
    expect(commitCalls(store, id(3, 0, 0))).toEqual(['commit out/3/0/0 by=1 as=1']);
    expect(commitCalls(store, id(1, 0, 0))).toEqual(['commit out/1/0/0 by=1 as=0']);
    // Subtask 1 fenced the removed index 3 (3 mod 2), subtask 0 fenced 2.
    expect(store.calls.filter((c) => c.startsWith('init'))).toEqual([
      'init out/0 by=0', 'init out/1 by=0', 'init out/2 by=0', 'init out/3 by=0',
      'init out/1 by=1', 'init out/3 by=1', 'init out/0 by=1', 'init out/2 by=1',
    ]);
    // The next snapshot records the new parallelism and only its own transactions.
    next.ops.forEach((op, i) => writeAs(op, i, 20 + i));
    expect(TwoPhaseCommitSinkOperator.decode(next.ops[1]?.snapshotState(6).data)).toEqual([{
      pendingTransaction: id(1, 1, 1), pendingCommit: [[6, id(1, 1, 0)]],
      checkpointId: 6, parallelism: 2,
    }]);
  });

  test('scale-in 4 -> 2: the open transaction of removed subtask 3 is aborted, and its partition fenced against the old attempt', () => {
    const store = new TestingTransactionalStore();
    const old = startRun(store, { parallelism: 4, attempt: 0 });
    const savepoint = old.ops.map((op) => op.snapshotState(5));
    const zombie = old.ops[3] as TwoPhaseCommitSinkOperator;
    writeAs(zombie, 3, 33); // into its open transaction e1, after the snapshot
    const next = startRun(store, { parallelism: 2, attempt: 1, restored: rescaledRestore(savepoint, 2), restoredCheckpointId: 5 });
    expect(store.status(id(3, 0, 1))).toBe('aborted');
    expect(lingeringMarks(next.env)).toEqual(['2@0/e1 open', '3@0/e1 open']);
    // The old attempt of subtask 3 can neither write, nor begin, nor commit any more.
    expect(() => writeAs(zombie, 3, 34)).toThrow(FencedError);
    expect(() => zombie.snapshotState(6)).toThrow(FencedError);
    expect(() => store.commit(id(3, 0, 0), 0)).toThrow(FencedError);
    expect(() => store.begin(id(3, 0, 9), 0)).toThrow(FencedError);
    expect(store.committed('out')).toEqual([]); // nothing was written before the snapshot
  });

  test('scale-in 4 -> 2: a transaction pre-committed for a checkpoint after the restored one is aborted, on a removed and on a kept index', () => {
    const store = new TestingTransactionalStore();
    const old = startRun(store, { parallelism: 4, attempt: 0 });
    old.ops.forEach((op, i) => writeAs(op, i, 10 + i));
    const savepoint = old.ops.map((op) => op.snapshotState(5));
    for (const i of [0, 3]) {
      writeAs(old.ops[i] as TwoPhaseCommitSinkOperator, i, 20 + i);
      old.ops[i]?.snapshotState(6); // pre-committed for 6, which never completes
    }
    const next = startRun(store, { parallelism: 2, attempt: 1, restored: rescaledRestore(savepoint, 2), restoredCheckpointId: 5 });
    expect(store.list('out', 3).map((t) => [t.id.epoch, t.status, t.checkpointId])).toEqual([
      [0, 'committed', 5], [1, 'aborted', 6], [2, 'aborted', undefined],
    ]);
    expect(store.status(id(0, 0, 1))).toBe('aborted');
    expect([...store.committed('out')].map((r) => (r as TransactionalSinkRecord).value).sort())
      .toEqual([10, 11, 12, 13]);
    // Marked: the removed indices' transactions, and kept index 0's pre-committed for 6 (its
    // open e2 and the open transactions at the snapshot of kept indices are ordinary).
    expect(lingeringMarks(next.env)).toEqual([
      '0@0/e1 pre-committed', '2@0/e1 open', '3@0/e1 pre-committed', '3@0/e2 open',
    ]);
  });

  test('scale-out 2 -> 4: new subtasks 2 and 3 get nothing, every transaction commits once, and a changed parallelism marks its lingering aborts', () => {
    const store = new TestingTransactionalStore();
    const old = startRun(store, { parallelism: 2, attempt: 0 });
    old.ops.forEach((op, i) => writeAs(op, i, 10 + i));
    const savepoint = old.ops.map((op) => op.snapshotState(5));
    writeAs(old.ops[1] as TwoPhaseCommitSinkOperator, 1, 21);
    old.ops[1]?.snapshotState(6);
    const restored = rescaledRestore(savepoint, 4);
    expect(restored.map((r) => TwoPhaseCommitSinkOperator.decode(r).length)).toEqual([1, 1, 0, 0]);
    const next = startRun(store, { parallelism: 4, attempt: 1, restored, restoredCheckpointId: 5 });
    for (const j of [0, 1]) expect(commitCalls(store, id(j, 0, 0))).toHaveLength(1);
    expect([...store.committed('out')].map((r) => (r as TransactionalSinkRecord).value).sort())
      .toEqual([10, 11]);
    expect(store.status(id(1, 0, 1))).toBe('aborted');
    expect(lingeringMarks(next.env)).toEqual(['1@0/e1 pre-committed']);
    // No index was removed: each new subtask fenced its own partition only.
    expect(store.calls.filter((c) => c.startsWith('init') && c.endsWith('by=1'))).toEqual(
      ['init out/0 by=1', 'init out/1 by=1', 'init out/2 by=1', 'init out/3 by=1']);
    expect(next.ops[3]?.transactions().current).toEqual(id(3, 1, 0));
  });

  test('every removed index is fenced by exactly one new subtask (j mod p); one without elements probes the store', () => {
    const store = new TestingTransactionalStore();
    const old = startRun(store, { parallelism: 7, attempt: 0 });
    const savepoint = old.ops.map((op) => op.snapshotState(5));
    startRun(store, { parallelism: 3, attempt: 1, restored: rescaledRestore(savepoint, 3), restoredCheckpointId: 5 });
    const fencedBy1 = store.calls.filter((c) => c.startsWith('init') && c.endsWith('by=1'));
    expect(fencedBy1).toEqual([
      'init out/0 by=1', 'init out/3 by=1', 'init out/6 by=1',
      'init out/1 by=1', 'init out/4 by=1',
      'init out/2 by=1', 'init out/5 by=1',
    ]);
    for (let j = 0; j < 7; j++) expect(store.status(id(j, 0, 0))).toBe('committed');
    // A new subtask that got no element (hand-built: subtask 0 got all of them) finds the
    // removed index 3 by probing, stops at the unused 5, and aborts 3's open transaction.
    const store2 = new TestingTransactionalStore();
    const old2 = startRun(store2, { parallelism: 4, attempt: 0 });
    const savepoint2 = old2.ops.map((op) => op.snapshotState(5));
    writeAs(old2.ops[3] as TwoPhaseCommitSinkOperator, 3, 1);
    old2.ops[3]?.snapshotState(6);
    const all = savepoint2.flatMap((s) => readRestoredState(s.data, 'sink-3').managedOperatorState);
    // It knows the restored checkpoint from its task, so it leaves subtask 1's transaction
    // pre-committed for 5 to subtask 0, which holds its element.
    startRun(store2, {
      parallelism: 2, attempt: 1, order: [1, 0], restored: [all, undefined], restoredCheckpointId: 5,
    });
    expect(store2.status(id(1, 0, 0))).toBe('committed');
    expect(store2.calls.filter((c) => c.startsWith('init') && c.endsWith('by=1'))).toEqual(
      ['init out/1 by=1', 'init out/3 by=1', 'init out/0 by=1', 'init out/2 by=1']);
    expect(store2.list('out', 3).map((t) => t.status)).toEqual(['committed', 'aborted', 'aborted']);
  });

  test('a transaction committed before the stop is committed again idempotently, by a subtask whose attempt is below the fencer\'s', () => {
    const store = new TestingTransactionalStore();
    const old = startRun(store, { parallelism: 4, attempt: 0 });
    old.ops.forEach((op, i) => writeAs(op, i, 10 + i));
    const savepoint = old.ops.map((op) => op.snapshotState(5));
    old.ops[3]?.notifyCheckpointComplete(5); // only subtask 3 heard of 5's completion
    expect(store.status(id(3, 0, 0))).toBe('committed');
    // 4 -> 3: removed index 3 is fenced by new subtask 0 (restarted once: attempt 2), while its
    // element goes to new subtask 2 (attempt 1), which commits it on its own partition's fence.
    const restored = rescaledRestore(savepoint, 3);
    expect(TwoPhaseCommitSinkOperator.decode(restored[2]).map((s) => s.pendingCommit[0]?.[1]))
      .toEqual([id(3, 0, 0)]);
    startRun(store, { parallelism: 3, attempt: 1, restored, attempts: { 0: 2 }, restoredCheckpointId: 5 });
    expect(store.calls).toContain('init out/3 by=2');
    expect(commitCalls(store, id(3, 0, 0))).toEqual(
      ['commit out/3/0/0 by=0', 'commit out/3/0/0 by=1 as=2']);
    // A second restore of new subtask 2 from the same savepoint commits it once more: a no-op.
    const again = startRun(store, {
      parallelism: 3, attempt: 2, restored, order: [2], restoredCheckpointId: 5,
    });
    expect(again.ops[2]?.transactions().pending).toEqual([]);
    expect((store.committed('out') as TransactionalSinkRecord[]).map((r) => r.value).sort())
      .toEqual([10, 11, 12, 13]);
  });
});
