import { describe, expect, test } from 'vitest';
import { executionAttemptId as a } from '../api/ids.ts';
import type { CheckpointMetrics } from './CheckpointMetrics.ts';
import { CheckpointStatsTracker } from './CheckpointStatsTracker.ts';

const metrics = (o: Partial<CheckpointMetrics>): CheckpointMetrics => ({
  checkpointStartDelayUs: 0, alignmentDurationUs: 0, syncDurationUs: 0, asyncDurationUs: 0,
  bytesProcessedDuringAlignment: 0, bytesPersistedDuringAlignment: 0, bytesPersistedOfThisCheckpoint: 0,
  totalBytesPersisted: 0, unalignedCheckpoint: false, ...o,
});

describe('CheckpointStatsTracker', () => {
  test('a completed checkpoint: acks, latest ack, end-to-end, summed sizes, per-subtask figures', () => {
    const t = new CheckpointStatsTracker();
    t.reportPendingCheckpoint(1, 1_000, false, 2);
    t.reportSubtaskStats(1, a('v0#0@0'), 3_000, metrics({ checkpointStartDelayUs: 500, asyncDurationUs: 700, totalBytesPersisted: 16 }));
    t.reportSubtaskStats(1, a('v1#0@0'), 5_000, metrics({ alignmentDurationUs: 900, totalBytesPersisted: 256 }));
    t.reportCompletedCheckpoint(1, 6_000);
    t.reportSubtaskStats(1, a('v1#1@0'), 7_000, metrics({})); // after completion: ignored
    const c = t.createSnapshot().history[0];
    expect(c).toMatchObject({
      checkpointId: 1, checkpointType: 'CHECKPOINT', status: 'COMPLETED', triggerTimestampUs: 1_000,
      latestAckTimestampUs: 5_000, numberOfSubtasks: 2, numberOfAcknowledgedSubtasks: 2, endToEndDurationUs: 4_000,
      checkpointedSize: 272, stateSize: 272, completionTimestampUs: 6_000,
    });
    expect(c?.subtasks.map((s) => [s.task, s.endToEndDurationUs, s.checkpointStartDelayUs, s.alignmentDurationUs, s.asyncDurationUs]))
      .toEqual([[a('v0#0@0'), 2_000, 500, 0, 700], [a('v1#0@0'), 4_000, 0, 900, 0]]);
    t.checkInvariants();
  });

  test('a failed checkpoint keeps its reason and is not completed later', () => {
    const t = new CheckpointStatsTracker();
    t.reportPendingCheckpoint(2, 0, false, 3);
    t.reportFailedCheckpoint(2, 40, 'CHECKPOINT_EXPIRED', 'CHECKPOINT_EXPIRED');
    t.reportCompletedCheckpoint(2, 50);
    const s = t.createSnapshot();
    expect(s.history[0]).toMatchObject({ status: 'FAILED', failureReason: 'CHECKPOINT_EXPIRED', failureTimestampUs: 40, endToEndDurationUs: undefined });
    expect(s.counts).toEqual({ inProgress: 0, completed: 0, failed: 1 });
  });

  test('a restore records the failure time and the next completed checkpoint', () => {
    const t = new CheckpointStatsTracker();
    t.reportPendingCheckpoint(1, 0, false, 1);
    t.reportCompletedCheckpoint(1, 10);
    t.reportRestoredCheckpoint(1, 200, 150);
    t.reportPendingCheckpoint(2, 300, false, 1);
    t.reportCompletedCheckpoint(2, 400);
    t.reportPendingCheckpoint(3, 500, false, 1);
    t.reportCompletedCheckpoint(3, 600);
    expect(t.createSnapshot().restores).toEqual([{
      checkpointId: 1, restoreTimestampUs: 200, failureTimestampUs: 150, nextCompletedCheckpointId: 2, nextCompletedTimestampUs: 400,
    }]);
  });
});
