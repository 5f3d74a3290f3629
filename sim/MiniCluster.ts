/**
 * MiniCluster: a whole Flink-like cluster on the simulator — a JobManager host running the
 * ResourceManager and the job's JobMaster, and TaskManager hosts running TaskExecutors — plus
 * the run loop that ends at job end (after a drain phase in which pending cleanup finishes) or
 * at a budget. Faults are applied through `world` (crash, restart, partition, ...).
 *
 * @see org.apache.flink.runtime.minicluster.MiniCluster (the idea, not the code)
 */
import {
  DEFAULT_CLUSTER_CONFIGURATION, KeyedProcessOperator, startJobManager, startTaskManager,
  type ClusterConfiguration, type JobManagerProcess, type JobStatus, type StreamGraph, type TaskExecutor,
} from '../engine/index.ts';
import { SimInputError } from './SimInputError.ts';
import type { CommittedRecord } from './SimTransactionalStore.ts';
import { World, type RunResult } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

export interface MiniClusterOptions {
  readonly world: WorldOptions;
  readonly streamGraph: StreamGraph;
  /** Overrides of the cluster defaults. */
  readonly config?: Partial<ClusterConfiguration>;
  /** TaskManager hosts; default: enough for the largest parallelism. */
  readonly taskManagers?: number;
  readonly checkpointingEnabled?: boolean;
  /** Virtual time to keep running after the job ended, µs (default 50 ms). */
  readonly drainUs?: number;
}

/** What a finished run reports. */
export interface MiniClusterResult {
  readonly run: RunResult;
  readonly jobStatus: JobStatus;
  readonly jobEndUs: number | undefined;
  readonly committed: readonly CommittedRecord[];
  /**
   * Final keyed state of the attempts that finished the job, decoded for oracles:
   * operator uid -> state name -> String(key) -> value.
   */
  readonly finalState: Record<string, Record<string, Record<string, unknown>>>;
  readonly traceHash: string;
}

export const JOB_MANAGER_HOST = 'jobmanager';

/** The host id of TaskManager `i` (1-based). */
export function taskManagerHost(i: number): string {
  return `taskmanager-${i}`;
}

export class MiniCluster {
  readonly world: World;
  readonly config: ClusterConfiguration;
  readonly taskManagerHosts: readonly string[];
  private jobManager: JobManagerProcess | undefined;
  private jobEndUs: number | undefined;
  /** Every TaskExecutor ever booted (all incarnations), to read finished tasks' final state. */
  private readonly taskExecutors: TaskExecutor[] = [];

  /** Builds the world and boots every host. @throws SimInputError for bad options. */
  constructor(options: MiniClusterOptions) {
    this.config = { ...DEFAULT_CLUSTER_CONFIGURATION, ...options.config };
    const maxP = Math.max(...options.streamGraph.nodes.map((n) => n.parallelism));
    const needed = Math.ceil(maxP / this.config.slotsPerTaskManager);
    const tms = options.taskManagers ?? needed;
    if (!Number.isInteger(tms) || tms < needed) {
      throw new SimInputError(`${tms} TaskManagers with ${this.config.slotsPerTaskManager} slots cannot run parallelism ${maxP}`);
    }
    this.world = new World(options.world);
    const drainUs = options.drainUs ?? 50_000;
    this.world.onTrace((e) => e.type === 'job.status' && isGloballyTerminal(e.attrs['status']), () => {
      if (this.jobEndUs !== undefined) return;
      this.jobEndUs = this.world.nowUs;
      this.world.at(this.world.nowUs + drainUs, 'drain-end', () => this.world.stop());
    });
    const job = { streamGraph: options.streamGraph, checkpointingEnabled: options.checkpointingEnabled ?? false };
    this.taskManagerHosts = Array.from({ length: tms }, (_x, i) => taskManagerHost(i + 1));
    for (const h of this.taskManagerHosts) this.world.addHost(h, (env) => {
      this.taskExecutors.push(startTaskManager(env, this.config));
    });
    this.world.addHost(JOB_MANAGER_HOST, (env) => {
      this.jobManager = startJobManager(env, this.config, job);
    });
  }

  /** The JobManager process (ResourceManager and JobMaster). */
  get jobManagerProcess(): JobManagerProcess {
    if (this.jobManager === undefined) throw new Error('the JobManager has not booted');
    return this.jobManager;
  }

  /** Merges the decoded keyed state of the current attempts that finished. */
  private finalState(): Record<string, Record<string, Record<string, unknown>>> {
    const out: Record<string, Record<string, Record<string, unknown>>> = {};
    const finished = new Set(this.jobManagerProcess.jobMaster.graph.allVertices()
      .filter((v) => v.current.state === 'FINISHED').map((v) => v.current.attemptId));
    for (const te of this.taskExecutors) {
      for (const [attempt, snapshots] of te.finalStates) {
        if (!finished.has(attempt)) continue;
        for (const snap of snapshots) {
          const byState = (out[snap.operatorUid] ??= {});
          for (const [name, entries] of Object.entries(KeyedProcessOperator.decode(snap.data).state)) {
            Object.assign((byState[name] ??= {}), entries);
          }
        }
      }
    }
    return out;
  }

  /** Runs until the job ended and drained, or a budget ends the run. */
  run(): MiniClusterResult {
    const run = this.world.run();
    return {
      run,
      jobStatus: this.jobManagerProcess.jobMaster.jobStatus,
      jobEndUs: this.jobEndUs,
      committed: this.world.transactionalStore.committedRecords(),
      finalState: this.finalState(),
      traceHash: this.world.traceHash,
    };
  }
}

function isGloballyTerminal(s: unknown): boolean {
  return s === 'FINISHED' || s === 'FAILED' || s === 'CANCELED';
}
