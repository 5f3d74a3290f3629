/**
 * The checkpoint statistics of one job, as Flink's web UI shows them: per checkpoint its type,
 * status, trigger time, latest acknowledgement, acknowledged subtasks of the total, end-to-end
 * duration, sizes and in-flight data; per subtask what it measured (CheckpointMetrics) and when
 * its ack arrived; and the restores. The coordinator reports to it; nothing in the engine reads
 * it back, so it cannot change behaviour. Everything here is virtual µs and bytes.
 *
 * @see org.apache.flink.runtime.checkpoint.{CheckpointStatsTracker, DefaultCheckpointStatsTracker,
 *      PendingCheckpointStats, CompletedCheckpointStats, FailedCheckpointStats, SubtaskStateStats,
 *      RestoredCheckpointStats}
 * Invariants: a checkpoint leaves IN_PROGRESS at most once; acknowledged subtasks never exceed
 * the total; every subtask's ack time is at or after the trigger time.
 */
import type { ExecutionAttemptId } from '../api/ids.ts';
import { assert } from '../util/assert.ts';
import type { CheckpointMetrics } from './CheckpointMetrics.ts';

/** Flink's CheckpointStatsStatus (PENDING is called IN_PROGRESS in the web UI and here). */
export type CheckpointStatsStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

/** One subtask's part in a checkpoint (SubtaskStateStats); µs and bytes. */
export interface SubtaskStateStats {
  /** The acknowledging attempt, `<vertex>#<subtask>@<attempt>`. */
  readonly task: ExecutionAttemptId;
  /** When the coordinator received the ack. */
  readonly ackTimestampUs: number;
  /** ackTimestampUs - the checkpoint's trigger time (SubtaskStateStats.getEndToEndDuration). */
  readonly endToEndDurationUs: number;
  readonly syncDurationUs: number;
  readonly asyncDurationUs: number;
  readonly alignmentDurationUs: number;
  readonly checkpointStartDelayUs: number;
  /** Bytes of the state files written for this checkpoint (getCheckpointedSize). */
  readonly checkpointedSize: number;
  /** Bytes of the subtask's full state (getStateSize); equal, every checkpoint is full. */
  readonly stateSize: number;
  /** Bytes processed during alignment (getProcessedData). */
  readonly processedData: number;
  /** In-flight bytes persisted (getPersistedData). */
  readonly persistedData: number;
  readonly unalignedCheckpoint: boolean;
}

/** One checkpoint (PendingCheckpointStats / CompletedCheckpointStats / FailedCheckpointStats). */
export interface CheckpointStats {
  readonly checkpointId: number;
  /** The snapshot type's name in Flink's stats: CHECKPOINT or SAVEPOINT. */
  readonly checkpointType: 'CHECKPOINT' | 'SAVEPOINT' | 'SYNC_SAVEPOINT';
  readonly status: CheckpointStatsStatus;
  readonly triggerTimestampUs: number;
  /** Ack time of the latest acknowledged subtask; undefined before the first ack. */
  readonly latestAckTimestampUs: number | undefined;
  readonly numberOfSubtasks: number;
  readonly numberOfAcknowledgedSubtasks: number;
  /** Latest ack - trigger (AbstractCheckpointStats.getEndToEndDuration); undefined with no ack. */
  readonly endToEndDurationUs: number | undefined;
  readonly checkpointedSize: number;
  readonly stateSize: number;
  readonly processedData: number;
  readonly persistedData: number;
  /** COMPLETED: when the coordinator completed it. */
  readonly completionTimestampUs?: number;
  /** FAILED: when it failed, the CheckpointFailureReason and its message. */
  readonly failureTimestampUs?: number;
  readonly failureReason?: string;
  readonly failureMessage?: string;
  /** Acknowledged subtasks, in ack order. */
  readonly subtasks: readonly SubtaskStateStats[];
}

/** A restore (RestoredCheckpointStats), with the failure before it and the recovery after. */
export interface RestoredCheckpointStats {
  readonly checkpointId: number;
  readonly restoreTimestampUs: number;
  /** When the failure that led to this restore happened; undefined if the caller did not say. */
  readonly failureTimestampUs: number | undefined;
  /** The first checkpoint completed after this restore, and when; undefined if none. */
  readonly nextCompletedCheckpointId: number | undefined;
  readonly nextCompletedTimestampUs: number | undefined;
}

/** What {@link CheckpointStatsTracker.createSnapshot} returns (CheckpointStatsSnapshot). */
export interface CheckpointStatsSnapshot {
  /** Every checkpoint the coordinator triggered, by id. */
  readonly history: readonly CheckpointStats[];
  readonly counts: { readonly inProgress: number; readonly completed: number; readonly failed: number };
  readonly restores: readonly RestoredCheckpointStats[];
}

interface MutableCheckpoint {
  checkpointId: number;
  checkpointType: 'CHECKPOINT' | 'SAVEPOINT' | 'SYNC_SAVEPOINT';
  status: CheckpointStatsStatus;
  triggerTimestampUs: number;
  numberOfSubtasks: number;
  completionTimestampUs?: number;
  failureTimestampUs?: number;
  failureReason?: string;
  failureMessage?: string;
  subtasks: SubtaskStateStats[];
}

interface MutableRestore {
  checkpointId: number;
  restoreTimestampUs: number;
  failureTimestampUs: number | undefined;
  nextCompletedCheckpointId: number | undefined;
  nextCompletedTimestampUs: number | undefined;
}

export class CheckpointStatsTracker {
  private readonly checkpoints = new Map<number, MutableCheckpoint>();
  private readonly restores: MutableRestore[] = [];

  /** A checkpoint was triggered and waits for `numberOfSubtasks` acks (reportPendingCheckpoint). */
  reportPendingCheckpoint(checkpointId: number, triggerTimestampUs: number, isSavepoint: boolean, numberOfSubtasks: number,
    isSynchronous = false): void {
    this.checkpoints.set(checkpointId, {
      checkpointId, checkpointType: !isSavepoint ? 'CHECKPOINT' : isSynchronous ? 'SYNC_SAVEPOINT' : 'SAVEPOINT', status: 'IN_PROGRESS',
      triggerTimestampUs, numberOfSubtasks, subtasks: [],
    });
  }

  /**
   * A subtask's ack counted for a pending checkpoint (PendingCheckpointStats.reportSubtaskStats),
   * received at `ackTimestampUs`. `metrics` undefined (an ack a test built): zero durations.
   * Ignored for an unknown or finished checkpoint.
   */
  reportSubtaskStats(checkpointId: number, task: ExecutionAttemptId, ackTimestampUs: number,
    metrics: CheckpointMetrics | undefined): void {
    const c = this.checkpoints.get(checkpointId);
    if (c === undefined || c.status !== 'IN_PROGRESS') return;
    const bytes = metrics?.totalBytesPersisted ?? 0;
    c.subtasks.push({
      task, ackTimestampUs, endToEndDurationUs: Math.max(0, ackTimestampUs - c.triggerTimestampUs),
      syncDurationUs: metrics?.syncDurationUs ?? 0, asyncDurationUs: metrics?.asyncDurationUs ?? 0,
      alignmentDurationUs: metrics?.alignmentDurationUs ?? 0, checkpointStartDelayUs: metrics?.checkpointStartDelayUs ?? 0,
      checkpointedSize: bytes, stateSize: bytes,
      processedData: metrics?.bytesProcessedDuringAlignment ?? 0, persistedData: metrics?.bytesPersistedDuringAlignment ?? 0,
      unalignedCheckpoint: metrics?.unalignedCheckpoint ?? false,
    });
  }

  /** The checkpoint completed at `completionTimestampUs` (PendingCheckpointStats.toCompletedCheckpointStats). */
  reportCompletedCheckpoint(checkpointId: number, completionTimestampUs: number): void {
    const c = this.checkpoints.get(checkpointId);
    if (c === undefined || c.status !== 'IN_PROGRESS') return;
    c.status = 'COMPLETED';
    c.completionTimestampUs = completionTimestampUs;
    for (const r of this.restores) {
      if (r.nextCompletedCheckpointId === undefined) {
        r.nextCompletedCheckpointId = checkpointId;
        r.nextCompletedTimestampUs = completionTimestampUs;
      }
    }
  }

  /** The checkpoint failed (reportFailedCheckpoint); ignored once it left IN_PROGRESS. */
  reportFailedCheckpoint(checkpointId: number, failureTimestampUs: number, reason: string, message: string | undefined): void {
    const c = this.checkpoints.get(checkpointId);
    if (c === undefined || c.status !== 'IN_PROGRESS') return;
    c.status = 'FAILED';
    c.failureTimestampUs = failureTimestampUs;
    c.failureReason = reason;
    if (message !== undefined) c.failureMessage = message;
  }

  /** State was restored from `checkpointId` (reportRestoredCheckpoint). */
  reportRestoredCheckpoint(checkpointId: number, restoreTimestampUs: number, failureTimestampUs: number | undefined): void {
    this.restores.push({
      checkpointId, restoreTimestampUs, failureTimestampUs, nextCompletedCheckpointId: undefined, nextCompletedTimestampUs: undefined,
    });
  }

  /** A frozen copy of everything so far, checkpoints by id. */
  createSnapshot(): CheckpointStatsSnapshot {
    const history = [...this.checkpoints.values()].sort((a, b) => a.checkpointId - b.checkpointId).map(freeze);
    return {
      history,
      counts: {
        inProgress: history.filter((c) => c.status === 'IN_PROGRESS').length,
        completed: history.filter((c) => c.status === 'COMPLETED').length,
        failed: history.filter((c) => c.status === 'FAILED').length,
      },
      restores: this.restores.map((r) => ({ ...r })),
    };
  }

  checkInvariants(): void {
    for (const c of this.checkpoints.values()) {
      assert(c.subtasks.length <= c.numberOfSubtasks || c.numberOfSubtasks === 0,
        () => `checkpoint ${c.checkpointId}: ${c.subtasks.length} acks of ${c.numberOfSubtasks}`);
      for (const s of c.subtasks) {
        assert(s.ackTimestampUs >= c.triggerTimestampUs, () => `checkpoint ${c.checkpointId}: ack before trigger`);
      }
    }
  }
}

function freeze(c: MutableCheckpoint): CheckpointStats {
  const sum = (f: (s: SubtaskStateStats) => number): number => c.subtasks.reduce((n, s) => n + f(s), 0);
  const latest = c.subtasks.reduce<number | undefined>((m, s) => (m === undefined || s.ackTimestampUs > m ? s.ackTimestampUs : m), undefined);
  return {
    checkpointId: c.checkpointId,
    checkpointType: c.checkpointType,
    status: c.status,
    triggerTimestampUs: c.triggerTimestampUs,
    latestAckTimestampUs: latest,
    numberOfSubtasks: c.numberOfSubtasks,
    numberOfAcknowledgedSubtasks: c.subtasks.length,
    endToEndDurationUs: latest === undefined ? undefined : Math.max(0, latest - c.triggerTimestampUs),
    checkpointedSize: sum((s) => s.checkpointedSize),
    stateSize: sum((s) => s.stateSize),
    processedData: sum((s) => s.processedData),
    persistedData: sum((s) => s.persistedData),
    ...(c.completionTimestampUs === undefined ? {} : { completionTimestampUs: c.completionTimestampUs }),
    ...(c.failureTimestampUs === undefined ? {} : { failureTimestampUs: c.failureTimestampUs }),
    ...(c.failureReason === undefined ? {} : { failureReason: c.failureReason }),
    ...(c.failureMessage === undefined ? {} : { failureMessage: c.failureMessage }),
    subtasks: [...c.subtasks],
  };
}
