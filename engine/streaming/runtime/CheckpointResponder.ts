/**
 * How a task reports checkpoint results to the JobMaster: acknowledge (with state) or decline.
 * Both are RPCs from the TaskExecutor to the JobMaster.
 *
 * @see org.apache.flink.runtime.taskmanager.CheckpointResponder, RpcCheckpointResponder
 */
import type { AcknowledgeCheckpoint, DeclineCheckpoint } from '../../checkpoint/TaskStateSnapshot.ts';

export interface CheckpointResponder {
  acknowledgeCheckpoint(ack: AcknowledgeCheckpoint): void;
  declineCheckpoint(decline: DeclineCheckpoint): void;
}
