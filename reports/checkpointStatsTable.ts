/**
 * The checkpoint statistics of a run as a text table, as Flink's web UI "History" tab lists them:
 * one line per checkpoint with its id, type (checkpoint, savepoint, sync savepoint), status (and failure reason), end-to-end duration,
 * acknowledged subtasks of the total, checkpointed and full size, in-flight data, and the
 * largest alignment, sync, async and start delay of its subtasks; then one line per restore (at
 * most {@link MAX_RESTORE_LINES}: a restart loop's are counted).
 * Durations in virtual ms (3 decimals: the engine's µs), sizes in bytes.
 */
import type { CheckpointStatsEntry, CheckpointStatsResult } from '../sim/run/RunResult.ts';

const HEADER = ['id', 'type', 'status', 'end-to-end ms', 'acked', 'checkpointed B', 'full B', 'processed B', 'persisted B',
  'max align ms', 'max sync ms', 'max async ms', 'max start delay ms'] as const;

/** The snapshot type as the web UI's History tab shows it. */
const TYPE_NAMES: Readonly<Record<string, string>> = { CHECKPOINT: 'checkpoint', SAVEPOINT: 'savepoint', SYNC_SAVEPOINT: 'sync savepoint' };

const fmt = (ms: number | undefined): string => (ms === undefined ? '-' : ms.toFixed(3));

function maxOf(c: CheckpointStatsEntry, f: (s: CheckpointStatsEntry['subtasks'][number]) => number): string {
  return c.subtasks.length === 0 ? '-' : fmt(Math.max(...c.subtasks.map(f)));
}

function row(c: CheckpointStatsEntry): string[] {
  const status = c.status === 'FAILED' && c.failureReason !== undefined ? `FAILED ${c.failureReason}` : c.status;
  return [String(c.id), TYPE_NAMES[c.type] ?? c.type, status, fmt(c.endToEndMs), `${c.acknowledged}/${c.total}`, String(c.checkpointedSizeBytes),
    String(c.fullSizeBytes), String(c.processedDataBytes), String(c.persistedDataBytes),
    maxOf(c, (s) => s.alignmentMs), maxOf(c, (s) => s.syncMs), maxOf(c, (s) => s.asyncMs), maxOf(c, (s) => s.startDelayMs)];
}

/**
 * The table's lines (each without its newline): a title, a header and one line per checkpoint,
 * columns padded; then the restores. `["checkpoint statistics: no checkpoint was triggered"]`
 * for a run without checkpoints.
 */
export function checkpointStatsTable(stats: CheckpointStatsResult): string[] {
  const { completed, failed, inProgress } = stats.counts;
  if (stats.checkpoints.length === 0) return ['checkpoint statistics: no checkpoint was triggered'];
  const rows = [[...HEADER], ...stats.checkpoints.map(row)];
  const widths = HEADER.map((_h, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = [`checkpoint statistics: ${completed} completed, ${failed} failed, ${inProgress} in progress`];
  for (const r of rows) lines.push(`  ${r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}`);
  // A restart loop restores hundreds of times: the first ones and the last say what happened,
  // the rest is a count (replay --json lists every restore).
  const restores = stats.restores;
  const shown = restores.length <= MAX_RESTORE_LINES ? restores
    : [...restores.slice(0, MAX_RESTORE_LINES - 1), restores[restores.length - 1] as Restore];
  shown.forEach((r, i) => {
    if (i === shown.length - 1 && shown.length < restores.length) {
      lines.push(`  ... ${restores.length - shown.length} more restores (${restores.length} in all; replay --json lists them)`);
    }
    lines.push(restoreLine(r));
  });
  return lines;
}

/** Restores listed one per line at most; the rest between the first ones and the last are counted. */
export const MAX_RESTORE_LINES = 10;

type Restore = CheckpointStatsResult['restores'][number];

function restoreLine(r: Restore): string {
  // No failure behind it: a job run started from a savepoint or a retained checkpoint.
  const started = r.failureTimeMs === undefined;
  const next = r.nextCompletedCheckpointId === undefined
    ? 'no checkpoint completed after it'
    : `checkpoint ${r.nextCompletedCheckpointId} completed ${fmt(r.timeToNextCompletedMs)} ms after the ${started ? 'restore' : 'failure'}`;
  return started
    ? `  restore from snapshot ${r.checkpointId} at ${fmt(r.restoreTimeMs)} ms (the job run started from it; no failure); ${next}`
    : `  restore from checkpoint ${r.checkpointId} at ${fmt(r.restoreTimeMs)} ms (failure at ${fmt(r.failureTimeMs)} ms); ${next}`;
}
