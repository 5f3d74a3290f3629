import { describe, expect, test } from 'vitest';
import { assert } from '../../util/assert.ts';
import { FencedError, TransactionStateError } from '../../api/TransactionalStore.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import {
  TwoPhaseCommitSinkFunction, type SinkFunctionContext, type SinkTransaction,
  type TwoPhaseCommitSinkFunctionFactory,
} from '../api/TwoPhaseCommitSinkFunction.ts';
import { createTestingOperatorEnv, type TestingOperatorEnv } from '../operators/testing/TestingOperatorEnv.ts';
import { createTestingOperatorContext } from '../operators/testing/TestingOperatorContext.ts';
import { TestingTransactionalStore } from '../operators/testing/TestingTransactionalStore.ts';
import { SINK_ABORT_OF_COMMITTED_EVENT } from './TransactionSteps.ts';
import { TwoPhaseCommitSinkOperator, type TransactionalSinkRecord } from './TwoPhaseCommitSinkOperator.ts';

function sink(options: {
  store: TestingTransactionalStore; create?: TwoPhaseCommitSinkFunctionFactory;
  attempt?: number; restored?: unknown; checkpointing?: boolean;
}): { op: TwoPhaseCommitSinkOperator; env: TestingOperatorEnv } {
  const env = createTestingOperatorEnv({ store: options.store });
  const ctx = createTestingOperatorContext({ env, attemptNumber: options.attempt ?? 0 });
  const op = new TwoPhaseCommitSinkOperator({
    uid: 'sink-3', sinkName: 'out', ctx, checkpointingEnabled: options.checkpointing ?? true,
    ...(options.create === undefined ? {} : { create: options.create }),
  });
  op.initializeState(options.restored);
  op.open();
  return { op, env };
}

const record = (value: number): StreamRecord => ({ value, split: 0, offset: value, tag: '' });
const values = (store: TestingTransactionalStore): unknown[] =>
  (store.committed('out') as TransactionalSinkRecord[]).map((r) => r.value);

/** Buffers in invoke and writes the buffer in preCommit (a sink that flushes only on snapshot). */
class BufferingSink extends TwoPhaseCommitSinkFunction<number> {
  private buffer: StreamRecord<number>[] = [];
  override invoke(_txn: SinkTransaction, r: StreamRecord<number>): void {
    this.buffer.push(r);
  }
  override preCommit(txn: SinkTransaction): void {
    for (const r of this.buffer) txn.write(r);
    this.buffer = [];
    txn.preCommit();
  }
}

/** The classic mistake: commits during the snapshot, before the checkpoint completes. */
class CommitInPreCommitSink extends TwoPhaseCommitSinkFunction {
  override preCommit(txn: SinkTransaction): void {
    txn.preCommit();
    txn.commit();
  }
}

/**
 * A failure after snapshots 1 and 2 (2 never completes), a restore from 1, more records and a
 * completed 3, then close; the same schedule for any sink function (or none).
 */
function failoverSchedule(create?: TwoPhaseCommitSinkFunctionFactory): TestingTransactionalStore {
  const store = new TestingTransactionalStore();
  const first = sink({ store, ...(create === undefined ? {} : { create }) });
  first.op.processElement(record(1));
  const s1 = first.op.snapshotState(1);
  first.op.processElement(record(2));
  first.op.snapshotState(2);
  first.op.processElement(record(3));
  const second = sink({ store, attempt: 1, restored: s1.data, ...(create === undefined ? {} : { create }) });
  first.op.close(); // the zombie's close is fenced, and best effort
  second.op.processElement(record(2));
  second.op.processElement(record(3));
  second.op.snapshotState(3);
  second.op.notifyCheckpointComplete(3);
  second.op.processElement(record(4));
  second.op.close();
  return store;
}

describe('TwoPhaseCommitSinkOperator with a user TwoPhaseCommitSinkFunction', () => {
  test('a function with only the defaults makes exactly the store calls of no function, through a failover', () => {
    const none = failoverSchedule();
    const defaults = failoverSchedule(() => new TwoPhaseCommitSinkFunction());
    expect(values(none)).toEqual([1, 2, 3]);
    expect(defaults.calls).toEqual(none.calls);
    expect(defaults.committed('out')).toEqual(none.committed('out'));
  });

  test('buffering in invoke writes nothing until the snapshot, and commits each record once through a failover', () => {
    const store = new TestingTransactionalStore();
    const { op } = sink({ store, create: () => new BufferingSink() });
    op.processElement(record(1));
    expect(store.list('out', 0)[0]?.records).toBe(0);
    op.snapshotState(1);
    expect(store.list('out', 0)[0]?.records).toBe(1);
    expect(values(store)).toEqual([]);
    op.notifyCheckpointComplete(1);
    expect(values(store)).toEqual([1]);
    expect(values(failoverSchedule(() => new BufferingSink()))).toEqual([1, 2, 3]);
  });

  test('committing in preCommit makes output visible at the snapshot and duplicates it after a restore from an earlier checkpoint', () => {
    const store = new TestingTransactionalStore();
    const { op, env } = sink({ store, create: () => new CommitInPreCommitSink() });
    op.processElement(record(1));
    op.snapshotState(1);
    expect(values(store)).toEqual([1]); // before checkpoint 1 completed
    op.notifyCheckpointComplete(1); // committing again is idempotent
    expect(values(store)).toEqual([1]);
    expect(env.trace.eventsOf(SINK_ABORT_OF_COMMITTED_EVENT)).toEqual([]);
    // Through the failover, 2 was committed at snapshot 2, which never completed; the restore
    // from 1 replays it: 2 twice. Its recoverAndAbort found the transaction committed.
    const failed = failoverSchedule(() => new CommitInPreCommitSink());
    expect(values(failed)).toEqual([1, 2, 2, 3]);
    expect(failed.calls.filter((c) => c.startsWith('abort out/0/0/1'))).toEqual([]);
  });

  test('recoverAndAbort of a transaction committed too early leaves it committed and traces it', () => {
    const store = new TestingTransactionalStore();
    const first = sink({ store, create: () => new CommitInPreCommitSink() });
    const s0 = first.op.snapshotState(0);
    first.op.processElement(record(5));
    first.op.snapshotState(1);
    const second = sink({ store, attempt: 1, restored: s0.data, create: () => new CommitInPreCommitSink() });
    expect(values(store)).toEqual([5]);
    expect(second.env.trace.eventsOf(SINK_ABORT_OF_COMMITTED_EVENT).map((e) => e.attrs['epoch'])).toEqual([1]);
  });

  test('the built-in sink restoring a snapshot older than a commit leaves the committed transaction committed (a recovery, as Kafka)', () => {
    // A stop's synchronous savepoint 2 commits the transaction that snapshot 1 held open; a
    // restore of snapshot 1 (a failover, or a user's restore of the older checkpoint) must not
    // fail on it: FlinkKafkaProducer's recoverAndAbort re-initialises the transactional id,
    // which aborts only what is still open. The duplicate is left for the oracles to see.
    const store = new TestingTransactionalStore();
    const first = sink({ store });
    const s1 = first.op.snapshotState(1);
    first.op.processElement(record(7));
    first.op.snapshotState(2);
    first.op.notifyCheckpointComplete(2);
    expect(values(store)).toEqual([7]);
    const second = sink({ store, attempt: 1, restored: s1.data });
    expect(second.env.trace.eventsOf(SINK_ABORT_OF_COMMITTED_EVENT).map((e) => e.attrs['epoch'])).toEqual([1]);
    second.op.processElement(record(7));
    second.op.snapshotState(2);
    second.op.notifyCheckpointComplete(2);
    expect(values(store)).toEqual([7, 7]);
    // An abort of a committed transaction any other way is still refused by the store.
    const committed = store.list('out', 0).find((t) => t.id.epoch === 1 && t.status === 'committed');
    assert(committed !== undefined, 'epoch 1 committed');
    expect(() => store.abort(committed.id, 2)).toThrow(TransactionStateError);
  });

  test('each step gets a handle on its transaction; open sees the subtask first; one function per operator', () => {
    const log: string[] = [];
    let made = 0;
    class Logging extends TwoPhaseCommitSinkFunction {
      override open(c: SinkFunctionContext): void {
        log.push(`open ${c.subtaskIndex}/${c.parallelism} attempt ${c.attemptNumber} restored ${String(c.restoredCheckpointId)}`);
      }
      override beginTransaction(t: SinkTransaction): void { log.push(`begin ${t.id.epoch}`); super.beginTransaction(t); }
      override invoke(t: SinkTransaction, r: StreamRecord): void { log.push(`invoke ${t.id.epoch} ${String(r.value)}`); super.invoke(t, r); }
      override preCommit(t: SinkTransaction): void { log.push(`preCommit ${t.id.epoch}`); super.preCommit(t); }
      override commit(t: SinkTransaction): void { log.push(`commit ${t.id.epoch}`); super.commit(t); }
      override abort(t: SinkTransaction): void { log.push(`abort ${t.id.epoch}`); super.abort(t); }
    }
    const store = new TestingTransactionalStore();
    const { op } = sink({ store, create: () => { made++; return new Logging(); } });
    op.processElement(record(7));
    op.snapshotState(4);
    op.notifyCheckpointComplete(4);
    op.close();
    expect(made).toBe(1);
    expect(log).toEqual([
      'open 0/1 attempt 0 restored undefined', 'begin 0', 'invoke 0 7', 'preCommit 0', 'begin 1',
      'commit 0', 'abort 1',
    ]);
    // The pre-commit recorded the checkpoint it was for, as the built-in sink's does.
    expect(store.list('out', 0)[0]?.checkpointId).toBe(4);
  });

  test('without checkpointing the end of input pre-commits and commits through the function', () => {
    const store = new TestingTransactionalStore();
    const { op } = sink({ store, checkpointing: false, create: () => new BufferingSink() });
    op.processElement(record(1));
    op.processElement(record(2));
    op.endInput();
    expect(values(store)).toEqual([1, 2]);
  });

  test('a record written without its identity is a TypeError; a function\'s own engine assertion becomes a plain Error', () => {
    class Careless extends TwoPhaseCommitSinkFunction {
      override invoke(txn: SinkTransaction, r: StreamRecord): void {
        if (r.value === 0) txn.write({ value: 0 } as StreamRecord);
        assert(r.value !== 1, 'the user asserted');
        txn.write(r);
      }
    }
    const { op } = sink({ store: new TestingTransactionalStore(), create: () => new Careless() });
    expect(() => op.processElement(record(0))).toThrow(TypeError);
    let thrown: unknown;
    try {
      op.processElement(record(1));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).constructor).toBe(Error);
    expect((thrown as Error).message).toBe('two-phase-commit sink function invoke failed: the user asserted');
  });

  test('store errors reach the operator unchanged: a fenced zombie\'s close is still best effort', () => {
    const store = new TestingTransactionalStore();
    const create = (): TwoPhaseCommitSinkFunction => new TwoPhaseCommitSinkFunction();
    const first = sink({ store, create });
    sink({ store, attempt: 1, create });
    expect(() => first.op.processElement(record(1))).toThrow(FencedError);
    expect(() => first.op.close()).not.toThrow();
    // A function that forgets to pre-commit: the completion's commit refuses the open transaction.
    class NoPreCommit extends TwoPhaseCommitSinkFunction {
      override preCommit(): void {}
    }
    const { op } = sink({ store: new TestingTransactionalStore(), create: () => new NoPreCommit() });
    op.snapshotState(1);
    expect(() => op.notifyCheckpointComplete(1)).toThrow(TransactionStateError);
  });
});
