import { describe, expect, test } from 'vitest';
import { AssertionError } from '../util/assert.ts';
import { DefaultOperatorStateBackend } from './DefaultOperatorStateBackend.ts';
import type { OperatorStateHandle } from './OperatorStateHandle.ts';
import { RoundRobinOperatorStateRepartitioner } from './RoundRobinOperatorStateRepartitioner.ts';

function subtask(i: number): DefaultOperatorStateBackend {
  const b = new DefaultOperatorStateBackend();
  b.getListState<string>('offsets').addAll([`s${i}-a`, `s${i}-b`, `s${i}-c`].slice(0, i + 1));
  b.getUnionListState<number>('seen').add(i);
  const bc = b.getBroadcastState<string, number>('rules');
  bc.put('limit', 10);
  bc.put(`from-${i}`, i);
  return b;
}

describe('DefaultOperatorStateBackend', () => {
  test('list, union and broadcast state operations', () => {
    const b = new DefaultOperatorStateBackend();
    expect(b.snapshot('empty')).toBeNull();
    const l = b.getListState<number>('l');
    expect(b.getListState<number>('l')).toBe(l);
    l.add(1);
    l.addAll([2, 3]);
    expect(l.get()).toEqual([1, 2, 3]);
    l.update([4]);
    expect(l.get()).toEqual([4]);
    expect(() => l.add(undefined as unknown as number)).toThrow(AssertionError);
    const bc = b.getBroadcastState<string, { n: number }>('bc');
    expect(bc.isEmpty()).toBe(true);
    bc.putAll([['a', { n: 1 }], ['b', { n: 2 }]]);
    expect(bc.get('a')).toEqual({ n: 1 });
    expect(Object.isFrozen(bc.get('a'))).toBe(true);
    expect(bc.contains('b')).toBe(true);
    expect(bc.keys()).toEqual(['a', 'b']);
    expect(bc.values()).toEqual([{ n: 1 }, { n: 2 }]);
    bc.remove('a');
    expect(bc.entries()).toEqual([['b', { n: 2 }]]);
    expect(() => bc.put('c', undefined as unknown as { n: number })).toThrow(AssertionError);
    expect(b.getRegisteredStates()).toEqual([
      { name: 'l', mode: 'SPLIT_DISTRIBUTE' }, { name: 'bc', mode: 'BROADCAST' },
    ]);
    expect(() => b.getUnionListState('l')).toThrow(AssertionError);
    expect(() => b.getBroadcastState('l')).toThrow(AssertionError);
    expect(() => b.getListState('bc')).toThrow(AssertionError);
    bc.clear();
    l.clear();
    expect(b.decode()).toEqual({ l: [], bc: {} });
    b.checkInvariants();
  });

  test('a snapshot is a frozen copy', () => {
    const b = subtask(1);
    const snap = b.snapshot('op-1-cp1') as OperatorStateHandle;
    b.getListState<string>('offsets').add('later');
    b.getBroadcastState<string, number>('rules').put('limit', 99);
    expect(snap.handleId).toBe('op-1-cp1');
    expect(Object.isFrozen(snap)).toBe(true);
    expect(snap.states.get('offsets')).toEqual({
      mode: 'SPLIT_DISTRIBUTE', elements: ['s1-a', 's1-b'],
    });
    expect(snap.states.get('seen')).toEqual({ mode: 'UNION', elements: [1] });
    expect(snap.states.get('rules')).toEqual({
      mode: 'BROADCAST', elements: [['limit', 10], ['from-1', 1]],
    });
    expect(Object.isFrozen(snap.states.get('offsets')?.elements)).toBe(true);
  });

  test('restore through the repartitioner, 3 -> 2', () => {
    const old = [0, 1, 2].map((i) => {
      const h = subtask(i).snapshot(`h${i}`);
      return h === null ? [] : [h];
    });
    const assigned = RoundRobinOperatorStateRepartitioner.INSTANCE.repartitionState(old, 3, 2);
    const restored = assigned.map((handles) => {
      const b = new DefaultOperatorStateBackend();
      b.restore(handles);
      b.checkInvariants();
      return b.decode();
    });
    const split = restored.flatMap((d) => d.offsets as string[]);
    expect(split.sort()).toEqual(['s0-a', 's1-a', 's1-b', 's2-a', 's2-b', 's2-c']);
    for (const d of restored) {
      expect((d.seen as number[]).slice().sort()).toEqual([0, 1, 2]);
    }
    expect(restored[0]?.rules).toEqual({ limit: 10, 'from-0': 0 });
    expect(restored[1]?.rules).toEqual({ limit: 10, 'from-1': 1 });
  });

  test('restore is first and once; a mode conflict between handles is an error', () => {
    const b = subtask(0);
    expect(() => b.restore([])).toThrow(AssertionError);
    const r = new DefaultOperatorStateBackend();
    r.restore([]);
    expect(() => r.restore([])).toThrow(AssertionError);
    const h = subtask(0).snapshot('x') as OperatorStateHandle;
    const conflicting: OperatorStateHandle = {
      handleId: 'y', states: new Map([['offsets', { mode: 'UNION', elements: [1] }]]),
    };
    expect(() => new DefaultOperatorStateBackend().restore([h, conflicting]))
      .toThrow(AssertionError);
  });
});
