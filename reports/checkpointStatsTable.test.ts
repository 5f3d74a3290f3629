import { describe, expect, test } from 'vitest';
import type { CheckpointStatsResult, RestoreStatsEntry } from '../sim/run/checkpointStatsResult.ts';
import { checkpointStatsTable, MAX_RESTORE_LINES } from './checkpointStatsTable.ts';

const restore = (i: number): RestoreStatsEntry => ({
  checkpointId: 2, failureTimeMs: 10 * i, restoreTimeMs: 10 * i + 5,
  nextCompletedCheckpointId: undefined, nextCompletedTimeMs: undefined, timeToNextCompletedMs: undefined,
});
const stats = (restores: number): CheckpointStatsResult => ({
  checkpoints: [{ id: 2 } as CheckpointStatsResult['checkpoints'][number]].map((c) => ({
    ...c, type: 'CHECKPOINT', status: 'COMPLETED', acknowledged: 2, total: 2, checkpointedSizeBytes: 1, fullSizeBytes: 1,
    processedDataBytes: 0, persistedDataBytes: 0, subtasks: [],
  }) as unknown as CheckpointStatsResult['checkpoints'][number]),
  counts: { inProgress: 0, completed: 1, failed: 0 },
  restores: Array.from({ length: restores }, (_, i) => restore(i)),
});
const restoreLines = (lines: string[]): string[] => lines.filter((l) => /^ {2}(restore|\.\.\.)/.test(l));

describe('checkpointStatsTable', () => {
  test('every restore of a run with few has its line', () => {
    expect(restoreLines(checkpointStatsTable(stats(3)))).toEqual([
      '  restore from checkpoint 2 at 5.000 ms (failure at 0.000 ms); no checkpoint completed after it',
      '  restore from checkpoint 2 at 15.000 ms (failure at 10.000 ms); no checkpoint completed after it',
      '  restore from checkpoint 2 at 25.000 ms (failure at 20.000 ms); no checkpoint completed after it',
    ]);
  });

  test('a restart loop\'s restores: the first ones, a count, and the last (1,297 lines were printed before)', () => {
    const lines = restoreLines(checkpointStatsTable(stats(1297)));
    expect(lines).toHaveLength(MAX_RESTORE_LINES + 1);
    expect(lines[0]).toContain('at 5.000 ms');
    expect(lines.at(-2)).toBe(`  ... ${1297 - MAX_RESTORE_LINES} more restores (1297 in all; replay --json lists them)`);
    expect(lines.at(-1)).toContain(`at ${(12965).toFixed(3)} ms`);
  });
});
