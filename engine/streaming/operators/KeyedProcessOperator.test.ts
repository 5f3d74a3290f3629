import { describe, expect, test } from 'vitest';
import { assignKeyToParallelOperator } from '../../state/KeyGroupRangeAssignment.ts';
import type { KeyedProcessFunction } from '../api/functions.ts';
import { recordIdentity, type StreamRecord } from '../api/StreamRecord.ts';
import { KeyedProcessOperator } from './KeyedProcessOperator.ts';
import { ASYNC_SNAPSHOT_READS_LIVE } from './StreamOperator.ts';
import { advanceTo, createTestingOperatorEnv,
  type TestingOperatorEnv } from './testing/TestingOperatorEnv.ts';
import { createTestingOperatorContext, TestingOutput } from './testing/TestingOperatorContext.ts';

interface Event {
  readonly word: string;
  readonly n: number;
}

/** Counts per word, keeps the values seen and emits the count, plus a second output on n < 0. */
const counter: KeyedProcessFunction<string, Event, string> = {
  processElement(value, ctx, out) {
    const count = ctx.getState<number>({ kind: 'value', name: 'count' });
    const next = (count.value() ?? 0) + 1;
    count.update(next);
    ctx.getListState<number>({ kind: 'list', name: 'seen' }).add(value.n);
    ctx.getMapState<string, number>({ kind: 'map', name: 'last' }).put('n', value.n);
    out.collect(`${ctx.getCurrentKey()}=${next}`);
    if (value.n < 0) out.collect(`${ctx.getCurrentKey()} negative`);
  },
};

/** Registers a timer 5 ms after now per record and emits the key and time when it fires. */
const timed: KeyedProcessFunction<string, Event, string> = {
  processElement(value, ctx) {
    const ts = ctx.timerService();
    ts.registerProcessingTimeTimer(ts.currentProcessingTimeMs() + value.n);
    if (value.n === 0) ts.deleteProcessingTimeTimer(ts.currentProcessingTimeMs());
  },
  onTimer(timestampMs, ctx, out) {
    out.collect(`${ctx.getCurrentKey()}@${timestampMs}`);
    if (ctx.getCurrentKey() === 'b') out.collect('b again');
  },
};

function create(fn: KeyedProcessFunction<string, Event, string>, options: {
  env?: TestingOperatorEnv; subtaskIndex?: number; parallelism?: number; restored?: unknown;
} = {}): { op: KeyedProcessOperator; out: TestingOutput; env: TestingOperatorEnv } {
  const env = options.env ?? createTestingOperatorEnv();
  const ctx = createTestingOperatorContext({
    env, subtaskIndex: options.subtaskIndex ?? 0, parallelism: options.parallelism ?? 1, maxParallelism: 128,
  });
  const op = new KeyedProcessOperator({
    uid: 'count', fn: fn as KeyedProcessFunction<string | number | bigint, unknown, unknown>,
    keySelector: (v) => (v as Event).word, ctx,
  });
  const out = new TestingOutput();
  op.setup(out);
  op.initializeState(options.restored);
  op.open();
  return { op, out, env };
}

const rec = (word: string, n: number, offset = 0): StreamRecord => (
  { value: { word, n }, split: 3, offset, tag: '/1' });

describe('KeyedProcessOperator', () => {
  test('traces the records it processed at each snapshot only when the task asks for it', () => {
    const traced = createTestingOperatorEnv();
    const ctx = createTestingOperatorContext({ env: traced });
    const op = new KeyedProcessOperator({
      uid: 'count', fn: counter as KeyedProcessFunction<string | number | bigint, unknown, unknown>,
      keySelector: (v) => (v as Event).word, ctx: { ...ctx, keyedInputTrace: { attemptId: 'v0#0@1', restoredCheckpointId: 3 } },
    });
    op.setup(new TestingOutput());
    op.initializeState(undefined);
    op.open();
    op.processElement(rec('a', 1, 0));
    op.processElement(rec('b', 2, 1));
    op.snapshotState(4);
    op.processElement(rec('a', 3, 2));
    op.snapshotState(-1);
    expect(traced.trace.eventsOf('keyed.inputs').map((e) => [e.attrs['checkpoint'], e.attrs['records']]))
      .toEqual([[4, '3:0:/1,3:1:/1'], [-1, '3:2:/1']]);
    expect(traced.trace.eventsOf('keyed.inputs')[0]?.attrs).toMatchObject({ task: 'v0#0@1', operator: 'count', restored: 3 });
    const { op: plain, env } = create(counter);
    plain.processElement(rec('a', 1, 0));
    plain.snapshotState(1);
    expect(env.trace.eventsOf('keyed.inputs')).toEqual([]);
  });

  test('keeps value, list and map state per key; outputs keep the identity, further ones append /<uid>.i',
    () => {
    const { op, out } = create(counter);
    op.processElement(rec('a', 1, 0));
    op.processElement(rec('b', 2, 1));
    op.processElement(rec('a', -3, 2));
    expect(out.values()).toEqual(['a=1', 'b=1', 'a=2', 'a negative']);
    expect(out.records.map(recordIdentity)).toEqual(['3:0/1', '3:1/1', '3:2/1', '3:2/1/count.1']);
    const decoded = KeyedProcessOperator.decode(op.snapshotState(1).data);
    expect(decoded.state).toEqual({
      count: { a: 2, b: 1 }, seen: { a: [1, -3], b: [2] }, last: { a: { n: -3 }, b: { n: 2 } },
    });
    expect(decoded.timers).toEqual([]);
    op.checkInvariants();
  });

  test('a snapshot is frozen: later updates do not change it', () => {
    const { op } = create(counter);
    op.processElement(rec('a', 1));
    const snapshot = op.snapshotState(1);
    op.processElement(rec('a', 2));
    op.processElement(rec('c', 2));
    expect(KeyedProcessOperator.decode(snapshot.data).state['count']).toEqual({ a: 1 });
    expect(snapshot.sizeBytes).toBeGreaterThan(0);
    expect(snapshot.readWhenWritten).toBeUndefined();
  });

  test('planted bug async-snapshot-reads-live: the async part writes the state as it is when its write ends, later updates included', () => {
    const { op } = create(counter, { env: createTestingOperatorEnv({ bugs: [ASYNC_SNAPSHOT_READS_LIVE] }) });
    op.processElement(rec('a', 1));
    const snapshot = op.snapshotState(1);
    op.processElement(rec('a', 2));
    op.processElement(rec('c', 2));
    // The sync part's own view (what a final-state snapshot reads) is still the barrier's...
    expect(KeyedProcessOperator.decode(snapshot.data).state['count']).toEqual({ a: 1 });
    // ...but the write reads the live backend.
    expect(KeyedProcessOperator.decode(snapshot.readWhenWritten?.()).state['count']).toEqual({ a: 2, c: 1 });
  });

  test('restores state clipped to the subtask key-group range', () => {
    const words = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const whole = create(counter);
    for (const w of words) whole.op.processElement(rec(w, 1));
    const data = whole.op.snapshotState(7).data;
    for (const subtaskIndex of [0, 1]) {
      const part = create(counter, { subtaskIndex, parallelism: 2, restored: data });
      const mine = words.filter((w) => assignKeyToParallelOperator(w, 128, 2) === subtaskIndex);
      expect(Object.keys(KeyedProcessOperator.decode(part.op.snapshotState(8).data).state['count'] ?? {}).sort())
        .toEqual(mine);
      // The restored count continues.
      const w = mine[0]!;
      part.op.processElement(rec(w, 1));
      expect(part.out.values()).toEqual([`${w}=2`]);
    }
  });

  test('processing-time timers fire as mails with the key set; timer outputs carry split -1 and tag timer', () => {
    const { op, out, env } = create(timed);
    op.processElement(rec('a', 5));
    advanceTo(env, 2000);
    op.processElement(rec('b', 5)); // fires at 7 ms
    op.processElement(rec('a', 5)); // a second timer of a, at 7 ms
    op.processElement(rec('c', 0)); // registered and deleted at once
    expect(env.scheduler.numPendingTimers()).toBe(1);
    advanceTo(env, 4999);
    expect(out.values()).toEqual([]);
    advanceTo(env, 5000);
    expect(out.values()).toEqual(['a@5']);
    expect(env.scheduler.numPendingTimers()).toBe(1);
    advanceTo(env, 10_000);
    expect(out.values()).toEqual(['a@5', 'b@7', 'b again', 'a@7']);
    expect(out.records.map(recordIdentity)).toEqual(
      ['-1:5timer', '-1:7timer', '-1:7timer/count.1', '-1:7timer']);
    expect(env.scheduler.numPendingTimers()).toBe(0);
    op.checkInvariants();
  });

  test('timers are snapshotted with the keyed state and restored ones fire after open', () => {
    const first = create(timed);
    first.op.processElement(rec('a', 3));
    const snapshot = first.op.snapshotState(1);
    expect(KeyedProcessOperator.decode(snapshot.data).timers).toEqual([
      { timestampUs: 3000, key: 'a', namespace: '', keyGroup: expect.any(Number) as number },
    ]);
    const env = createTestingOperatorEnv();
    const second = create(timed, { env, restored: snapshot.data });
    expect(env.scheduler.numPendingTimers()).toBe(1);
    advanceTo(env, 2999);
    expect(second.out.values()).toEqual([]);
    advanceTo(env, 3000);
    expect(second.out.values()).toEqual(['a@3']);
  });

  test('an earlier timer moves the wake-up; no timer fires after finish', () => {
    const { op, out, env } = create(timed);
    op.processElement(rec('a', 9));
    op.processElement(rec('b', 4));
    expect(env.scheduler.numPendingTimers()).toBe(1);
    op.finish();
    expect(env.scheduler.numPendingTimers()).toBe(0);
    advanceTo(env, 20_000);
    expect(out.values()).toEqual([]);
    op.close();
    expect(env.registry.names()).toEqual([]);
  });

  test('a function without onTimer still drains its timers', () => {
    const { op, out, env } = create({ processElement: timed.processElement });
    op.processElement(rec('a', 1));
    advanceTo(env, 1000);
    expect(out.values()).toEqual([]);
    op.checkInvariants();
    env.registry.checkAll();
  });

  test('needs setup before emitting and an OperatorSubtaskState to restore', () => {
    const ctx = createTestingOperatorContext();
    const op = new KeyedProcessOperator(
      { uid: 'k', fn: counter as never, keySelector: (v) => (v as Event).word, ctx });
    expect(() => op.initializeState([1, 2])).toThrow(/cannot restore/);
    expect(() => op.processElement(rec('a', 1))).toThrow(/before setup/);
    op.setup(new TestingOutput());
    expect(() => op.setup(new TestingOutput())).toThrow(/set up twice/);
    expect(() => op.handleOperatorEvent({})).toThrow(/unexpected operator event/);
  });
});
