/**
 * runMetrics on a real run with hand-made checkpoint statistics and flow figures: the medians
 * over completed checkpoints of each checkpoint's largest subtask value, the failed and
 * in-progress checkpoints left out, recovery from the restores that reached a next checkpoint,
 * and the flow figures read from RunResult.flow through flowOf.
 */
import { describe, expect, test } from 'vitest';
import type { CheckpointStatsEntry, RunResult, SubtaskCheckpointStatsResult } from '../../sim/run/RunResult.ts';
import { doctor, sampleRun } from '../oracles/testing/sampleRuns.ts';
import type { Judgement } from '../explore/explore.ts';
import { STATE_JUDGED } from '../oracles/stateJudgement.ts';
import { runMetrics } from './runMetrics.ts';

function subtask(alignmentMs: number, syncMs: number, asyncMs: number, startDelayMs: number): SubtaskCheckpointStatsResult {
  return {
    task: 'v1#0@0', ackTimeMs: 0, endToEndMs: 0, syncMs, asyncMs, alignmentMs, startDelayMs,
    checkpointedSizeBytes: 0, fullSizeBytes: 0, processedDataBytes: 0, persistedDataBytes: 0,
  };
}

function checkpoint(id: number, status: CheckpointStatsEntry['status'], endToEndMs: number, bytes: number,
  subtasks: SubtaskCheckpointStatsResult[]): CheckpointStatsEntry {
  return {
    id, type: 'CHECKPOINT', status, triggerTimeMs: id * 100, latestAckTimeMs: id * 100 + endToEndMs,
    acknowledged: subtasks.length, total: subtasks.length, endToEndMs, checkpointedSizeBytes: bytes, fullSizeBytes: bytes,
    processedDataBytes: 0, persistedDataBytes: 0, subtasks,
  };
}

const stats: RunResult['checkpointStats'] = {
  checkpoints: [
    checkpoint(1, 'COMPLETED', 10, 100, [subtask(1, 0.5, 4, 2), subtask(3, 0.25, 6, 1)]),
    checkpoint(2, 'FAILED', 999, 999_999, [subtask(999, 999, 999, 999)]),
    checkpoint(3, 'COMPLETED', 30, 300, [subtask(2, 1, 8, 5)]),
    checkpoint(4, 'COMPLETED', 20, 200, [subtask(5, 0, 2, 0), subtask(4, 2, 1, 3)]),
    checkpoint(5, 'IN_PROGRESS', 999, 999_999, [subtask(999, 999, 999, 999)]),
  ],
  counts: { inProgress: 1, completed: 3, failed: 1 },
  restores: [
    { checkpointId: 1, failureTimeMs: 150, restoreTimeMs: 160, nextCompletedCheckpointId: 3, nextCompletedTimeMs: 330, timeToNextCompletedMs: 180 },
    { checkpointId: 3, failureTimeMs: 400, restoreTimeMs: 410, nextCompletedCheckpointId: undefined, nextCompletedTimeMs: undefined, timeToNextCompletedMs: undefined },
  ],
};

const judgement: Judgement = { violations: [], duplicates: 0, missing: 2, keyedState: STATE_JUDGED };

describe('runMetrics', () => {
  const base = doctor(sampleRun('aligned', false), { checkpointStats: stats, trace: [] });

  test('checkpoint figures: medians over completed checkpoints of the per-checkpoint maxima over subtasks', () => {
    const m = runMetrics(base, judgement);
    expect(m).toMatchObject({
      recordsLost: 2,
      duplicates: 0,
      duplicatesByRestore: [],
      // Completed: 10, 30, 20 -> 20; the failed (999) and the in-progress one are left out.
      checkpointEndToEndMs: 20,
      // Maxima per completed checkpoint: alignment 3, 2, 5; sync 0.5, 1, 2; async 6, 8, 2; start delay 2, 5, 3.
      alignmentMs: 3,
      syncMs: 1,
      asyncMs: 6,
      startDelayMs: 3,
      checkpointedBytes: 200,
      // Only the restore that reached a next completed checkpoint.
      recoveryMs: 180,
    });
  });

  test('the flow figures are read from RunResult.flow; nulls when nothing was committed', () => {
    const flow: RunResult['flow'] = {
      committedRecords: 10, latencyMs: { p50: 12.5, p99: 40, max: 41, mean: 15 }, throughputPerSec: 900,
      backPressuredMs: { total: 7.25, byTask: { 'v0#0': 7.25 } },
    };
    expect(runMetrics({ ...base, flow }, judgement)).toMatchObject({
      latencyP50Ms: 12.5, latencyP99Ms: 40, throughputPerSec: 900, backPressuredMs: 7.25,
    });
    const none: RunResult['flow'] = {
      committedRecords: 0, latencyMs: null, throughputPerSec: null, backPressuredMs: { total: 0, byTask: {} },
    };
    expect(runMetrics({ ...base, flow: none }, judgement)).toMatchObject({
      latencyP50Ms: null, latencyP99Ms: null, throughputPerSec: null, backPressuredMs: 0,
    });
  });

  test('a run without a completed checkpoint or a restore has nulls', () => {
    const empty = doctor(base, { checkpointStats: { checkpoints: [], counts: { inProgress: 0, completed: 0, failed: 0 }, restores: [] } });
    expect(runMetrics(empty, judgement)).toMatchObject({
      checkpointEndToEndMs: null, alignmentMs: null, syncMs: null, asyncMs: null, startDelayMs: null,
      checkpointedBytes: null, recoveryMs: null,
    });
  });
});
