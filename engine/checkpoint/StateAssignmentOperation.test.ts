import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  assignKeyToParallelOperator, assignToKeyGroup, computeKeyGroupRangeForOperatorIndex,
} from '../state/KeyGroupRangeAssignment.ts';
import { operatorStateHandle, type OperatorStateHandle, type OperatorStateMode } from '../state/OperatorStateHandle.ts';
import type { KeyedProcessFunction } from '../streaming/api/functions.ts';
import { KeyedProcessOperator } from '../streaming/operators/KeyedProcessOperator.ts';
import {
  operatorSubtaskState, type OperatorSubtaskState,
} from '../streaming/operators/OperatorSubtaskState.ts';
import { createTestingOperatorContext, TestingOutput } from '../streaming/operators/testing/TestingOperatorContext.ts';
import { createTestingOperatorEnv } from '../streaming/operators/testing/TestingOperatorEnv.ts';
import { RESTORE_HANDLE_REPLACES } from '../state/HeapKeyedStateBackend.ts';
import type { CheckpointJobVertex } from './CheckpointCoordinatorContext.ts';
import { StateAssignmentError } from './StateAssignmentError.ts';
import { StateAssignmentOperation } from './StateAssignmentOperation.ts';
import type { JobManagerTaskRestore } from './TaskStateSnapshot.ts';
import { completedCheckpointOf, stateFilePath } from './testing/completedCheckpointOf.ts';
import { testingJobVertex } from './testing/testingJobVertex.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';

/** Runs the assignment for every subtask of `vertices`. */
function assign(checkpoint: CompletedCheckpoint, vertices: readonly CheckpointJobVertex[],
  allowNonRestoredState = false): Map<string, JobManagerTaskRestore> {
  return new StateAssignmentOperation(checkpoint, vertices, { allowNonRestoredState })
    .assignStates(vertices.flatMap((v) => Array.from({ length: v.parallelism }, (_x, i) => ({ vertexId: v.id, subtask: i }))));
}

/** The OperatorSubtaskState pieces `uid` gets on `key`, in handle order. */
function pieces(out: Map<string, JobManagerTaskRestore>, key: string, uid: string): OperatorSubtaskState[] {
  return (out.get(key)?.taskStateSnapshot.operators ?? [])
    .filter((h) => h.operatorUid === uid).map((h) => h.data as OperatorSubtaskState);
}

// ---------------------------------------------------------------------------------------------
// Keyed state: a counting KeyedProcessOperator, snapshotted at one parallelism, restored at another.

interface Word { readonly word: string }
const count: KeyedProcessFunction<string, Word, string> = {
  processElement(_v, ctx, out) {
    const c = ctx.getState<number>({ kind: 'value', name: 'count' });
    c.update((c.value() ?? 0) + 1);
    out.collect(String(ctx.getCurrentKey()));
  },
};

/** Words, at least two per key group of `maxP`. */
function wordsCovering(maxP: number): string[] {
  const per = new Map<number, number>();
  const out: string[] = [];
  for (let n = 0; [...per.values()].filter((c) => c >= 2).length < maxP; n++) {
    const w = `w${n}`;
    const kg = assignToKeyGroup(w, maxP);
    if ((per.get(kg) ?? 0) >= 2) continue;
    per.set(kg, (per.get(kg) ?? 0) + 1);
    out.push(w);
  }
  return out;
}

function keyedOperator(maxP: number, p: number, i: number, restored: unknown, bugs: readonly string[] = []): KeyedProcessOperator {
  const ctx = createTestingOperatorContext({ env: createTestingOperatorEnv({ bugs }), subtaskIndex: i, parallelism: p, maxParallelism: maxP });
  const op = new KeyedProcessOperator({ uid: 'keyed', fn: count as never, keySelector: (v) => (v as Word).word, ctx });
  op.setup(new TestingOutput());
  op.initializeState(restored);
  op.open();
  return op;
}

/** Per subtask of `p`, the snapshot data of a counter that saw each of `words` once (its own keys). */
function keyedSnapshots(words: readonly string[], maxP: number, p: number): unknown[] {
  return Array.from({ length: p }, (_x, i) => {
    const op = keyedOperator(maxP, p, i, undefined);
    for (const [n, word] of words.entries()) {
      if (assignKeyToParallelOperator(word, maxP, p) === i) op.processElement({ value: { word }, split: 0, offset: n, tag: '/1' });
    }
    return op.snapshotState(1).data;
  });
}

/** What a task gives initializeState: one piece's data, or the list of them (readOperatorStates). */
function restoredArgument(ps: readonly OperatorSubtaskState[]): unknown {
  return ps.length === 1 ? ps[0] : ps;
}

/** A split-distributed list state `name` with elements `[prefix0, prefix1]`, as one handle. */
function listState(handleId: string, name: string, elements: readonly string[]): OperatorSubtaskState {
  return operatorSubtaskState({ managedOperatorState: [operatorStateHandle(handleId, { [name]: { mode: 'SPLIT_DISTRIBUTE', elements } })] });
}

describe('CheckpointCoordinatorRestoringTest: testRestoreLatestCheckpointedStateWithChangingParallelism', () => {
  const MAX_P = 13;
  const words = wordsCovering(MAX_P);
  for (const [name, oldP, newP] of [['ScaleOut', 2, 13], ['ScaleIn', 13, 2]] as const) {
    test(`testRestoreLatestCheckpointedState${name}: maxP 13, p ${oldP} -> ${newP}; the unchanged vertex gets its old state one to one`, () => {
      const before = [
        testingJobVertex({ id: 'v1', parallelism: 3, operatorUids: ['other'], maxParallelism: 42 }),
        testingJobVertex({ id: 'v2', parallelism: oldP, operatorUids: ['keyed'], maxParallelism: MAX_P }),
      ];
      const checkpoint = completedCheckpointOf({ vertices: before, states: {
        other: [0, 1, 2].map((i) => listState(`o${i}`, 'l', [`o${i}`])),
        keyed: keyedSnapshots(words, MAX_P, oldP),
      } });
      expect(checkpoint.operatorInfo.get('keyed')).toEqual({ parallelism: oldP, maxParallelism: MAX_P, fullyFinished: false, finishedSubtasks: [] });
      const after = [
        testingJobVertex({ id: 'v1', parallelism: 3, operatorUids: ['other'], maxParallelism: 42 }),
        testingJobVertex({ id: 'v2', parallelism: newP, operatorUids: ['keyed'], maxParallelism: MAX_P }),
      ];
      const out = assign(checkpoint, after);
      // The unchanged vertex: its own handles, the very same objects.
      for (const i of [0, 1, 2]) {
        expect(out.get(`v1#${i}`)?.taskStateSnapshot.operators).toEqual([checkpoint.operatorStates.get('other')?.get(i)]);
        expect(out.get(`v1#${i}`)?.taskStateSnapshot.operators[0]).toBe(checkpoint.operatorStates.get('other')?.get(i));
      }
      const seen = new Set<string>();
      for (let i = 0; i < newP; i++) {
        const range = computeKeyGroupRangeForOperatorIndex(MAX_P, newP, i);
        const ps = pieces(out, `v2#${i}`, 'keyed');
        // Every piece lies inside the new range, and together they hold exactly its key groups.
        const groups = ps.flatMap((p) => p.managedKeyedState.flatMap((k) => {
          expect(range.getIntersection(k.keyGroupRange)).toEqual(k.keyGroupRange);
          return k.keyGroupIds();
        })).sort((a, b) => a - b);
        expect(groups).toEqual([...Array(range.getNumberOfKeyGroups()).keys()].map((k) => k + range.startKeyGroup));
        // Each piece names the file of the old subtask it comes from.
        for (const h of out.get(`v2#${i}`)?.taskStateSnapshot.operators ?? []) {
          expect(h.handle.path).toMatch(/^chk-1\/v2#\d+@0\/keyed$/);
        }
        // Restored into the new subtask, the backend holds exactly the keys it owns, counted once.
        const state = KeyedProcessOperator.decode(keyedOperator(MAX_P, newP, i, restoredArgument(ps)).snapshotState(2).data).state;
        const mine = words.filter((w) => assignKeyToParallelOperator(w, MAX_P, newP) === i);
        expect(Object.keys(state['count'] ?? {}).sort()).toEqual([...mine].sort());
        expect(Object.values(state['count'] ?? {}).every((c) => c === 1)).toBe(true);
        for (const w of mine) seen.add(w);
      }
      expect(seen.size).toBe(words.length);
    });
  }
});

describe('planted bug restore-handle-replaces (FLINK-4731)', () => {
  const MAX_P = 128;
  const words = wordsCovering(MAX_P);
  const restoredKeys = (bugs: readonly string[]): { kept: number; owned: number } => {
    const v = (p: number) => [testingJobVertex({ id: 'k', parallelism: p, operatorUids: ['keyed'] })];
    const checkpoint = completedCheckpointOf({ vertices: v(4), states: { keyed: keyedSnapshots(words, MAX_P, 4) } });
    const out = assign(checkpoint, v(2));
    const ps = pieces(out, 'k#0', 'keyed');
    expect(ps).toHaveLength(2); // new subtask 0 gets the ranges of old subtasks 0 and 1
    const state = KeyedProcessOperator.decode(keyedOperator(MAX_P, 2, 0, restoredArgument(ps), bugs).snapshotState(2).data).state;
    return {
      kept: Object.keys(state['count'] ?? {}).length,
      owned: words.filter((w) => assignKeyToParallelOperator(w, MAX_P, 2) === 0).length,
    };
  };
  test('off: a scale-in 4 -> 2 merges both old subtasks\' key groups', () => {
    const { kept, owned } = restoredKeys([]);
    expect(kept).toBe(owned);
  });
  test('on: only the last handle\'s key groups survive the scale-in (keyed state of old subtask 0 lost)', () => {
    const { kept, owned } = restoredKeys([RESTORE_HANDLE_REPLACES]);
    const ofOldSubtask1 = words.filter((w) => assignKeyToParallelOperator(w, MAX_P, 4) === 1).length;
    expect(kept).toBe(ofOldSubtask1);
    expect(kept).toBeLessThan(owned);
  });
});

describe('CheckpointCoordinatorRestoringTest: testRestoreLatestCheckpointFailureWhenMaxParallelismChanges', () => {
  const words = wordsCovering(42);
  const checkpoint = () => completedCheckpointOf({
    vertices: [
      testingJobVertex({ id: 'v1', parallelism: 2, operatorUids: ['a'], maxParallelism: 42 }),
      testingJobVertex({ id: 'v2', parallelism: 2, operatorUids: ['keyed'], maxParallelism: 13 }),
    ],
    states: { a: keyedSnapshots(words, 42, 2), keyed: keyedSnapshots(words, 13, 2) },
  });

  test('restoring into vertices with explicit max parallelism 20 and 42 fails with Flink\'s message, naming the operator', () => {
    const run = () => assign(checkpoint(), [
      testingJobVertex({ id: 'v1', parallelism: 2, operatorUids: ['a'], maxParallelism: 20 }),
      testingJobVertex({ id: 'v2', parallelism: 2, operatorUids: ['keyed'], maxParallelism: 42 }),
    ]);
    expect(run).toThrow(StateAssignmentError);
    expect(run).toThrow(/^The maximum parallelism \(42\) with which the latest checkpoint \(1\) of operator a \(vertex v1\) has been taken and the current maximum parallelism \(20\) changed\. This is currently not supported\.$/);
  });

  test('a max parallelism that was not configured adopts the state\'s, and the keyed ranges use it', () => {
    const v1 = testingJobVertex({ id: 'v1', parallelism: 3, operatorUids: ['a'] });
    const v2 = testingJobVertex({ id: 'v2', parallelism: 3, operatorUids: ['keyed'] });
    expect([v1.maxParallelism, v2.maxParallelism]).toEqual([128, 128]);
    const out = assign(checkpoint(), [v1, v2]);
    expect([v1.maxParallelism, v2.maxParallelism]).toEqual([42, 13]);
    for (let i = 0; i < 3; i++) {
      const range = computeKeyGroupRangeForOperatorIndex(13, 3, i);
      const ranges = pieces(out, `v2#${i}`, 'keyed').flatMap((p) => p.managedKeyedState.map((k) => k.keyGroupRange));
      expect(ranges.map((r) => range.getIntersection(r))).toEqual(ranges);
      expect(ranges.reduce((n, r) => n + r.getNumberOfKeyGroups(), 0)).toBe(range.getNumberOfKeyGroups());
    }
  });

  test('a parallelism above the state\'s max parallelism fails, configured or not', () => {
    for (const configured of [false, true]) {
      const run = () => assign(checkpoint(), [
        testingJobVertex({ id: 'v1', parallelism: 2, operatorUids: ['a'], maxParallelism: 42 }),
        testingJobVertex({ id: 'v2', parallelism: 14, operatorUids: ['keyed'], maxParallelism: 128, maxParallelismConfigured: configured }),
      ]);
      expect(run).toThrow(StateAssignmentError);
      expect(run).toThrow(/^The state for operator keyed \(vertex v2\) can not be restored\. The maximum parallelism \(13\) of the restored state is lower than the configured parallelism \(14\)\./);
    }
  });

  test('the error names the operator uid', () => {
    try {
      assign(checkpoint(), [
        testingJobVertex({ id: 'v1', parallelism: 2, operatorUids: ['a'], maxParallelism: 42 }),
        testingJobVertex({ id: 'x', parallelism: 2, operatorUids: ['keyed'], maxParallelism: 14 }),
      ]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StateAssignmentError);
      expect((e as StateAssignmentError).operatorUid).toBe('keyed');
    }
  });
});

describe('state is matched by operator uid, not by vertex id', () => {
  test('chaining changed across the rescale: two old vertices chained into one new vertex', () => {
    const checkpoint = completedCheckpointOf({
      vertices: [
        testingJobVertex({ id: 'v0', parallelism: 2, operatorUids: ['src'] }),
        testingJobVertex({ id: 'v1', parallelism: 3, operatorUids: ['map'] }),
      ],
      states: {
        src: [0, 1].map((i) => listState(`s${i}`, 'splits', [`split-${i}`])),
        map: [0, 1, 2].map((i) => listState(`m${i}`, 'seen', [`m${i}`])),
      },
    });
    // Both at parallelism 3 now, chained into vertex 'c' (another id).
    const out = assign(checkpoint, [testingJobVertex({ id: 'c', parallelism: 3, operatorUids: ['src', 'map'] })]);
    const elements = (uid: string, name: string) => [0, 1, 2].map((i) => pieces(out, `c#${i}`, uid)
      .flatMap((p) => p.managedOperatorState.flatMap((h) => [...(h.states.get(name)?.elements ?? [])])));
    expect(elements('src', 'splits')).toEqual([['split-0'], ['split-1'], []]);
    expect(elements('map', 'seen')).toEqual([['m0'], ['m1'], ['m2']]);
    // The unchanged operator keeps its own handle objects even in the new chain.
    expect(out.get('c#2')?.taskStateSnapshot.operators.map((h) => h.operatorUid)).toEqual(['map']);
    expect(out.get('c#1')?.taskStateSnapshot.operators[1]).toBe(checkpoint.operatorStates.get('map')?.get(1));
  });

  test('checkStateMappingCompleteness: state of a removed operator fails unless non-restored state is allowed', () => {
    const checkpoint = completedCheckpointOf({
      vertices: [testingJobVertex({ id: 'v0', parallelism: 1, operatorUids: ['gone'] })],
      states: { gone: [listState('g', 'l', ['x'])] },
    });
    const v = [testingJobVertex({ id: 'v0', parallelism: 2, operatorUids: ['new'] })];
    expect(() => assign(checkpoint, v)).toThrow(/^There is no operator for the state gone$/);
    expect(() => assign(checkpoint, v)).toThrow(StateAssignmentError);
    expect(assign(checkpoint, v, true).size).toBe(0);
  });
});

describe('finished vertices and subtasks', () => {
  const vertices = (pSrc: number, pMap: number) => [
    testingJobVertex({ id: 'src', parallelism: pSrc, operatorUids: ['src'] }),
    testingJobVertex({ id: 'map', parallelism: pMap, operatorUids: ['map'] }),
  ];
  test('testStateWithFullyFinishedOperators: a fully finished vertex is finished on restore at its new parallelism', () => {
    const checkpoint = completedCheckpointOf({
      vertices: vertices(3, 3),
      states: { map: [0, 1, 2].map((i) => listState(`m${i}`, 'l', [`m${i}`])) },
      finished: [0, 1, 2].map((i) => ({ vertexId: 'src', subtask: i })), fullyFinished: ['src'],
    });
    expect(checkpoint.operatorInfo.get('src')).toEqual({ parallelism: 3, maxParallelism: 128, fullyFinished: true, finishedSubtasks: [0, 1, 2] });
    const out = assign(checkpoint, vertices(2, 2));
    for (const i of [0, 1]) {
      expect(out.get(`src#${i}`)?.taskStateSnapshot.isTaskDeployedAsFinished).toBe(true);
      expect(out.get(`map#${i}`)?.taskStateSnapshot.isTaskDeployedAsFinished).toBe(false);
    }
  });

  test('a partly finished vertex, rescaled, deploys every new subtask with its share (Flink finishes only fully finished vertices)', () => {
    const checkpoint = completedCheckpointOf({
      vertices: vertices(3, 3),
      states: { src: [listState('s0', 'splits', ['a']), listState('s1', 'splits', ['b']), undefined] },
      finished: [{ vertexId: 'src', subtask: 2 }],
    });
    const out = assign(checkpoint, vertices(2, 3));
    expect([0, 1].map((i) => out.get(`src#${i}`)?.taskStateSnapshot.isTaskDeployedAsFinished)).toEqual([false, false]);
    const splits = [0, 1].map((i) => pieces(out, `src#${i}`, 'src').flatMap((p) => p.managedOperatorState.flatMap((h) => [...(h.states.get('splits')?.elements ?? [])])));
    expect(splits).toEqual([['a'], ['b']]);
    // At unchanged parallelism the finished subtask is deployed finished (the simulation's rule).
    expect(assign(checkpoint, vertices(3, 3)).get('src#2')?.taskStateSnapshot.isTaskDeployedAsFinished).toBe(true);
  });

  test('a vertex of fully finished and unfinished operators fails', () => {
    const checkpoint = completedCheckpointOf({
      vertices: vertices(1, 1), states: {}, finished: [{ vertexId: 'src', subtask: 0 }], fullyFinished: ['src'],
    });
    expect(() => assign(checkpoint, [testingJobVertex({ id: 'c', parallelism: 1, operatorUids: ['src', 'map'] })]))
      .toThrow(/^JobVertex c could not have mixed finished and unfinished operators: src fully finished, map not/);
  });
});

describe('StateAssignmentOperation at unchanged parallelism', () => {
  test('split state stays, union state is unioned, finished subtasks restore as finished, stateless vertices get nothing; a partly finished vertex without union state is not declined for another vertex\'s union state', () => {
    const data = (i: number) => operatorSubtaskState({ managedOperatorState: [operatorStateHandle(`f${i}`, {
      u: { mode: 'UNION', elements: [`u${i}`] }, l: { mode: 'SPLIT_DISTRIBUTE', elements: [`l${i}`] } })] });
    const vs = [
      testingJobVertex({ id: 'v', parallelism: 3, operatorUids: ['op'] }),
      testingJobVertex({ id: 'w', parallelism: 1, isSource: true, operatorUids: ['src'] }),
      testingJobVertex({ id: 'x', parallelism: 1, operatorUids: ['stateless'] }),
      testingJobVertex({ id: 'y', parallelism: 2, operatorUids: ['list'] }),
    ];
    const checkpoint = completedCheckpointOf({ vertices: vs, states: { op: [data(0), data(1)], list: [listState('y0', 'l', ['y0'])] },
      finished: [{ vertexId: 'y', subtask: 1 }, { vertexId: 'w', subtask: 0 }], fullyFinished: ['w'] });
    const out = assign(checkpoint, vs);
    const elems = (i: number, name: string) => pieces(out, `v#${i}`, 'op')
      .flatMap((s) => s.managedOperatorState.flatMap((x) => [...(x.states.get(name)?.elements ?? [])]));
    expect(elems(0, 'u')).toEqual(['u0', 'u1']);
    expect(elems(1, 'u')).toEqual(['u0', 'u1']);
    expect(elems(0, 'l')).toEqual(['l0']);
    expect(elems(1, 'l')).toEqual(['l1']);
    expect(out.get('v#0')?.taskStateSnapshot.operators[0]?.handle.path).toBe(stateFilePath(1, 'v', 0, 'op'));
    // Subtask 2 reported nothing; the union reaches it too (from the first contributing file).
    expect(elems(2, 'u')).toEqual(['u0', 'u1']);
    expect(elems(2, 'l')).toEqual([]);
    expect(out.get('v#2')?.taskStateSnapshot.isTaskDeployedAsFinished).toBe(false);
    expect(out.get('y#0')?.taskStateSnapshot.operators[0]).toBe(checkpoint.operatorStates.get('list')?.get(0));
    expect(out.get('y#1')?.taskStateSnapshot.isTaskDeployedAsFinished).toBe(true);
    expect(out.get('w#0')?.taskStateSnapshot.isTaskDeployedAsFinished).toBe(true);
    expect(out.has('x#0')).toBe(false);
  });

  test('state of a subtask index beyond the recorded parallelism is refused', () => {
    const checkpoint = completedCheckpointOf({ vertices: [testingJobVertex({ id: 'v', parallelism: 2, operatorUids: ['op'] })],
      states: { op: [listState('a', 'l', ['a']), listState('b', 'l', ['b'])] } });
    const tampered = new (checkpoint.constructor as typeof CompletedCheckpoint)({ ...checkpoint,
      operatorInfo: new Map([['op', { parallelism: 1, maxParallelism: 128, fullyFinished: false, finishedSubtasks: [] }]]) });
    expect(() => assign(tampered, [testingJobVertex({ id: 'v', parallelism: 2, operatorUids: ['op'] })]))
      .toThrow(/^state of operator op has subtask 1 but checkpoint 1 records parallelism 1$/);
  });
});

// ---------------------------------------------------------------------------------------------
// Operator state through the assignment: StateAssignmentOperationTest's repartition cases and
// every roundRobinRepartition vector of flink-vectors.json.

type VectorHandle = { handle: string; states: Record<string, { mode: OperatorStateMode; offsets: number[] }> };
interface VectorCase {
  id: string; oldParallelism: number; newParallelism: number; old: VectorHandle[][]; new: VectorHandle[][];
}
const vectors = JSON.parse(readFileSync(new URL('../testing/data/flink-vectors.json', import.meta.url), 'utf8')) as
  { roundRobinRepartition: { cases: VectorCase[] } };

function fromVector(h: VectorHandle): OperatorStateHandle {
  return operatorStateHandle(h.handle, Object.entries(h.states).map(([name, s]) => [name, { mode: s.mode, elements: s.offsets }] as const));
}
/** Handles sorted by id, state names alphabetically (orders inside a subtask carry no meaning). */
function normalForm(handles: readonly OperatorStateHandle[]): VectorHandle[] {
  return handles.map((h) => ({
    handle: h.handleId,
    states: Object.fromEntries([...h.states].sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, m]) => [name, { mode: m.mode, offsets: [...m.elements as number[]] }])),
  })).sort((a, b) => (a.handle < b.handle ? -1 : 1));
}

/** The operator state handles each new subtask of `op` gets, from old handles per old subtask. */
function assignOperatorState(old: readonly (readonly OperatorStateHandle[] | undefined)[], newP: number): OperatorStateHandle[][] {
  const checkpoint = completedCheckpointOf({
    vertices: [testingJobVertex({ id: 'old', parallelism: old.length, operatorUids: ['op'] })],
    states: { op: old.map((hs) => (hs === undefined ? undefined : operatorSubtaskState({ managedOperatorState: hs }))) },
  });
  const out = assign(checkpoint, [testingJobVertex({ id: 'new', parallelism: newP, operatorUids: ['op'] })]);
  return Array.from({ length: newP }, (_x, i) => pieces(out, `new#${i}`, 'op').flatMap((p) => [...p.managedOperatorState]));
}

describe('flink-vectors roundRobinRepartition through StateAssignmentOperation', () => {
  test('has the 8 documented cases', () => {
    expect(vectors.roundRobinRepartition.cases).toHaveLength(8);
  });
  for (const c of vectors.roundRobinRepartition.cases) {
    test(c.id, () => {
      const result = assignOperatorState(c.old.map((s) => s.map(fromVector)), c.newParallelism);
      expect(result.map(normalForm)).toEqual(c.new.map((s) => normalForm(s.map(fromVector))));
    });
  }
});

describe('StateAssignmentOperationTest: partitionable state rescaled 2 -> 3, 2 -> 1 and 2 -> 2', () => {
  const h = (id: string, states: Record<string, [OperatorStateMode, number[]]>) => operatorStateHandle(id,
    Object.entries(states).map(([n, [mode, elements]]) => [n, { mode, elements }] as const));
  /** Per state name, how many entries the new subtasks hold in total. */
  const counts = (result: OperatorStateHandle[][]) => {
    const out: Record<string, number> = {};
    for (const hs of result) for (const x of hs) for (const name of x.states.keys()) out[name] = (out[name] ?? 0) + 1;
    return out;
  };
  const cases: Record<string, [(readonly OperatorStateHandle[] | undefined)[], (newP: number) => Record<string, number>]> = {
    testRepartitionSplitDistributeStates: [
      [[h('test1', { 't-1': ['SPLIT_DISTRIBUTE', [0, 10]] })], [h('test2', { 't-2': ['SPLIT_DISTRIBUTE', [0, 15]] })]],
      (newP) => (newP > 2 ? { 't-1': 2, 't-2': 2 } : { 't-1': 1, 't-2': 1 }),
    ],
    testRepartitionUnionState: [
      [[h('test1', { 't-3': ['UNION', [0]], 't-4': ['UNION', [22, 44]] })], [h('test2', { 't-3': ['UNION', [0]] })]],
      (newP) => ({ 't-3': 2 * newP, 't-4': newP }),
    ],
    testRepartitionBroadcastState: [
      [[h('test1', { 't-5': ['BROADCAST', [0, 10, 20]], 't-6': ['BROADCAST', [30, 40, 50]] })],
        [h('test2', { 't-5': ['BROADCAST', [0, 10, 20]], 't-6': ['BROADCAST', [30, 40, 50]] })]],
      (newP) => ({ 't-5': newP, 't-6': newP }),
    ],
    testRepartitionBroadcastStateWithNullSubtaskState: [
      [[h('test1', { 't-5': ['BROADCAST', [0, 10, 20]], 't-6': ['BROADCAST', [30, 40, 50]] })], undefined],
      (newP) => ({ 't-5': newP, 't-6': newP }),
    ],
    testRepartitionBroadcastStateWithEmptySubtaskState: [
      [[h('test1', { 't-5': ['BROADCAST', [0, 10, 20]], 't-6': ['BROADCAST', [30, 40, 50]] })], []],
      (newP) => ({ 't-5': newP, 't-6': newP }),
    ],
  };
  for (const [name, [old, expected]] of Object.entries(cases)) {
    for (const newP of [3, 1, 2]) {
      test(`${name} 2 -> ${newP}`, () => {
        expect(counts(assignOperatorState(old, newP))).toEqual(expected(newP));
      });
    }
  }

  test('testReDistributeCombinedPartitionableStates: union to all, split exactly once, one broadcast copy each', () => {
    const old = [
      [h('test1', { 't-1': ['UNION', [0]], 't-2': ['UNION', [22, 44]], 't-3': ['SPLIT_DISTRIBUTE', [52, 63]],
        't-4': ['BROADCAST', [67, 74, 75]], 't-5': ['BROADCAST', [77, 88, 92]], 't-6': ['BROADCAST', [101, 123, 127]] })],
      [h('test2', { 't-1': ['UNION', [0]], 't-4': ['BROADCAST', [20, 27, 28]], 't-5': ['BROADCAST', [30, 44, 48]],
        't-6': ['BROADCAST', [57, 79, 81]], 't-7': ['SPLIT_DISTRIBUTE', [1, 2, 3]] })],
    ];
    for (const newP of [3, 1, 2]) {
      const result = assignOperatorState(old, newP);
      const elements = (name: string) => result.flatMap((hs) => hs.flatMap((x) => [...(x.states.get(name)?.elements ?? [])]));
      expect(elements('t-1')).toHaveLength(2 * newP);
      expect(elements('t-2')).toHaveLength(2 * newP);
      expect([...elements('t-3')].sort()).toEqual([52, 63]);
      expect([...elements('t-7')].sort()).toEqual([1, 2, 3]);
      for (const b of ['t-4', 't-5', 't-6']) {
        for (const hs of result) expect(hs.filter((x) => x.states.has(b))).toHaveLength(1);
      }
    }
  });

  test('each new subtask names the old files its pieces come from, one handle per file', () => {
    const old = [[h('f0', { l: ['SPLIT_DISTRIBUTE', [0, 1, 2]] })], [h('f1', { l: ['SPLIT_DISTRIBUTE', [3, 4, 5]] })]];
    const checkpoint = completedCheckpointOf({
      vertices: [testingJobVertex({ id: 'v', parallelism: 2, operatorUids: ['op'] })],
      states: { op: old.map((hs) => operatorSubtaskState({ managedOperatorState: hs })) },
    });
    const out = assign(checkpoint, [testingJobVertex({ id: 'v', parallelism: 3, operatorUids: ['op'] })]);
    const files = [0, 1, 2].map((i) => out.get(`v#${i}`)?.taskStateSnapshot.operators.map((x) => x.handle.path));
    expect(files).toEqual([[stateFilePath(1, 'v', 0, 'op')], [stateFilePath(1, 'v', 0, 'op'), stateFilePath(1, 'v', 1, 'op')],
      [stateFilePath(1, 'v', 1, 'op')]]);
  });
});
