/**
 * When a task may finish (StreamTask's finalCheckpointMinId, syncSavepoint and
 * finalCheckpointCompleted): after the data ended, the first checkpoint performed and any later
 * notification; in a stop-with-savepoint only exactly the synchronous savepoint's notification.
 */
import { describe, expect, test } from 'vitest';
import type { CheckpointBarrier, SnapshotType } from '../../checkpoint/CheckpointBarrier.ts';
import { FinalCheckpointTracker } from './FinalCheckpointTracker.ts';

const barrier = (id: number, snapshotType: SnapshotType = 'CHECKPOINT'): CheckpointBarrier =>
  ({ id, timestampUs: 0, options: { snapshotType, alignment: 'ALIGNED', alignedCheckpointTimeoutUs: 0 } });

describe('FinalCheckpointTracker', () => {
  test('the final checkpoint is the first performed after the data ended; its notification, or a later one, completes it', () => {
    const t = new FinalCheckpointTracker();
    t.performedCheckpoint(barrier(1), false);
    expect(t.notified(1, true)).toEqual({ skipped: false });
    expect(t.finalCheckpointCompleted).toBe(false);
    t.performedCheckpoint(barrier(2), true);
    t.performedCheckpoint(barrier(3), true);
    // 3 covers 2, but skips a checkpoint the task performed: a lost or late notification.
    expect(t.notified(3, true)).toEqual({ skipped: true });
    expect(t.finalCheckpointCompleted).toBe(true);
    expect(t.notified(2, true)).toBeUndefined();
  });

  test('a synchronous savepoint: only exactly its notification completes it, a later checkpoint\'s does not', () => {
    const t = new FinalCheckpointTracker();
    t.setSynchronousSavepoint(5);
    t.performedCheckpoint(barrier(5, 'SYNC_SAVEPOINT'), true);
    expect(t.waiting()).toBe(5);
    t.notified(4, true);
    expect(t.finalCheckpointCompleted).toBe(false);
    t.notified(5, true);
    expect([t.finalCheckpointCompleted, t.waiting()]).toEqual([true, undefined]);
    const u = new FinalCheckpointTracker();
    u.setSynchronousSavepoint(5);
    u.notified(6, true);
    expect(u.waiting()).toBe(5);
    expect(() => u.setSynchronousSavepoint(7)).toThrow(/at most one stop-with-savepoint/);
  });

  test('a savepoint the user asked for is never notified: skipping it is no lost notification; a task not running is not completed', () => {
    const t = new FinalCheckpointTracker();
    t.performedCheckpoint(barrier(1, 'SAVEPOINT'), true);
    t.performedCheckpoint(barrier(2), true);
    expect(t.notified(2, false)).toEqual({ skipped: false });
    expect(t.finalCheckpointCompleted).toBe(false);
  });
});
