/**
 * Execution states of a task attempt and the report a TaskExecutor sends on each change.
 *
 * @see org.apache.flink.runtime.execution.ExecutionState,
 *      org.apache.flink.runtime.taskmanager.TaskExecutionState
 */
import type { ExecutionAttemptId } from '../api/ids.ts';

export type ExecutionState =
  | 'CREATED'
  | 'SCHEDULED'
  | 'DEPLOYING'
  | 'INITIALIZING'
  | 'RUNNING'
  | 'FINISHED'
  | 'CANCELING'
  | 'CANCELED'
  | 'FAILED';

/** True for FINISHED, CANCELED and FAILED. */
export function isTerminal(s: ExecutionState): boolean {
  return s === 'FINISHED' || s === 'CANCELED' || s === 'FAILED';
}

/** A state change reported by the TaskExecutor (updateTaskExecutionState). */
export interface TaskExecutionState {
  readonly attemptId: ExecutionAttemptId;
  readonly state: ExecutionState;
  /** For FAILED: why. */
  readonly error?: string;
}

/** The canonical attempt id of (vertex, subtask, attempt number). */
export function attemptIdOf(vertexId: string, subtask: number, attemptNumber: number): ExecutionAttemptId {
  return `${vertexId}#${subtask}@${attemptNumber}` as ExecutionAttemptId;
}
