/**
 * A job status listener that starts the periodic checkpoint scheduler when the job becomes
 * RUNNING and stops it on any other status. Every failover, global or regional, moves the job
 * RUNNING -> RESTARTING when its vertices become restart-pending, so the scheduler stops at
 * failure time, which aborts the pending and queued checkpoints with
 * CHECKPOINT_COORDINATOR_SUSPEND, and starts again once the job is RUNNING (DefaultScheduler).
 * (Flink also keeps it stopped for a job with blocking edges; jobs here have none.)
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinatorDeActivator (reference 1.2)
 */
import type { JobStatus } from '../jobmaster/ExecutionGraph.ts';

/** The two coordinator methods the activator drives. */
export interface CheckpointSchedulerControl {
  startCheckpointScheduler(): void;
  stopCheckpointScheduler(): void;
}

export class CheckpointCoordinatorDeActivator {
  constructor(private readonly coordinator: CheckpointSchedulerControl) {}

  /** The listener: register it with ExecutionGraph.addJobStatusListener. */
  jobStatusChanges(status: JobStatus): void {
    if (status === 'RUNNING') this.coordinator.startCheckpointScheduler();
    else this.coordinator.stopCheckpointScheduler();
  }
}
