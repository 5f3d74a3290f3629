/**
 * What a task reports for a checkpoint and what a restored task gets back. A task's state lives
 * in files of the object store (written by the asynchronous part of its snapshot); the handles
 * name those files. A handle also carries the frozen data it wrote, as Flink's checkpoint
 * metadata carries key-group offsets and state meta info, so the JobMaster can assign state
 * (StateAssignmentOperation) without reading every file; restoring tasks read the file itself.
 *
 * @see org.apache.flink.runtime.checkpoint.{TaskStateSnapshot, OperatorSubtaskState,
 *      JobManagerTaskRestore}, org.apache.flink.runtime.messages.checkpoint.AcknowledgeCheckpoint
 */
import type { ExecutionAttemptId } from '../api/ids.ts';
import type { CheckpointFailureReason } from './CheckpointFailureReason.ts';
import type { CheckpointMetrics } from './CheckpointMetrics.ts';

/** A file in the object store. */
export interface StreamStateHandle {
  readonly path: string;
  readonly sizeBytes: number;
}

/** One operator's state of one subtask for one checkpoint. */
export interface OperatorSubtaskStateHandle {
  readonly operatorUid: string;
  /** The file holding `data`. */
  readonly handle: StreamStateHandle;
  /** The frozen OperatorSnapshot data (an OperatorSubtaskState for the built-in operators). */
  readonly data: unknown;
}

/** A task's whole snapshot: one entry per stateful operator of its chain. */
export interface TaskStateSnapshot {
  readonly operators: readonly OperatorSubtaskStateHandle[];
  /** The task was deployed as finished on restore and reports no state (FLIP-147). */
  readonly isTaskDeployedAsFinished: boolean;
  /** The task had finished its operators before this snapshot (its final checkpoint). */
  readonly isTaskFinished: boolean;
}

/** The acknowledgeCheckpoint message; `subtaskState` null for a stateless task. */
export interface AcknowledgeCheckpoint {
  readonly attemptId: ExecutionAttemptId;
  readonly checkpointId: number;
  readonly subtaskState: TaskStateSnapshot | null;
  /** What the subtask measured (absent from acks built by tests). */
  readonly checkpointMetrics?: CheckpointMetrics;
}

/** The declineCheckpoint message. */
export interface DeclineCheckpoint {
  readonly attemptId: ExecutionAttemptId;
  readonly checkpointId: number;
  readonly reason: CheckpointFailureReason;
  readonly message?: string;
}

/** State handed to a task on deployment (JobManagerTaskRestore). */
export interface JobManagerTaskRestore {
  readonly restoreCheckpointId: number;
  readonly taskStateSnapshot: TaskStateSnapshot;
}
