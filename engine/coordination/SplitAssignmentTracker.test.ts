import { describe, expect, test } from 'vitest';
import { SplitAssignmentTracker } from './SplitAssignmentTracker.ts';
import type { SourceSplit } from './SourceEvent.ts';

const s = (...ids: number[]): SourceSplit[] => ids.map((splitId) => ({ splitId, offset: 0 }));
const ids = (splits: SourceSplit[]): number[] => splits.map((x) => x.splitId);

/** Reference 7 case 39: {0} and {1,2} to subtasks 0 and 1 before 100, {3} and {4,5} before 101. */
function givenTwoCheckpoints(): SplitAssignmentTracker {
  const tracker = new SplitAssignmentTracker();
  tracker.recordSplitAssignment(0, s(0));
  tracker.recordSplitAssignment(1, s(1, 2));
  tracker.onCheckpoint(100);
  tracker.recordSplitAssignment(0, s(3));
  tracker.recordSplitAssignment(1, s(4, 5));
  tracker.onCheckpoint(101);
  tracker.checkInvariants();
  return tracker;
}

describe('SplitAssignmentTracker', () => {
  test('given assignments before 100 and 101, when subtask 0 resets to 100, then only split 3 returns', () => {
    const tracker = givenTwoCheckpoints();
    expect(ids(tracker.getAndRemoveUncheckpointedAssignment(0, 100))).toEqual([3]);
    // Nothing is returned twice.
    expect(tracker.getAndRemoveUncheckpointedAssignment(0, 100)).toEqual([]);
    expect(ids(tracker.getAndRemoveUncheckpointedAssignment(1, 100))).toEqual([4, 5]);
    tracker.checkInvariants();
  });

  test('when 100 completes, its records are dropped and those of 101 stay', () => {
    const tracker = givenTwoCheckpoints();
    tracker.onCheckpointComplete(100);
    expect(tracker.toJson()).toEqual(
      { byCheckpoint: [[101, [[0, [3]], [1, [4, 5]]]]], uncheckpointed: [] });
    // Restoring to 99 after 100 completed returns only what is still recorded.
    expect(ids(tracker.getAndRemoveUncheckpointedAssignment(1, 99))).toEqual([4, 5]);
  });

  test('a reset to an older checkpoint returns every later and uncheckpointed assignment, in order',
    () => {
    const tracker = givenTwoCheckpoints();
    tracker.recordSplitAssignment(0, s(6));
    expect(ids(tracker.getAndRemoveUncheckpointedAssignment(0, 99))).toEqual([0, 3, 6]);
    expect(ids(tracker.getAndRemoveUncheckpointedAssignment(0, -1))).toEqual([]);
    expect(tracker.toJson().byCheckpoint).toEqual([[100, [[1, [1, 2]]]], [101, [[1, [4, 5]]]]]);
  });

  test('completion of a later id drops every earlier one; abort has no tracker effect', () => {
    const tracker = givenTwoCheckpoints();
    tracker.onCheckpointComplete(101);
    expect(tracker.toJson()).toEqual({ byCheckpoint: [], uncheckpointed: [] });
  });

  test('a checkpoint with no assignments files nothing; ids must increase', () => {
    const tracker = new SplitAssignmentTracker();
    tracker.onCheckpoint(1);
    tracker.recordSplitAssignment(2, []);
    tracker.recordSplitAssignment(2, s(7));
    tracker.recordSplitAssignment(0, s(8));
    expect(tracker.toJson()).toEqual({ byCheckpoint: [], uncheckpointed: [[0, [8]], [2, [7]]] });
    expect(() => tracker.onCheckpoint(1)).toThrow(/not above/);
    tracker.onCheckpoint(2);
    expect(() => tracker.onCheckpoint(2)).toThrow(/not above/);
    tracker.clear();
    expect(tracker.toJson()).toEqual({ byCheckpoint: [], uncheckpointed: [] });
  });

  test('checkInvariants catches a split recorded twice for one subtask', () => {
    const tracker = new SplitAssignmentTracker();
    tracker.recordSplitAssignment(0, s(1));
    tracker.onCheckpoint(1);
    tracker.recordSplitAssignment(0, s(1));
    expect(() => tracker.checkInvariants()).toThrow(/recorded twice/);
  });
});
