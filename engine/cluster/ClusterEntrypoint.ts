/**
 * Boots the processes of a cluster on their hosts: the JobManager process (ResourceManager and
 * one JobMaster for the submitted job) and TaskManager processes (one TaskExecutor each). The
 * sim calls these from each host's boot function, again after a TaskManager restart.
 *
 * @see org.apache.flink.runtime.entrypoint.ClusterEntrypoint,
 *      org.apache.flink.runtime.taskexecutor.TaskManagerRunner
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { createJobGraph } from '../jobgraph/StreamingJobGraphGenerator.ts';
import { JobMaster } from '../jobmaster/JobMaster.ts';
import { ResourceManager } from '../resourcemanager/ResourceManager.ts';
import type { StreamGraph } from '../streaming/api/StreamGraph.ts';
import { TaskExecutor } from '../taskexecutor/TaskExecutor.ts';
import type { ClusterConfiguration } from './ClusterConfiguration.ts';

/** The JobManager process of one job. */
export interface JobManagerProcess {
  readonly resourceManager: ResourceManager;
  readonly jobMaster: JobMaster;
}

/** What to run on the JobManager. */
export interface JobSubmission {
  /** The job; its checkpointing settings, if any, come with it. */
  readonly streamGraph: StreamGraph;
}

/** Starts the ResourceManager and the job's JobMaster on the JobManager host. */
export function startJobManager(env: EngineEnv, config: ClusterConfiguration, job: JobSubmission): JobManagerProcess {
  const resourceManager = new ResourceManager(env, config);
  const jobMaster = new JobMaster(env, config, createJobGraph(job.streamGraph));
  resourceManager.start();
  jobMaster.start();
  return { resourceManager, jobMaster };
}

/** Starts a TaskExecutor on a TaskManager host; it registers with the ResourceManager. */
export function startTaskManager(env: EngineEnv, config: ClusterConfiguration): TaskExecutor {
  const te = new TaskExecutor(env, config);
  te.start();
  return te;
}
