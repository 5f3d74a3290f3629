/**
 * A job status listener that starts the periodic checkpoint scheduler when the job becomes
 * RUNNING and stops it on any other status (so a global failover stops and restarts it, and a
 * region failover, which keeps the job RUNNING, leaves it going).
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
