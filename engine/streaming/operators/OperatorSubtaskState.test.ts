import { describe, expect, test } from 'vitest';
import { HeapKeyedStateBackend } from '../../state/HeapKeyedStateBackend.ts';
import { KeyGroupRange } from '../../state/KeyGroupRange.ts';
import { assignToKeyGroup } from '../../state/KeyGroupRangeAssignment.ts';
import { operatorStateHandle } from '../../state/OperatorStateHandle.ts';
import {
  decodeKeyedState, EMPTY_OPERATOR_SUBTASK_STATE, operatorStateElements, operatorSubtaskState, readRestoredState,
} from './OperatorSubtaskState.ts';

function keyed(range: KeyGroupRange, keys: string[]): HeapKeyedStateBackend {
  const b = new HeapKeyedStateBackend({ keyGroupRange: range, maxParallelism: 128 });
  for (const k of keys) {
    b.setCurrentKey(k);
    b.getValueState<string>('v').update(`${k}!`);
    b.timerService.registerProcessingTimeTimer(k.length * 1000);
  }
  return b;
}

describe('OperatorSubtaskState', () => {
  test('undefined is the empty state; an OperatorSubtaskState is taken as is', () => {
    expect(readRestoredState(undefined, 'x')).toBe(EMPTY_OPERATOR_SUBTASK_STATE);
    const s = operatorSubtaskState({});
    expect(readRestoredState(s, 'x')).toBe(s);
    expect(Object.isFrozen(s.managedKeyedState)).toBe(true);
  });

  test('a list of pieces of any kind is merged in order', () => {
    const a = keyed(new KeyGroupRange(64, 127), ['a']).snapshot(); // 'a' is in key group 81
    const b = keyed(new KeyGroupRange(0, 127), ['bbb', 'd']).snapshot().getIntersection(
      new KeyGroupRange(0, 63));
    expect(b).not.toBeNull(); // 'd' (key group 64) is clipped off
    expect(assignToKeyGroup('bbb', 128)).toBeLessThan(64);
    const h1 = operatorStateHandle('h1', { s: { mode: 'SPLIT_DISTRIBUTE', elements: [1] } });
    const h2 = operatorStateHandle('h2', { s: { mode: 'SPLIT_DISTRIBUTE', elements: [2, 3] } });
    const merged = readRestoredState(
      [a, h1, operatorSubtaskState({ managedKeyedState: b === null ? [] : [b], managedOperatorState: [h2] })], 'x');
    expect(merged.managedKeyedState).toEqual([a, b]);
    expect(operatorStateElements(merged, 's')).toEqual([1, 2, 3]);
    expect(operatorStateElements(merged, 'other')).toEqual([]);
    const decoded = decodeKeyedState(merged);
    expect(decoded.state).toEqual({ v: { a: 'a!', bbb: 'bbb!' } });
    expect(decoded.timers.map((t) => [t.timestampUs, t.key])).toEqual([[1000, 'a'], [3000, 'bbb']]);
  });

  test('other shapes are rejected with the operator named', () => {
    expect(() => readRestoredState({ state: 1 }, 'op-7')).toThrow(/op-7 cannot restore/);
    expect(() => readRestoredState([{ handleId: 'h' }], 'op-7')).toThrow(/piece/);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => readRestoredState(cyclic, 'op-7')).toThrow(/object Object/);
  });
});
