import { describe, expect, test } from 'vitest';
import { FencedError, TransactionStateError,
  type TransactionId } from '../../api/TransactionalStore.ts';
import { createTestingOperatorEnv,
  type TestingOperatorEnv } from '../operators/testing/TestingOperatorEnv.ts';
import { createTestingOperatorContext } from '../operators/testing/TestingOperatorContext.ts';
import { TestingTransactionalStore } from '../operators/testing/TestingTransactionalStore.ts';
import {
  SINK_COMMITS_ONLY_NOTIFIED, TwoPhaseCommitSinkOperator, type TransactionalSinkRecord,
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
