import { describe, expect, test } from 'vitest';
import { FencedError, TransactionStateError } from '../engine/api/index.ts';
import type { EngineEnv, TransactionId , StorageError} from '../engine/api/index.ts';
import { World } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

const LAT = { minUs: 100, medianUs: 200, maxUs: 300 };

function withHost(options: Partial<WorldOptions>): { w: World; env: EngineEnv } {
  const w = new World({ seed: 'store', objectStore: { latency: LAT }, ...options });
  w.addHost('tm', () => {});
  return { w, env: w.env('tm') };
}

describe('SimObjectStore', () => {
  test('put, get, list, delete and deleteDirectory complete on the caller executor', () => {
    const { w, env } = withHost({});
    const ex = env.executors.get('io');
    const out: unknown[] = [];
    env.objectStore.put('chk-1/a', 'A', 10, ex);
    env.objectStore.put('chk-1/b', 'B', 10, ex);
    env.objectStore.put('shared/x', 'X', 10, ex);
    ex.schedule('later', 1000, () => {
      env.objectStore.list('chk-1', ex).thenApply((l) => out.push(l));
      env.objectStore.get('chk-1/a', ex).thenApply((o) => out.push(o.data));
      env.objectStore.get('missing', ex).whenComplete((_v, e) => out.push((e as StorageError).outcome));
      env.objectStore.deleteDirectory('chk-1', ex);
      env.objectStore.delete('shared/x', ex);
      env.objectStore.delete('never', ex).thenApply(() => out.push('deleted-missing'));
    });
    w.run();
    expect(out).toContainEqual(['chk-1/a', 'chk-1/b']);
    expect(out).toContain('A');
    expect(out).toContain('not-found');
    expect(out).toContain('deleted-missing');
    expect(w.objectStore.paths()).toEqual([]);
    expect(w.trace.events.every((e) => e.type !== 'store.end' || e.timeUs >= 100)).toBe(true);
  });

  test('injected failures and unknown outcomes before the heal time, none after', () => {
    const { w, env } = withHost({
      healTimeUs: 50_000,
      objectStore: { latency: LAT, failProbability: 0.3, unknownOutcomeProbability: 0.3, slowFactor: 4 },
    });
    const ex = env.executors.get('io');
    const outcomes: string[] = [];
    const late: string[] = [];
    for (let i = 0; i < 60; i++) {
      env.objectStore.put(`p${i}`, i, 1, ex).whenComplete((_v, e) => outcomes.push(e ? (e as StorageError).outcome : 'ok'));
    }
    ex.schedule('heal', 50_000, () => {
      for (let i = 0; i < 20; i++) {
        env.objectStore.put(`q${i}`, i, 1, ex).whenComplete((_v, e) => late.push(e ? 'err' : 'ok'));
      }
    });
    w.run();
    expect(outcomes).toContain('failed');
    expect(outcomes).toContain('unknown-outcome');
    expect(outcomes).toContain('ok');
    expect(late).toEqual(Array(20).fill('ok'));
    const unknown = w.trace.events.filter((e) => e.type === 'store.unknown-outcome');
    const stored = w.objectStore.paths().filter((p) => p.startsWith('p')).length;
    expect(stored).toBe(outcomes.filter((o) => o === 'ok').length + unknown.filter((e) => e.attrs['happened']).length);
    expect(w.trace.events.find((e) => e.type === 'store.end')?.timeUs).toBeGreaterThanOrEqual(400);
  });

  test('a failed operation\'s error names its store.end event (cause links: what the caller does later about it '
    + 'is its doing), and a latency overridden to slow is recorded as store.slow, caused by the operation\'s begin', () => {
    const { w, env } = withHost({ healTimeUs: 50_000, objectStore: { latency: LAT, failProbability: 1 },
      overrides: [{ decision: 0, alternative: 3 }] });
    const errors: StorageError[] = [];
    env.objectStore.put('chk-1/a', 'A', 1, env.executors.get('io')).whenComplete((_v, e) => errors.push(e as StorageError));
    w.run();
    const end = w.trace.events.find((e) => e.type === 'store.end');
    expect(errors[0]?.outcome).toBe('failed');
    expect(errors[0]?.event).toBe(end?.seq);
    const slow = w.trace.events.find((e) => e.type === 'store.slow');
    expect(slow?.attrs).toEqual({ op: 'put', path: 'chk-1/a', latencyUs: 3_000 });
    expect(slow?.cause).toBe(w.trace.events.find((e) => e.type === 'store.begin')?.seq);
  });

  test('writes land even when the writer crashes before the answer; the store survives', () => {
    const { w, env } = withHost({});
    env.objectStore.put('x', 1, 1, env.executors.get('io'));
    w.at(10, 'crash', () => w.crash('tm'));
    w.run();
    expect(w.objectStore.read('x')).toEqual({ data: 1, sizeBytes: 1 });
  });
});

describe('SimTransactionalStore', () => {
  const id = (attempt: number, epoch: number): TransactionId => ({ sink: 's', subtask: 0, attempt, epoch });

  test('lifecycle, idempotent commit, readers see committed records only', () => {
    const { w, env } = withHost({});
    const t = env.transactionalStore;
    t.initTransactions('s', 0, 1);
    t.begin(id(1, 1), 1);
    t.write(id(1, 1), 'a', 1);
    t.write(id(1, 1), 'b', 1);
    t.begin(id(1, 2), 1);
    t.write(id(1, 2), 'c', 1);
    expect(w.transactionalStore.committedRecords()).toEqual([]);
    t.preCommit(id(1, 1), 1);
    t.commit(id(1, 1), 1);
    t.commit(id(1, 1), 1);
    t.abort(id(1, 2), 1);
    t.abort(id(1, 2), 1);
    expect(w.transactionalStore.committedRecords().map((r) => r.record)).toEqual(['a', 'b']);
    expect(w.transactionalStore.committedRecords()[0]?.txn).toEqual(id(1, 1));
    expect(t.list('s', 0).map((i) => [i.id.epoch, i.status, i.records])).toEqual([[1, 'committed', 2], [2, 'aborted', 1]]);
    expect(t.list('other', 0)).toEqual([]);
    expect(() => t.begin(id(1, 1), 1)).toThrow(TransactionStateError);
    expect(() => t.write(id(1, 1), 'x', 1)).toThrow(TransactionStateError);
    expect(() => t.preCommit(id(1, 2), 1)).toThrow(TransactionStateError);
    expect(() => t.commit(id(1, 2), 1)).toThrow(TransactionStateError);
    expect(() => t.abort(id(1, 1), 1)).toThrow(TransactionStateError);
    expect(() => t.commit(id(9, 9), 1)).toThrow(TransactionStateError);
    t.begin(id(1, 3), 1);
    expect(() => t.commit(id(1, 3), 1)).toThrow(TransactionStateError);
    expect(w.transactionalStore.allTransactions()).toHaveLength(3);
  });

  test('notes when each committed transaction was pre-committed and first committed', () => {
    const { w, env } = withHost({});
    const t = env.transactionalStore;
    const ex = env.executors.get('sink');
    t.initTransactions('s', 0, 1);
    t.begin(id(1, 1), 1);
    t.write(id(1, 1), 'a', 1);
    t.begin(id(1, 2), 1);
    ex.schedule('pre-commit', 300, () => t.preCommit(id(1, 1), 1));
    ex.schedule('commit', 700, () => t.commit(id(1, 1), 1));
    ex.schedule('commit again', 900, () => t.commit(id(1, 1), 1));
    w.run();
    const times = w.transactionalStore.commitTimes();
    const txn = w.transactionalStore.committedRecords()[0]?.txn;
    expect(txn === undefined ? undefined : times.get(txn)).toEqual({ preCommittedUs: 300, committedUs: 700 });
    expect(times.size).toBe(1); // the open transaction has none
  });

  test('keeps the records of transactions aborted after their pre-commit, apart from those still pre-committed', () => {
    const { w, env } = withHost({});
    const t = env.transactionalStore;
    t.initTransactions('s', 0, 1);
    for (const epoch of [1, 2, 3, 4]) {
      t.begin(id(1, epoch), 1);
      t.write(id(1, epoch), `r${epoch}`, 1);
    }
    t.preCommit(id(1, 1), 1);
    t.preCommit(id(1, 2), 1);
    t.preCommit(id(1, 3), 1);
    t.abort(id(1, 1), 1); // pre-committed, then aborted (a lingering abort)
    t.commit(id(1, 3), 1);
    t.abort(id(1, 4), 1); // aborted while open: never pre-committed
    const store = w.transactionalStore;
    expect(store.abortedPreCommittedRecords().map((c) => [c.record, c.txn.epoch])).toEqual([['r1', 1]]);
    expect(store.preCommittedRecords().map((c) => c.record)).toEqual(['r2']);
    expect(store.committedRecords().map((c) => c.record)).toEqual(['r3']);
  });

  test('fencing rejects older attempts', () => {
    const { env } = withHost({});
    const t = env.transactionalStore;
    t.initTransactions('s', 0, 1);
    t.begin(id(1, 1), 1);
    t.write(id(1, 1), 'a', 1);
    t.preCommit(id(1, 1), 1);
    t.initTransactions('s', 0, 2);
    expect(() => t.commit(id(1, 1), 1)).toThrow(FencedError);
    expect(() => t.begin(id(1, 2), 1)).toThrow(FencedError);
    expect(() => t.initTransactions('s', 0, 1)).toThrow(FencedError);
    t.commit(id(1, 1), 2);
    t.initTransactions('s', 1, 1);
  });

  test('interleaved writers keep their transactions apart, and a fenced writer is refused', () => {
    const { w, env } = withHost({});
    const t = env.transactionalStore;
    const sub = (subtask: number, attempt: number): TransactionId => ({ sink: 's', subtask, attempt, epoch: 0 });
    for (const s of [0, 1, 2]) {
      t.initTransactions('s', s, 1);
      t.begin(sub(s, 1), 1);
    }
    for (let i = 0; i < 3; i++) for (const s of [0, 1, 2]) t.write(sub(s, 1), `${s}.${i}`, 1);
    t.initTransactions('s', 1, 2);
    expect(() => t.write(sub(1, 1), 'zombie', 1)).toThrow(FencedError);
    t.write(sub(0, 1), '0.3', 1);
    for (const s of [0, 2]) {
      t.preCommit(sub(s, 1), 1);
      t.commit(sub(s, 1), 1);
    }
    expect(w.transactionalStore.committedRecords().map((r) => r.record))
      .toEqual(['0.0', '0.1', '0.2', '0.3', '2.0', '2.1', '2.2']);
    expect(t.list('s', 1).map((i) => [i.status, i.records])).toEqual([['open', 3]]);
  });

  test('after a scale-in 4 -> 2 a new subtask commits a removed subtask\'s transaction on its own fence, and the removed index is fenced', () => {
    const { w, env } = withHost({});
    const t = env.transactionalStore;
    const txn = (subtask: number, attempt: number, epoch: number): TransactionId => ({ sink: 's', subtask, attempt, epoch });
    // The old run: subtask 3 (attempt 0) pre-commits e0 for checkpoint 5 and e1 for 6.
    t.initTransactions('s', 3, 0);
    t.begin(txn(3, 0, 0), 0);
    t.write(txn(3, 0, 0), 'for-5', 0);
    t.preCommit(txn(3, 0, 0), 0, 5);
    t.begin(txn(3, 0, 1), 0);
    t.write(txn(3, 0, 1), 'for-6', 0);
    t.preCommit(txn(3, 0, 1), 0, 6);
    t.begin(txn(3, 0, 2), 0);
    expect(t.list('s', 3).map((i) => [i.id.epoch, i.status, i.checkpointId]))
      .toEqual([[0, 'pre-committed', 5], [1, 'pre-committed', 6], [2, 'open', undefined]]);
    // The new run at 2, restored from 5: subtask 1 (attempt 2, restarted once) fences the
    // removed index 3; subtask 0 (attempt 1) got 3's element and commits e0 as subtask 0.
    t.initTransactions('s', 1, 2);
    t.initTransactions('s', 3, 2);
    t.initTransactions('s', 0, 1);
    expect(() => t.commit(txn(3, 0, 0), 1)).toThrow(FencedError); // on 3's fence: 1 < 2
    t.commit(txn(3, 0, 0), 1, 0);
    t.commit(txn(3, 0, 0), 1, 0); // idempotent
    t.abort(txn(3, 0, 1), 2, 1);
    t.abort(txn(3, 0, 2), 2, 1);
    expect(w.transactionalStore.committedRecords().map((r) => r.record)).toEqual(['for-5']);
    // Zombies: the old subtask 3 cannot write, begin or commit; nor can a zombie of subtask 0.
    expect(() => t.write(txn(3, 0, 2), 'zombie', 0)).toThrow(FencedError);
    expect(() => t.begin(txn(3, 0, 3), 0)).toThrow(FencedError);
    expect(() => t.commit(txn(3, 0, 1), 0)).toThrow(FencedError);
    expect(() => t.commit(txn(3, 0, 0), 0, 0)).toThrow(FencedError);
    expect(() => t.abort(txn(3, 0, 0), 0, 3)).toThrow(FencedError);
    expect(w.trace.events.filter((e) => e.type === 'txn.fenced').map((e) => e.attrs['what'])).toEqual([
      'commit s#3@0/e0', 'write s#3@0/e2', 'begin s#3@0/e3', 'commit s#3@0/e1',
      'commit s#3@0/e0 by subtask 0', 'abort s#3@0/e0',
    ]);
  });
});
