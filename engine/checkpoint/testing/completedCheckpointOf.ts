/**
 * Builds a CompletedCheckpoint for state assignment tests the way the coordinator does: a
 * PendingCheckpoint over the given vertices, acknowledged by every subtask that has not finished
 * with the given operator states, then completed (so the operator parallelism, max parallelism and
 * finished subtasks are recorded by PendingCheckpoint itself).
 */
import { executionAttemptId } from '../../api/ids.ts';
import type { CheckpointJobVertex, CheckpointTaskAttempt } from '../CheckpointCoordinatorContext.ts';
import type { SubtaskRef } from '../CheckpointPlan.ts';
import { CheckpointProperties } from '../CheckpointProperties.ts';
import type { CompletedCheckpoint } from '../CompletedCheckpoint.ts';
import { PendingCheckpoint } from '../PendingCheckpoint.ts';
import type { OperatorSubtaskStateHandle } from '../TaskStateSnapshot.ts';

/** What {@link completedCheckpointOf} builds. */
export interface CompletedCheckpointSpec {
  readonly checkpointId?: number;
  /** The vertices the checkpoint was taken at (their parallelism and max parallelism). */
  readonly vertices: readonly CheckpointJobVertex[];
  /** operator uid -> per subtask the snapshot `data` (undefined: no state for that subtask). */
  readonly states: Readonly<Record<string, readonly unknown[]>>;
  /** Subtasks that had finished (they do not acknowledge). */
  readonly finished?: readonly SubtaskRef[];
  /** Vertices all of whose subtasks had finished. */
  readonly fullyFinished?: readonly string[];
}

/** The file path the state of `uid` on `<vertex>#<subtask>` is given in checkpoint `id`. */
export function stateFilePath(id: number, vertexId: string, subtask: number, uid: string): string {
  return `chk-${id}/${vertexId}#${subtask}@0/${uid}`;
}

/** A completed checkpoint; see the file comment. */
export function completedCheckpointOf(spec: CompletedCheckpointSpec): CompletedCheckpoint {
  const id = spec.checkpointId ?? 1;
  const finished = new Set((spec.finished ?? []).map((t) => `${t.vertexId}#${t.subtask}`));
  const all: CheckpointTaskAttempt[] = spec.vertices.flatMap((v) => Array.from({ length: v.parallelism }, (_x, i) => ({
    attemptId: executionAttemptId(`${v.id}#${i}@0`), vertexId: v.id, subtask: i,
    state: finished.has(`${v.id}#${i}`) ? 'FINISHED' as const : 'RUNNING' as const,
  })));
  const running = all.filter((t) => t.state === 'RUNNING');
  const pc = new PendingCheckpoint({
    checkpointId: id, triggerTimestampUs: 0, props: CheckpointProperties.forCheckpoint('NEVER_RETAIN_AFTER_TERMINATION'),
    coordinatorUids: [], masterHookIds: [], vertices: spec.vertices, allowEmptyPlanForTesting: true,
    plan: {
      tasksToTrigger: running, tasksToWaitFor: running, tasksToCommitTo: [],
      finishedTasks: all.filter((t) => t.state === 'FINISHED'), fullyFinishedVertices: spec.fullyFinished ?? [],
    },
  });
  for (const t of running) {
    const v = spec.vertices.find((x) => x.id === t.vertexId) as CheckpointJobVertex;
    const operators: OperatorSubtaskStateHandle[] = [];
    for (const uid of v.operatorUids) {
      const data = spec.states[uid]?.[t.subtask];
      if (data === undefined) continue;
      operators.push({ operatorUid: uid, handle: { path: stateFilePath(id, v.id, t.subtask, uid), sizeBytes: 1 }, data });
    }
    pc.acknowledgeTask(t.attemptId, operators.length === 0 ? null
      : { operators, isTaskDeployedAsFinished: false, isTaskFinished: false });
  }
  return pc.createCompletedCheckpoint(0);
}
