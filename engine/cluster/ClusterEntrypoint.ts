/**
 * Boots the processes of a cluster on their hosts: the JobManager process (ResourceManager and
 * a JobMaster per job run submitted) and TaskManager processes (one TaskExecutor each). The
 * sim calls these from each host's boot function, again after a TaskManager restart.
 *
 * @see org.apache.flink.runtime.entrypoint.ClusterEntrypoint,
 *      org.apache.flink.runtime.taskexecutor.TaskManagerRunner
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { createJobGraph } from '../jobgraph/StreamingJobGraphGenerator.ts';
import { JobMaster, type SavepointRestoreSettings } from '../jobmaster/JobMaster.ts';
import { FIRST_JOB_RUN, type JobRun } from '../jobmaster/JobRun.ts';
import { ResourceManager } from '../resourcemanager/ResourceManager.ts';
import type { StreamGraph } from '../streaming/api/StreamGraph.ts';
import { TaskExecutor } from '../taskexecutor/TaskExecutor.ts';
import type { ClusterConfiguration } from './ClusterConfiguration.ts';

/** The JobManager process: the ResourceManager and the JobMaster of every job run submitted. */
export interface JobManagerProcess {
  readonly resourceManager: ResourceManager;
  /** The JobMaster of the latest job run. */
  readonly jobMaster: JobMaster;
  /** Every run's JobMaster, in submission order (the first run first). */
  readonly jobMasters: readonly JobMaster[];
  /**
   * Dispatcher.submitJob: starts a JobMaster for job run `run` (a new JobID, address, threads
   * and checkpoint directory), restored from `restore` when given.
   */
  submitJob(job: JobSubmission, run: JobRun, restore?: SavepointRestoreSettings): JobMaster;
}

/** What to run on the JobManager. */
export interface JobSubmission {
  /** The job; its checkpointing settings, if any, come with it. */
  readonly streamGraph: StreamGraph;
}

/** Starts the ResourceManager and the job's first run's JobMaster on the JobManager host. */
export function startJobManager(env: EngineEnv, config: ClusterConfiguration, job: JobSubmission): JobManagerProcess {
  const resourceManager = new ResourceManager(env, config);
  const jobMasters: JobMaster[] = [];
  const submitJob = (submission: JobSubmission, run: JobRun, restore?: SavepointRestoreSettings): JobMaster => {
    const jm = new JobMaster(env, config, createJobGraph(submission.streamGraph), run, restore);
    jobMasters.push(jm);
    jm.start();
    return jm;
  };
  resourceManager.start();
  submitJob(job, FIRST_JOB_RUN);
  return {
    resourceManager,
    get jobMaster(): JobMaster {
      return jobMasters[jobMasters.length - 1] as JobMaster;
    },
    jobMasters,
    submitJob,
  };
}

/** Starts a TaskExecutor on a TaskManager host; it registers with the ResourceManager. */
export function startTaskManager(env: EngineEnv, config: ClusterConfiguration): TaskExecutor {
  const te = new TaskExecutor(env, config);
  te.start();
  return te;
}
