import { describe, expect, test } from 'vitest';
import type { CheckpointJobEdge } from './CheckpointCoordinatorContext.ts';
import { operatorSubtaskState } from '../streaming/operators/OperatorSubtaskState.ts';
import { StateAssignmentError } from './StateAssignmentError.ts';
import { completedCheckpointOf } from './testing/completedCheckpointOf.ts';
import { testingJobVertex } from './testing/testingJobVertex.ts';
import { VertexFinishedStateChecker, type VertexFinishedState } from './VertexFinishedStateChecker.ts';

/**
 * A snapshot of two unconnected one-subtask-or-two vertices `op1` and `op2` (parallelism 2) in
 * the given finished states, restored into vert1 -> vert2 (vert1 runs op1, vert2 runs op2).
 */
function check(first: VertexFinishedState, second: VertexFinishedState, patterns: CheckpointJobEdge['pattern'][]): () => void {
  const old = [
    testingJobVertex({ id: 'a', parallelism: 2, operatorUids: ['op1'] }),
    testingJobVertex({ id: 'b', parallelism: 2, operatorUids: ['op2'] }),
  ];
  const finishedOf = (id: string, s: VertexFinishedState) =>
    (s === 'ALL_RUNNING' ? [] : s === 'PARTIALLY_FINISHED' ? [0] : [0, 1]).map((i) => ({ vertexId: id, subtask: i }));
  const checkpoint = completedCheckpointOf({
    vertices: old, states: { op1: [operatorSubtaskState({})], op2: [operatorSubtaskState({})] },
    finished: [...finishedOf('a', first), ...finishedOf('b', second)],
    fullyFinished: [first === 'FULLY_FINISHED' ? ['a'] : [], second === 'FULLY_FINISHED' ? ['b'] : []].flat(),
  });
  const vertices = [
    testingJobVertex({ id: 'vert1', parallelism: 2, operatorUids: ['op1'] }),
    testingJobVertex({ id: 'vert2', parallelism: 2, operatorUids: ['op2'] }),
  ];
  const edges = patterns.map((pattern) => ({ source: 'vert1', target: 'vert2', pattern }));
  return () => new VertexFinishedStateChecker(vertices, edges, checkpoint).validateOperatorsFinishedState();
}

describe('VertexFinishedStateCheckerTest', () => {
  test('testRestoringPartiallyFinishedChainsFails: a chain of a fully finished and a running operator', () => {
    const checkpoint = completedCheckpointOf({
      vertices: [testingJobVertex({ id: 'a', parallelism: 1, operatorUids: ['op1'] }), testingJobVertex({ id: 'b', parallelism: 1, operatorUids: ['op2'] })],
      states: {}, finished: [{ vertexId: 'a', subtask: 0 }], fullyFinished: ['a'],
    });
    const run = () => new VertexFinishedStateChecker([testingJobVertex({ id: 'c', parallelism: 1, operatorUids: ['op1', 'op2'] })], [], checkpoint)
      .validateOperatorsFinishedState();
    expect(run).toThrow(StateAssignmentError);
    expect(run).toThrow(/^Can not restore vertex c \(op1 -> op2\) which contain mixed operator finished state: \[ALL_RUNNING, FULLY_FINISHED\]$/);
  });

  const notFully = /^Illegal JobGraph modification\. Cannot run a program with fully finished vertices predeceased with the ones not fully finished\. Task vertex vert2 \(op2\) has a predecessor not fully finished$/;
  const allToAll = (what: string) => new RegExp('^Illegal JobGraph modification\\. Cannot run a program with partially finished vertices '
    + 'predeceased with running or partially finished ones and connected via the ALL_TO_ALL edges\\. '
    + `Task vertex vert2 \\(op2\\) has a ${what} predecessor$`);
  test('testAddingRunningOperatorBeforeFinishedOneFails', () => {
    expect(check('ALL_RUNNING', 'FULLY_FINISHED', ['ALL_TO_ALL'])).toThrow(notFully);
  });
  test('testAddingPartiallyFinishedOperatorBeforeFinishedOneFails', () => {
    expect(check('PARTIALLY_FINISHED', 'FULLY_FINISHED', ['ALL_TO_ALL'])).toThrow(notFully);
  });
  test('testAddingAllRunningOperatorBeforePartiallyFinishedOneWithAllToAllFails', () => {
    expect(check('ALL_RUNNING', 'PARTIALLY_FINISHED', ['ALL_TO_ALL'])).toThrow(allToAll('all running'));
  });
  test('testAddingPartiallyFinishedOperatorBeforePartiallyFinishedOneWithAllToAllFails', () => {
    expect(check('PARTIALLY_FINISHED', 'PARTIALLY_FINISHED', ['ALL_TO_ALL'])).toThrow(allToAll('partially finished'));
  });
  test('testAddingPartiallyFinishedOperatorBeforePartiallyFinishedOneWithPointwiseAndAllToAllFails', () => {
    expect(check('PARTIALLY_FINISHED', 'PARTIALLY_FINISHED', ['POINTWISE', 'ALL_TO_ALL'])).toThrow(allToAll('partially finished'));
  });
  test('testAddingAllRunningOperatorBeforePartiallyFinishedOneFails', () => {
    expect(check('ALL_RUNNING', 'PARTIALLY_FINISHED', ['POINTWISE'])).toThrow(
      /^Illegal JobGraph modification\. Cannot run a program with partially finished vertices predeceased with all running ones\. Task vertex vert2 \(op2\) has a all running predecessor$/);
  });
  test('the allowed shapes pass', () => {
    expect(check('FULLY_FINISHED', 'FULLY_FINISHED', ['ALL_TO_ALL'])).not.toThrow();
    expect(check('FULLY_FINISHED', 'PARTIALLY_FINISHED', ['ALL_TO_ALL'])).not.toThrow();
    expect(check('PARTIALLY_FINISHED', 'PARTIALLY_FINISHED', ['POINTWISE'])).not.toThrow();
    expect(check('FULLY_FINISHED', 'ALL_RUNNING', ['ALL_TO_ALL'])).not.toThrow();
    expect(check('ALL_RUNNING', 'ALL_RUNNING', ['ALL_TO_ALL'])).not.toThrow();
  });
});
