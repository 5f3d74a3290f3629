/**
 * MiniCluster: a whole Flink-like cluster on the simulator — a JobManager host running the
 * ResourceManager and the job's JobMaster, and TaskManager hosts running TaskExecutors — plus
 * the run loop that ends at job end (after a drain phase in which pending cleanup finishes and
 * paused hosts resume), at a budget, or at an engine assertion. Faults are applied through
 * `world` (crash, restart, partition, ...).
 *
 * An engine assertion (sim/engineAssertion.ts says how it is told from a harness one) ends the
 * run where it was thrown: the result says so (`run.reason` `engine-assertion`, and
 * `engineAssertion`) and holds everything the run produced until then, so the harness can report
 * it as a counterexample. The trace ends with an `engine.assertion` event carrying the message
 * (not the location: where the code lies is no part of what the run did), so the hash of such a
 * run is as deterministic as any other. A harness assertion, or any other error, propagates.
 *
 * Invariants: options are validated completely before anything boots (one-line SimInputError);
 * a MiniCluster runs once, because its drain stop is armed by the first job end only.
 *
 * @see org.apache.flink.runtime.minicluster.MiniCluster (the idea, not the code)
 */
import {
  DEFAULT_CLUSTER_CONFIGURATION, InvalidConfigurationError, KeyedProcessOperator, attemptIdOf, jobRun, jobRunOf, startJobManager,
  startTaskManager, validateClusterConfiguration,
  type CheckpointStatsSnapshot, type ClusterConfiguration, type DecodedCheckpoint, type ExecutionAttemptId, type JobMaster, type OperatorSnapshot, type JobManagerProcess, type JobStatus, type SavepointRestoreSettings, type StreamGraph, type TaskExecutor,
} from '../engine/index.ts';
import {
  describeEngineAssertion, isEngineAssertion, type EngineAssertionReport,
} from './engineAssertion.ts';
import { SimInputError, requireNonNegativeInteger } from './SimInputError.ts';
import type { CommittedRecord } from './SimTransactionalStore.ts';
import { World, type RunResult, type StopReason } from './World.ts';
import type { WorldOptions } from './WorldOptions.ts';

export interface MiniClusterOptions {
  readonly world: WorldOptions;
  readonly streamGraph: StreamGraph;
  /** Overrides of the cluster defaults. */
  readonly config?: Partial<ClusterConfiguration>;
  /** TaskManager hosts, a positive integer; default: enough for the largest parallelism. */
  readonly taskManagers?: number;
  /** Virtual time to keep running after the job ended, integer µs (default 50 ms). */
  readonly drainUs?: number;
}

/** Why a MiniCluster run ended: the World's reasons, or an engine assertion. */
export interface MiniClusterRun extends Omit<RunResult, 'reason'> {
  readonly reason: StopReason | 'engine-assertion';
}

/** An engine assertion that ended the run, and the virtual time it was thrown at (µs). */
export interface EngineAssertion extends EngineAssertionReport {
  readonly timeUs: number;
}

/** What a finished run reports. */
export interface MiniClusterResult {
  readonly run: MiniClusterRun;
  /** Present when an engine assertion ended the run (`run.reason` is `engine-assertion`). */
  readonly engineAssertion?: EngineAssertion;
  readonly jobStatus: JobStatus;
  readonly jobEndUs: number | undefined;
  readonly committed: readonly CommittedRecord[];
  /**
   * Final keyed state of the attempts that finished the job, decoded for oracles:
   * operator uid -> state name -> String(key) -> value.
   */
  readonly finalState: Record<string, Record<string, Record<string, unknown>>>;
  /**
   * Every checkpoint that completed, decoded when it completed (in completion order, over every
   * job run; `jobRun` is present, from 2, on those of later runs).
   */
  readonly completedCheckpoints: readonly RunCheckpoint[];
  /**
   * The latest job run's JobMaster's checkpoint statistics at the end (undefined without
   * checkpointing), µs; every run's in {@link jobRunCheckpointStats}.
   */
  readonly checkpointStats: CheckpointStatsSnapshot | undefined;
  /** Each job run's checkpoint statistics, the first run first (Flink keeps them per job). */
  readonly jobRunCheckpointStats: readonly (CheckpointStatsSnapshot | undefined)[];
  readonly traceHash: string;
}

/** A completed checkpoint and the job run it belongs to (absent: run 1). */
export type RunCheckpoint = DecodedCheckpoint & { readonly jobRun?: number };

export const JOB_MANAGER_HOST = 'jobmanager';

/** The host id of TaskManager `i` (1-based). */
export function taskManagerHost(i: number): string {
  return `taskmanager-${i}`;
}

/** How often the drain phase checks the object store for operations in flight, µs. */
const DRAIN_POLL_US = 1_000;

export class MiniCluster {
  readonly world: World;
  readonly config: ClusterConfiguration;
  readonly taskManagerHosts: readonly string[];
  private jobManager: JobManagerProcess | undefined;
  private jobEndUs: number | undefined;
  /** When a paused host last resumed (`host.resume`), µs; the drain phase lasts past it. */
  private lastResumeUs = -1;
  private readonly drainUs: number;
  /** Holds on the end of the history: a next job run is coming (see {@link holdHistoryEnd}). */
  private historyHolds = 0;
  private readonly completed: RunCheckpoint[] = [];
  /** Every TaskExecutor ever booted (all incarnations), to read finished tasks' final state. */
  private readonly taskExecutors: TaskExecutor[] = [];
  /** Each TaskManager host's TaskExecutor of its latest boot. */
  private readonly latestTaskExecutors = new Map<string, TaskExecutor>();
  private ran = false;

  /**
   * Validates `options`, builds the world and boots every host.
   * @throws SimInputError with a one-line reason for bad options (including a bad cluster
   *   configuration, reported as `config.<field> ...`).
   */
  constructor(options: MiniClusterOptions) {
    const { config, taskManagers: tms, drainUs } = validateOptions(options);
    this.config = config;
    this.drainUs = drainUs;
    this.world = new World(options.world);
    this.world.onTrace((e) => isGloballyTerminal(e.attrs['status']), (e) => {
      // Only the latest job run's end can end the history, and only when no next run is coming.
      if (jobRunOf(e.attrs) !== this.jobMasters.length || this.historyHolds > 0) return;
      this.armDrain();
    }, { types: ['job.status'] });
    this.world.onTrace(() => true, (e) => { this.lastResumeUs = e.timeUs; }, { types: ['host.resume'] });
    // Read each completed checkpoint right after it completed: the store may subsume or discard it
    // later (and discards everything when the job finishes).
    this.world.onTrace(() => true, (e) => {
      const run = jobRunOf(e.attrs);
      const store = this.jobMasters[run - 1]?.checkpointCoordinator?.store;
      const latest = store?.getLatestCheckpoint();
      if (latest !== undefined && latest.checkpointId === e.attrs['checkpointId']) this.completed.push(runCheckpoint(latest.decode(), run));
    }, { types: ['checkpoint.completed'] });
    // A savepoint never joins the store: keep its completed form from its pending checkpoint's
    // completion future (completed just before its checkpoint.completed event), for the oracles.
    this.world.onTrace((e) => e.attrs['savepoint'] === true, (e) => {
      const run = jobRunOf(e.attrs);
      const cc = this.jobMasters[run - 1]?.checkpointCoordinator;
      const pc = cc?.getPendingCheckpoints().find((p) => p.checkpointId === e.attrs['checkpointId']);
      pc?.completionFuture.whenComplete((cp) => {
        if (cp !== undefined) this.completed.push(runCheckpoint(cp.decode(), run));
      });
    }, { types: ['checkpoint.triggered'] });
    const job = { streamGraph: options.streamGraph };
    this.taskManagerHosts = Array.from({ length: tms }, (_x, i) => taskManagerHost(i + 1));
    for (const h of this.taskManagerHosts) this.world.addHost(h, (env) => {
      const te = startTaskManager(env, this.config);
      this.taskExecutors.push(te);
      this.latestTaskExecutors.set(h, te);
    });
    this.world.addHost(JOB_MANAGER_HOST, (env) => {
      this.jobManager = startJobManager(env, this.config, job);
    });
  }

  /**
   * The tasks of live TaskManagers that wait for a synchronous savepoint (its notification or
   * its abort), as `{ task: <attempt id>, checkpointId }`, in host order.
   */
  tasksWaitingForSynchronousSavepoint(): { task: string; checkpointId: number }[] {
    return this.taskManagerHosts.flatMap((h) => {
      const te = this.latestTaskExecutors.get(h);
      return te === undefined || !this.world.isAlive(h) ? [] : te.tasksWaitingForSynchronousSavepoint();
    });
  }

  /** The JobManager process (ResourceManager and JobMaster). */
  get jobManagerProcess(): JobManagerProcess {
    if (this.jobManager === undefined) throw new Error('the JobManager has not booted');
    return this.jobManager;
  }

  /** The completed checkpoints (and savepoints) of job run `run` so far, in completion order. */
  completedCheckpointsOf(run: number): readonly RunCheckpoint[] {
    return this.completed.filter((c) => (c.jobRun ?? 1) === run);
  }

  /** Every job run's JobMaster, the first run first (empty before the JobManager booted). */
  get jobMasters(): readonly JobMaster[] {
    return this.jobManager?.jobMasters ?? [];
  }

  /**
   * Holds the end of the history: while held, the latest job run reaching a globally terminal
   * status does not start the drain phase, because a next run is coming (a rescale between its
   * stop and its submission). Returns the release; releasing the last hold when the latest run
   * has already ended starts the drain then.
   */
  holdHistoryEnd(): () => void {
    this.historyHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.historyHolds--;
      const latest = this.jobMasters[this.jobMasters.length - 1];
      if (this.historyHolds === 0 && latest !== undefined && isGloballyTerminal(latest.jobStatus)) this.armDrain();
    };
  }

  /**
   * Submits the next job run (Dispatcher.submitJob): a new JobMaster for `streamGraph` (the job
   * at its new parallelism), its attempts numbered above every earlier run's, restored from
   * `restore`. @returns the new run's JobMaster.
   */
  submitJobRun(streamGraph: StreamGraph, restore: SavepointRestoreSettings): JobMaster {
    const previous = this.jobMasters;
    const firstAttempt = Math.max(0, ...previous.map((jm) => jm.graph.maxAttemptNumber())) + 1;
    const run = jobRun(previous.length + 1, firstAttempt);
    this.world.trace.record('sim', 'job.submitted', { jobRun: run.index, path: restore.path, claimMode: restore.claimMode });
    return this.jobManagerProcess.submitJob({ streamGraph }, run, restore);
  }

  /** The history ended: the drain phase starts (once). */
  private armDrain(): void {
    if (this.jobEndUs !== undefined) return;
    this.jobEndUs = this.world.nowUs;
    this.world.at(this.world.nowUs + this.drainUs, 'drain-end', () => this.stopWhenSettled());
  }

  /**
   * Ends the drain phase once no host is paused, a drain's length has passed since the last one
   * resumed, and no object-store operation is in flight. A paused host has not yet run the
   * cancellation queued for its tasks (a cancelTask or disconnectJobManager that reached it
   * while paused), whose sink close aborts the open transaction, and it runs it only after it
   * resumes; a write that was slow (a slow-store fault lasts until the heal time) may still be
   * followed by the cleanup that deletes it. Stopping before would leave a transaction or a file
   * behind that no one leaked. A pause ends by its duration or at the heal time (FaultPlan), so
   * the wait ends; it goes in steps of {@link DRAIN_POLL_US}, and the run's budgets still bound it.
   */
  private stopWhenSettled(): void {
    const paused = this.world.hostIds.some((h) => this.world.isPaused(h));
    const resumedDrainEndUs = this.lastResumeUs + this.drainUs;
    if (!paused && this.lastResumeUs >= 0 && resumedDrainEndUs > this.world.nowUs) {
      this.world.at(resumedDrainEndUs, 'drain-end', () => this.stopWhenSettled());
    } else if (!paused && this.world.objectStore.operationsInFlight === 0) {
      this.world.stop();
    } else {
      this.world.at(this.world.nowUs + DRAIN_POLL_US, 'drain-wait', () => this.stopWhenSettled());
    }
  }

  /**
   * Merges the decoded keyed state of the subtasks that finished: for each subtask whose current
   * attempt is FINISHED, the final state of its latest attempt that recorded one. An attempt
   * restored from a checkpoint in which its subtask had already finished records none (it ran
   * none of the input again), so the attempt that did finish the input counts.
   */
  private finalState(): Record<string, Record<string, Record<string, unknown>>> {
    const out: Record<string, Record<string, Record<string, unknown>>> = {};
    const recorded = new Map<ExecutionAttemptId, readonly OperatorSnapshot[]>();
    for (const te of this.taskExecutors) for (const [attempt, snapshots] of te.finalStates) recorded.set(attempt, snapshots);
    // The latest run that FINISHED (a later run refused at its submission never ran).
    const finished = [...this.jobMasters].reverse().find((jm) => jm.jobStatus === 'FINISHED') ?? this.jobManagerProcess.jobMaster;
    for (const v of finished.graph.allVertices()) {
      if (v.current.state !== 'FINISHED') continue;
      let snapshots: readonly OperatorSnapshot[] | undefined;
      for (let n = v.current.attemptNumber; n >= 0 && snapshots === undefined; n--) {
        snapshots = recorded.get(attemptIdOf(v.jobVertex.id, v.subtask, n));
      }
      for (const snap of snapshots ?? []) {
        const byState = (out[snap.operatorUid] ??= {});
        for (const [name, entries] of Object.entries(KeyedProcessOperator.decode(snap.data).state)) {
          Object.assign((byState[name] ??= {}), entries);
        }
      }
    }
    return out;
  }

  /**
   * Runs the world; an engine assertion ends the run as a result (see the file comment).
   * @throws whatever else the run throws: a harness assertion, any other error.
   */
  private runWorld(): { run: MiniClusterRun; engineAssertion?: EngineAssertion } {
    try {
      return { run: this.world.run() };
    } catch (e) {
      if (!isEngineAssertion(e)) throw e;
      const nowUs = this.world.nowUs;
      const assertion: EngineAssertion = { ...describeEngineAssertion(e), timeUs: nowUs };
      this.world.trace.record('sim', 'engine.assertion', { message: assertion.message });
      const where = assertion.location ?? 'an unknown place in the engine';
      return {
        run: {
          reason: 'engine-assertion',
          events: this.world.eventsRun,
          timeUs: nowUs,
          message: `engine assertion at ${where}: ${assertion.message}`,
        },
        engineAssertion: assertion,
      };
    }
  }

  /**
   * Runs until the job ended and drained, a budget ends the run, or an engine assertion does.
   * @throws SimInputError on a second call: the drain stop is armed by the first job end only,
   *   so a second run would never end (build a new MiniCluster instead); a harness assertion or
   *   any other error the run throws propagates.
   */
  run(): MiniClusterResult {
    if (this.ran) {
      throw new SimInputError('MiniCluster.run() can be called once; build a new MiniCluster');
    }
    this.ran = true;
    const { run, engineAssertion } = this.runWorld();
    return {
      run,
      ...(engineAssertion === undefined ? {} : { engineAssertion }),
      jobStatus: this.jobManagerProcess.jobMaster.jobStatus,
      jobEndUs: this.jobEndUs,
      committed: this.world.transactionalStore.committedRecords(),
      completedCheckpoints: this.completed,
      checkpointStats: this.jobManager?.jobMaster.checkpointCoordinator?.checkpointStats,
      jobRunCheckpointStats: this.jobMasters.map((jm) => jm.checkpointCoordinator?.checkpointStats),
      finalState: this.finalState(),
      traceHash: this.world.traceHash,
    };
  }
}

/** What the constructor needs from valid options. */
interface ValidOptions {
  readonly config: ClusterConfiguration;
  readonly taskManagers: number;
  readonly drainUs: number;
}

/**
 * Checks every MiniCluster option except `world` (the World checks its own).
 * @throws SimInputError with a one-line reason; never prints a non-finite number.
 */
function validateOptions(options: MiniClusterOptions): ValidOptions {
  if (options === null || typeof options !== 'object') {
    throw new SimInputError('MiniCluster options must be an object');
  }
  const maxP = maxParallelism(options.streamGraph);
  const overrides: unknown = options.config;
  if (overrides !== undefined && (overrides === null || typeof overrides !== 'object')) {
    throw new SimInputError('config must be an object of ClusterConfiguration overrides');
  }
  const config: ClusterConfiguration = { ...DEFAULT_CLUSTER_CONFIGURATION, ...options.config };
  try {
    validateClusterConfiguration(config);
  } catch (e) {
    if (!(e instanceof InvalidConfigurationError)) throw e;
    throw new SimInputError(`config.${e.message}`, { cause: e });
  }
  const needed = Math.ceil(maxP / config.slotsPerTaskManager);
  const tms = options.taskManagers ?? needed;
  if (typeof tms !== 'number' || !Number.isSafeInteger(tms) || tms < 1) {
    throw new SimInputError(`taskManagers must be a positive integer, got ${describe(tms)}`);
  }
  if (tms < needed) {
    throw new SimInputError(`taskManagers: ${tms} with ${config.slotsPerTaskManager} slots each `
      + `cannot run parallelism ${maxP} (needs at least ${needed})`);
  }
  const drainUs = options.drainUs ?? 50_000;
  if (typeof drainUs !== 'number' || !Number.isFinite(drainUs)) {
    throw new SimInputError(`drainUs must be a non-negative integer, got ${describe(drainUs)}`);
  }
  requireNonNegativeInteger(drainUs, 'drainUs');
  return { config, taskManagers: tms, drainUs };
}

/** The largest operator parallelism of `graph`. @throws SimInputError for a malformed graph. */
function maxParallelism(graph: StreamGraph): number {
  if (graph === null || typeof graph !== 'object' || !Array.isArray(graph.nodes)) {
    throw new SimInputError('streamGraph must be a StreamGraph (env.getStreamGraph())');
  }
  if (graph.nodes.length === 0) throw new SimInputError('streamGraph has no nodes');
  let maxP = 1;
  for (const [i, n] of graph.nodes.entries()) {
    const p = (n as { parallelism?: unknown } | null | undefined)?.parallelism;
    if (typeof p !== 'number' || !Number.isSafeInteger(p) || p < 1) {
      throw new SimInputError(
        `streamGraph.nodes[${i}].parallelism must be a positive integer, got ${describe(p)}`);
    }
    maxP = Math.max(maxP, p);
  }
  return maxP;
}

/** A short description of a bad value that never prints a non-finite number. */
function describe(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'a non-finite number';
  if (v === undefined || v === null) return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function isGloballyTerminal(s: unknown): boolean {
  return s === 'FINISHED' || s === 'FAILED' || s === 'CANCELED';
}

/** `cp` tagged with its job run when that is not the first (the first run's entries stay as they were). */
function runCheckpoint(cp: DecodedCheckpoint, run: number): RunCheckpoint {
  return run === 1 ? cp : { ...cp, jobRun: run };
}
