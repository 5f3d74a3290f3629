/**
 * The tasks one checkpoint involves: whom to trigger by RPC, whose acks to wait for, whom to
 * notify of completion or abort, and which tasks had already finished.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointPlan, DefaultCheckpointPlan (reference 1.5)
 * Invariants: tasksToTrigger ⊆ tasksToWaitFor; tasksToWaitFor and finishedTasks are disjoint and
 * together cover every subtask; a fully finished vertex has all its subtasks in finishedTasks.
 */
import type { CheckpointTaskAttempt } from './CheckpointCoordinatorContext.ts';

/** A subtask, by vertex id and index. */
export interface SubtaskRef {
  readonly vertexId: string;
  readonly subtask: number;
}

export interface CheckpointPlan {
  readonly tasksToTrigger: readonly CheckpointTaskAttempt[];
  readonly tasksToWaitFor: readonly CheckpointTaskAttempt[];
  /** Notifications go to the then-current attempt of each of these subtasks. */
  readonly tasksToCommitTo: readonly SubtaskRef[];
  readonly finishedTasks: readonly CheckpointTaskAttempt[];
  readonly fullyFinishedVertices: readonly string[];
}

/** `<vertex>#<subtask>`, the key of a subtask in maps. */
export function subtaskKey(vertexId: string, subtask: number): string {
  return `${vertexId}#${subtask}`;
}

/** The subtask of an attempt id `<vertex>#<subtask>@<attempt>`; undefined for another shape. */
export function subtaskOfAttemptId(attemptId: string): SubtaskRef | undefined {
  const at = attemptId.lastIndexOf('@');
  const hash = attemptId.lastIndexOf('#', at < 0 ? attemptId.length : at);
  if (at < 0 || hash < 0) return undefined;
  const subtask = Number(attemptId.slice(hash + 1, at));
  if (!Number.isInteger(subtask)) return undefined;
  return { vertexId: attemptId.slice(0, hash), subtask };
}
