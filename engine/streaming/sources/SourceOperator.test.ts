import { describe, expect, test } from 'vitest';
import { addSplitEvent, noMoreSplitsEvent,
  requestSplitEvent } from '../../coordination/SourceEvent.ts';
import { splitSource } from '../api/sources.ts';
import { recordIdentity } from '../api/StreamRecord.ts';
import type { OperatorSnapshot, SourceInputStatus as InputStatus } from '../operators/StreamOperator.ts';
import {
  createTestingOperatorContext, TestingOutput, type TestingOperatorContext,
} from '../operators/testing/TestingOperatorContext.ts';
import { SourceOperator } from './SourceOperator.ts';

const source = splitSource([
  { id: 0, records: ['a0', 'a1', 'a2'] },
  { id: 1, records: ['b0', 'b1'] },
  { id: 2, records: [] },
]);

function open(restored?: unknown): {
  op: SourceOperator; ctx: TestingOperatorContext; out: TestingOutput } {
  const ctx = createTestingOperatorContext();
  const op = new SourceOperator({ uid: 'src', source, ctx });
  op.initializeState(restored);
  op.open();
  return { op, ctx, out: new TestingOutput() };
}

function drain(op: SourceOperator, out: TestingOutput, max = 100): InputStatus {
  for (let i = 0; i < max; i++) {
    const status = op.emitNext(out);
    if (status !== 'MORE_AVAILABLE') return status;
  }
  throw new Error('source did not stop');
}

describe('SourceOperator', () => {
  test('requests a split on open, waits for it, reads it with identities, requests the next',
    () => {
    const { op, ctx, out } = open();
    expect(ctx.gateway.sent).toEqual([requestSplitEvent()]);
    expect(op.emitNext(out)).toBe('NOTHING_AVAILABLE');
    let woken = 0;
    op.onAvailable(() => woken++);
    op.handleOperatorEvent(addSplitEvent([{ splitId: 1, offset: 0 }]));
    expect(woken).toBe(1);
    expect(op.emitNext(out)).toBe('MORE_AVAILABLE');
    expect(ctx.gateway.sent).toHaveLength(1);
    expect(op.emitNext(out)).toBe('MORE_AVAILABLE');
    // The split's last record finishes it: a new request goes out at once.
    expect(ctx.gateway.sent).toHaveLength(2);
    expect(op.emitNext(out)).toBe('NOTHING_AVAILABLE');
    expect(out.records.map(recordIdentity)).toEqual(['1:0', '1:1']);
    expect(out.values()).toEqual(['b0', 'b1']);
    op.checkInvariants();
  });

  test('ends input after NoMoreSplitsEvent once every held split is read; empty splits finish at once', () => {
    const { op, ctx, out } = open();
    op.handleOperatorEvent(addSplitEvent([{ splitId: 2, offset: 0 }, { splitId: 0, offset: 1 }]));
    op.handleOperatorEvent(noMoreSplitsEvent());
    expect(drain(op, out)).toBe('END_OF_INPUT');
    expect(out.records.map(recordIdentity)).toEqual(['0:1', '0:2']);
    // Only the request on open: both splits finished after NoMoreSplitsEvent arrived.
    expect(ctx.gateway.sent).toHaveLength(1);
    expect(op.emitNext(out)).toBe('END_OF_INPUT');
  });

  test('stop(NO_DRAIN) for stop-with-savepoint: no more records, STOPPED once, then END_OF_INPUT; '
    + 'the split keeps its offset for the savepoint and a waiting task is woken (SourceOperator.stop)', () => {
    const { op, out } = open();
    op.handleOperatorEvent(addSplitEvent([{ splitId: 0, offset: 0 }]));
    expect(op.emitNext(out)).toBe('MORE_AVAILABLE');
    op.stop('NO_DRAIN');
    expect(op.emitNext(out)).toBe('STOPPED');
    expect(op.emitNext(out)).toBe('END_OF_INPUT');
    expect(out.values()).toEqual(['a0']);
    expect(op.currentSplits()).toEqual([{ splitId: 0, offset: 1 }]);
    op.checkInvariants();
  });

  test('stop(DRAIN) ends the data with END_OF_INPUT at once; a source already at its end stays there; '
    + 'stop wakes a task that waits for input', () => {
    const { op, out } = open();
    let woken = 0;
    expect(op.emitNext(out)).toBe('NOTHING_AVAILABLE');
    op.onAvailable(() => woken++);
    op.stop('DRAIN');
    expect(woken).toBe(1);
    expect(op.emitNext(out)).toBe('END_OF_INPUT');
    op.stop('NO_DRAIN');
    expect(op.emitNext(out)).toBe('END_OF_INPUT');
    expect(out.values()).toEqual([]);
    op.checkInvariants();
  });

  test('reports each record it emits to the task metric group at its processing time', () => {
    const { op, ctx, out } = open();
    op.handleOperatorEvent(addSplitEvent([{ splitId: 0, offset: 1 }]));
    ctx.env.scheduler.advanceTimeUs(250);
    op.emitNext(out);
    ctx.env.scheduler.advanceTimeUs(100);
    op.emitNext(out);
    expect(ctx.env.metricGroups.taskIO('v0#0@0').reads).toEqual([[0, 1, 250], [0, 2, 350]]);
  });

  test('onAvailable fires through the mailbox when input is already available', () => {
    const { op, ctx } = open();
    op.handleOperatorEvent(noMoreSplitsEvent());
    let woken = 0;
    op.onAvailable(() => woken++);
    expect(woken).toBe(0);
    ctx.env.scheduler.runAll();
    expect(woken).toBe(1);
  });

  test('snapshots held splits with next offsets and restores them exactly', () => {
    const { op, out } = open();
    op.handleOperatorEvent(addSplitEvent([{ splitId: 0, offset: 0 }, { splitId: 1, offset: 0 }]));
    op.emitNext(out);
    const snapshot = op.snapshotState(1);
    expect(SourceOperator.decode(snapshot.data)).toEqual({ 0: 1, 1: 0 });
    // Later reading does not change the snapshot.
    drain(op, out);
    expect(SourceOperator.decode(snapshot.data)).toEqual({ 0: 1, 1: 0 });
    expect(SourceOperator.decode(op.snapshotState(2).data)).toEqual({});

    const restored = open(snapshot.data);
    // It restored splits, so it does not ask on open.
    expect(restored.ctx.gateway.sent).toEqual([]);
    expect(restored.op.currentSplits()).toEqual(
      [{ splitId: 0, offset: 1 }, { splitId: 1, offset: 0 }]);
    restored.op.handleOperatorEvent(noMoreSplitsEvent());
    expect(drain(restored.op, restored.out)).toBe('END_OF_INPUT');
    expect(restored.out.records.map(recordIdentity)).toEqual(['0:1', '0:2', '1:0', '1:1']);
  });

  test('restores from several pieces and rejects foreign state and events', () => {
    const a = open();
    a.op.handleOperatorEvent(addSplitEvent([{ splitId: 0, offset: 2 }]));
    const b = open();
    b.op.handleOperatorEvent(addSplitEvent([{ splitId: 1, offset: 1 }]));
    const pieces = [a.op.snapshotState(3), b.op.snapshotState(3)].map(
      (s: OperatorSnapshot) => s.data);
    const merged = {
      managedKeyedState: [],
      managedOperatorState: pieces.flatMap(
        (p) => (p as { managedOperatorState: unknown[] }).managedOperatorState),
    };
    expect(SourceOperator.decode(merged)).toEqual({ 0: 2, 1: 1 });
    expect(open(merged).op.currentSplits()).toEqual(
      [{ splitId: 0, offset: 2 }, { splitId: 1, offset: 1 }]);
    expect(() => open({ splits: [1] })).toThrow(/cannot restore/);
    expect(() => a.op.handleOperatorEvent(requestSplitEvent())).toThrow(/unexpected event/);
    expect(() => a.op.handleOperatorEvent(addSplitEvent([{ splitId: 9, offset: 0 }]))).toThrow(
      /unknown split/);
    expect(() => a.op.handleOperatorEvent(addSplitEvent([{ splitId: 0, offset: 0 }]))).toThrow(
      /added twice/);
    expect(() => a.op.handleOperatorEvent(addSplitEvent([{ splitId: 1, offset: 3 }]))).toThrow(
      /outside split/);
    expect(() => a.op.processElement({ value: 1, split: 0, offset: 0, tag: '' })).toThrow(
      /got a record/);
  });

  test('registers its invariants while open; lifecycle hooks are no-ops', () => {
    const { op, ctx } = open();
    expect(ctx.env.registry.names()).toEqual(['source/v0#0/src']);
    ctx.env.registry.checkAll();
    op.prepareSnapshotPreBarrier(1);
    op.notifyCheckpointComplete(1);
    op.notifyCheckpointAborted(1);
    op.endInput();
    op.finish();
    op.close();
    expect(ctx.env.registry.names()).toEqual([]);
  });
});

describe('SourceOperator restored after a rescale', () => {
  test('a scale-in hands the reader the splits of several old subtasks, as a list of pieces: it reads them all and requests none', () => {
    // Two old readers' snapshots, as the state assignment hands them to one new subtask.
    const snapshotOf = (split: { splitId: number; offset: number }): unknown => {
      const { op } = open();
      op.handleOperatorEvent(addSplitEvent([split]));
      return op.snapshotState(1).data;
    };
    const { op, ctx, out } = open([snapshotOf({ splitId: 0, offset: 1 }), snapshotOf({ splitId: 1, offset: 0 })]);
    expect(op.currentSplits()).toEqual([{ splitId: 0, offset: 1 }, { splitId: 1, offset: 0 }]);
    expect(ctx.gateway.sent).toEqual([]);
    op.handleOperatorEvent(noMoreSplitsEvent());
    expect(drain(op, out)).toBe('END_OF_INPUT');
    expect(out.records.map(recordIdentity)).toEqual(['0:1', '0:2', '1:0', '1:1']);
  });
});
