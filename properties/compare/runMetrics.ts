/**
 * runMetrics: one run's RunMetrics for compare (definitions in compareMetrics.ts and
 * docs/compare.md), from its RunResult and its judgement. Checkpoint figures come from Flink's
 * checkpoint statistics (`RunResult.checkpointStats`, CheckpointStatsTracker: virtual ms,
 * bytes), flow figures from `RunResult.flow` (flowOf), correctness from the judge. Pure.
 */
import type { CheckpointStatsEntry, RunResult, SubtaskCheckpointStatsResult } from '../../sim/run/RunResult.ts';
import type { Judgement } from '../explore/explore.ts';
import type { RunMetrics } from './CompareReport.ts';
import { medianOf } from './distributionOf.ts';
import { duplicatesByRestore } from './duplicatesByRestore.ts';
import { flowOf } from './flowOf.ts';

/**
 * Per completed checkpoint, the largest value of `field` over its acknowledged subtasks (the
 * subtask that held the checkpoint up, as Flink's UI shows per checkpoint), then the median
 * over the completed checkpoints; null without a completed checkpoint.
 */
function medianOfMaxima(completed: readonly CheckpointStatsEntry[], field: keyof Pick<SubtaskCheckpointStatsResult,
  'alignmentMs' | 'syncMs' | 'asyncMs' | 'startDelayMs'>): number | null {
  return medianOf(completed.map((c) => c.subtasks.reduce((m, s) => Math.max(m, s[field]), 0)));
}

/** The metrics of `result`, judged as `judgement` (the judge's missing and duplicate counts). */
export function runMetrics(result: RunResult, judgement: Judgement): RunMetrics {
  const completed = result.checkpointStats.checkpoints.filter((c) => c.status === 'COMPLETED');
  const flow = flowOf(result);
  const recoveries = result.checkpointStats.restores.flatMap((r) => (r.timeToNextCompletedMs === undefined ? [] : [r.timeToNextCompletedMs]));
  return {
    recordsLost: judgement.missing,
    duplicates: judgement.duplicates,
    duplicatesByRestore: duplicatesByRestore(result, judgement.duplicates),
    // A completed checkpoint has every ack, so its end-to-end duration is defined.
    checkpointEndToEndMs: medianOf(completed.flatMap((c) => (c.endToEndMs === undefined ? [] : [c.endToEndMs]))),
    alignmentMs: medianOfMaxima(completed, 'alignmentMs'),
    syncMs: medianOfMaxima(completed, 'syncMs'),
    asyncMs: medianOfMaxima(completed, 'asyncMs'),
    startDelayMs: medianOfMaxima(completed, 'startDelayMs'),
    checkpointedBytes: medianOf(completed.map((c) => c.checkpointedSizeBytes)),
    latencyP50Ms: flow.latencyP50Ms,
    latencyP99Ms: flow.latencyP99Ms,
    throughputPerSec: flow.throughputPerSec,
    backPressuredMs: flow.backPressuredMs,
    recoveryMs: medianOf(recoveries),
  };
}
