/**
 * The RunResult's view of the JobMaster's checkpoint statistics (engine CheckpointStatsTracker,
 * Flink's web UI "Checkpoints" tab): the same figures with times and durations in virtual ms, as
 * at every edge (µs / 1000; `Math.round(ms * 1000)` gives the engine's integer µs back), sizes in
 * bytes. These are statistics for people, not an oracle.
 */
import type { CheckpointStats, CheckpointStatsSnapshot, SubtaskStateStats } from '../../engine/index.ts';

/** One subtask's acknowledgement of a checkpoint. */
export interface SubtaskCheckpointStatsResult {
  /** The acknowledging attempt, `<vertex>#<subtask>@<attempt>`. */
  readonly task: string;
  /** When the JobMaster received the ack, ms. */
  readonly ackTimeMs: number;
  /** ackTimeMs - the checkpoint's trigger time, ms. */
  readonly endToEndMs: number;
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly alignmentMs: number;
  readonly startDelayMs: number;
  readonly checkpointedSizeBytes: number;
  readonly fullSizeBytes: number;
  readonly processedDataBytes: number;
  readonly persistedDataBytes: number;
}

/** One checkpoint's statistics. */
export interface CheckpointStatsEntry {
  readonly id: number;
  readonly type: 'CHECKPOINT' | 'SAVEPOINT' | 'SYNC_SAVEPOINT';
  readonly status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  /** FAILED only: the CheckpointFailureReason and the exception's message. */
  readonly failureReason?: string;
  readonly failureMessage?: string;
  readonly triggerTimeMs: number;
  /** Time of the latest ack, ms; undefined before any. */
  readonly latestAckTimeMs: number | undefined;
  readonly acknowledged: number;
  readonly total: number;
  /** latestAckTimeMs - triggerTimeMs (Flink's end-to-end duration); undefined before any ack. */
  readonly endToEndMs: number | undefined;
  readonly completionTimeMs?: number;
  readonly failureTimeMs?: number;
  readonly checkpointedSizeBytes: number;
  readonly fullSizeBytes: number;
  readonly processedDataBytes: number;
  readonly persistedDataBytes: number;
  readonly subtasks: readonly SubtaskCheckpointStatsResult[];
}

/** One restore from a checkpoint. */
export interface RestoreStatsEntry {
  readonly checkpointId: number;
  /** When the failure behind the restore happened, ms (undefined if unknown). */
  readonly failureTimeMs: number | undefined;
  readonly restoreTimeMs: number;
  /** The first checkpoint completed after the restore and its completion time, ms. */
  readonly nextCompletedCheckpointId: number | undefined;
  readonly nextCompletedTimeMs: number | undefined;
  /** nextCompletedTimeMs - failureTimeMs (or - restoreTimeMs if the failure time is unknown). */
  readonly timeToNextCompletedMs: number | undefined;
}

/** `RunResult.checkpointStats`. */
export interface CheckpointStatsResult {
  /** Every triggered checkpoint, by id. */
  readonly checkpoints: readonly CheckpointStatsEntry[];
  readonly counts: { readonly inProgress: number; readonly completed: number; readonly failed: number };
  readonly restores: readonly RestoreStatsEntry[];
}

const ms = (us: number): number => us / 1000;
const optMs = (us: number | undefined): number | undefined => (us === undefined ? undefined : us / 1000);

function subtask(s: SubtaskStateStats): SubtaskCheckpointStatsResult {
  return {
    task: s.task, ackTimeMs: ms(s.ackTimestampUs), endToEndMs: ms(s.endToEndDurationUs),
    syncMs: ms(s.syncDurationUs), asyncMs: ms(s.asyncDurationUs), alignmentMs: ms(s.alignmentDurationUs),
    startDelayMs: ms(s.checkpointStartDelayUs), checkpointedSizeBytes: s.checkpointedSize, fullSizeBytes: s.stateSize,
    processedDataBytes: s.processedData, persistedDataBytes: s.persistedData,
  };
}

function checkpoint(c: CheckpointStats): CheckpointStatsEntry {
  return {
    id: c.checkpointId, type: c.checkpointType, status: c.status,
    ...(c.failureReason === undefined ? {} : { failureReason: c.failureReason }),
    ...(c.failureMessage === undefined ? {} : { failureMessage: c.failureMessage }),
    triggerTimeMs: ms(c.triggerTimestampUs), latestAckTimeMs: optMs(c.latestAckTimestampUs),
    acknowledged: c.numberOfAcknowledgedSubtasks, total: c.numberOfSubtasks, endToEndMs: optMs(c.endToEndDurationUs),
    ...(c.completionTimestampUs === undefined ? {} : { completionTimeMs: ms(c.completionTimestampUs) }),
    ...(c.failureTimestampUs === undefined ? {} : { failureTimeMs: ms(c.failureTimestampUs) }),
    checkpointedSizeBytes: c.checkpointedSize, fullSizeBytes: c.stateSize,
    processedDataBytes: c.processedData, persistedDataBytes: c.persistedData,
    subtasks: c.subtasks.map(subtask),
  };
}

/** Converts the engine's snapshot (µs) to the RunResult's view (ms); undefined gives empty stats. */
export function checkpointStatsResult(snapshot: CheckpointStatsSnapshot | undefined): CheckpointStatsResult {
  if (snapshot === undefined) return { checkpoints: [], counts: { inProgress: 0, completed: 0, failed: 0 }, restores: [] };
  return {
    checkpoints: snapshot.history.map(checkpoint),
    counts: { ...snapshot.counts },
    restores: snapshot.restores.map((r) => {
      const from = r.failureTimestampUs ?? r.restoreTimestampUs;
      return {
        checkpointId: r.checkpointId, failureTimeMs: optMs(r.failureTimestampUs), restoreTimeMs: ms(r.restoreTimestampUs),
        nextCompletedCheckpointId: r.nextCompletedCheckpointId, nextCompletedTimeMs: optMs(r.nextCompletedTimestampUs),
        timeToNextCompletedMs: r.nextCompletedTimestampUs === undefined ? undefined : ms(r.nextCompletedTimestampUs - from),
      };
    }),
  };
}
