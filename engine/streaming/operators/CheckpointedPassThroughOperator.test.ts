import { describe, expect, test } from 'vitest';
import type {
  CheckpointedPassThroughFunction, FunctionInitializationContext, ListState,
} from '../api/functions.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import { CheckpointedPassThroughOperator, OPERATOR_STATE_RESTORED_EVENT } from './CheckpointedPassThroughOperator.ts';
import { operatorStateElements, readRestoredState } from './OperatorSubtaskState.ts';
import { ASYNC_SNAPSHOT_READS_LIVE } from './StreamOperator.ts';
import { createTestingOperatorContext, TestingOutput } from './testing/TestingOperatorContext.ts';
import { createTestingOperatorEnv } from './testing/TestingOperatorEnv.ts';

const rec = (value: number, split: number): StreamRecord => ({ value, split, offset: 3, tag: '/x.1' });

/** Keeps the splits it saw in list state `seen` and, in union state `all`, those it owns. */
function fn(): CheckpointedPassThroughFunction<unknown> {
  let seen: ListState<number>;
  let all: ListState<number>;
  let ctx: FunctionInitializationContext;
  return {
    initializeState(c) {
      ctx = c;
      seen = c.getOperatorStateStore().getListState<number>('seen');
      all = c.getOperatorStateStore().getUnionListState<number>('all');
      all.update(all.get().filter((s) => s % c.parallelism === c.subtaskIndex));
    },
    observe(_v, split) {
      if (!seen.get().includes(split)) seen.add(split);
      if (split % ctx.parallelism === ctx.subtaskIndex && !all.get().includes(split)) all.add(split);
    },
    snapshotState() {},
  };
}

function operator(options: { subtaskIndex?: number; parallelism?: number; restoredCheckpointId?: number; bugs?: string[] } = {}) {
  const tracer = new TestingTracer();
  const env = { ...createTestingOperatorEnv({ bugs: options.bugs ?? [] }), tracer };
  const base = createTestingOperatorContext({ env, subtaskIndex: options.subtaskIndex ?? 0, parallelism: options.parallelism ?? 2 });
  const ctx = options.restoredCheckpointId === undefined ? base : { ...base, restoredCheckpointId: options.restoredCheckpointId };
  const op = new CheckpointedPassThroughOperator('p', fn, ctx);
  const out = new TestingOutput();
  op.setup(out);
  return { op, out, tracer };
}

describe('CheckpointedPassThroughOperator', () => {
  test('forwards every record itself and snapshots the function\'s list and union state', () => {
    const { op, out, tracer } = operator();
    op.initializeState(undefined);
    for (const r of [rec(5, 2), rec(6, 1), rec(7, 2), rec(8, 4)]) op.processElement(r);
    expect(out.records).toEqual([rec(5, 2), rec(6, 1), rec(7, 2), rec(8, 4)]);
    const state = readRestoredState(op.snapshotState(1).data, 'p');
    expect(operatorStateElements(state, 'seen')).toEqual([2, 1, 4]);
    expect(operatorStateElements(state, 'all')).toEqual([2, 4]);
    expect(state.managedOperatorState[0]?.states.get('all')?.mode).toBe('UNION');
    // A fresh start records no restore evidence.
    expect(tracer.eventsOf(OPERATOR_STATE_RESTORED_EVENT)).toEqual([]);
  });

  test('planted bug async-snapshot-reads-live: the write reads the list state as it is when it ends, not at the barrier', () => {
    for (const bugs of [[], [ASYNC_SNAPSHOT_READS_LIVE]]) {
      const { op } = operator({ bugs });
      op.initializeState(undefined);
      op.processElement(rec(5, 2));
      const taken = op.snapshotState(1);
      op.processElement(rec(6, 1));
      const written = taken.readWhenWritten === undefined ? taken.data : taken.readWhenWritten();
      expect(operatorStateElements(readRestoredState(written, 'p'), 'seen')).toEqual(bugs.length === 0 ? [2] : [2, 1]);
      expect(operatorStateElements(readRestoredState(taken.data, 'p'), 'seen')).toEqual([2]);
    }
  });

  test('a restore records what the backend got and what the function kept', () => {
    const first = operator({ subtaskIndex: 0 });
    first.op.initializeState(undefined);
    first.op.processElement(rec(1, 3));
    first.op.processElement(rec(1, 2));
    const snap = first.op.snapshotState(4).data;
    const restored = operator({ subtaskIndex: 1, restoredCheckpointId: 4 });
    restored.op.initializeState([snap]);
    const [event] = restored.tracer.eventsOf(OPERATOR_STATE_RESTORED_EVENT);
    expect(event?.attrs).toMatchObject({ task: 'v0#1@0', operator: 'p', subtask: 1, parallelism: 2, checkpointId: 4 });
    expect(JSON.parse(String(event?.attrs?.restored))).toEqual({
      seen: { mode: 'SPLIT_DISTRIBUTE', elements: [3, 2] }, all: { mode: 'UNION', elements: [2] },
    });
    // Subtask 1 of 2 owns the odd splits: it drops 2.
    expect(JSON.parse(String(event?.attrs?.holds))).toEqual({ seen: [3, 2], all: [] });
  });

  test('a restored task whose operator had no state records that it got none, and what it holds', () => {
    const { op, tracer } = operator({ restoredCheckpointId: 9 });
    op.initializeState(undefined);
    const [event] = tracer.eventsOf(OPERATOR_STATE_RESTORED_EVENT);
    // Nothing came from the assignment; the states the function registered are empty.
    expect(JSON.parse(String(event?.attrs?.restored))).toEqual({});
    expect(JSON.parse(String(event?.attrs?.holds))).toEqual({ seen: [], all: [] });
  });
});
