/**
 * ActionPlan: installs a RunSpec's actions (what a user asks of the job: savepoints, a
 * stop-with-savepoint) on a booted
 * MiniCluster. An action fires at its time (`{ atMs }`, through `world.at`, before engine events of
 * that instant) or once right after its protocol point (`{ at: point }`, the same points and trace
 * events as a fault's: FaultPlan.ts). Unlike a fault, an action fires whether or not the heal time
 * has passed: it is part of the history being tested, not of the trouble.
 *
 * Firing an action records an `action` event on host `sim` (`{ index, type, action: 'fired' }`),
 * then asks the JobMaster (a savepoint: JobMaster.triggerSavepoint; a stop:
 * JobMaster.stopWithSavepoint; each a mail on its main thread), naming the action as the
 * request's origin (`action[<index>]`), which the coordinator records on the `checkpoint.triggered`
 * event of the id the savepoint gets: so points that name a savepoint (`savepoint: n`,
 * savepointPoints.ts) learn its id. When the request's future ends,
 * the plan records `completed` (with the savepoint's id and metadata path) or `failed` (with the
 * reason), as the user's client would learn it. The engine marks `savepoint-completed` and
 * `savepoint-failed` per savepoint, and the stop's outcome (`stop-with-savepoint-finished`,
 * `-failed`, `-job-failed`).
 *
 * A stop can also never end: a lost confirmation of its savepoint, or a lost abort of a failed
 * one, leaves tasks waiting forever (nothing resends either). {@link finish} names that at the
 * end of the run, when tasks still wait for a synchronous savepoint whose outcome the coordinator
 * has decided: mark `stop-with-savepoint-stuck` (host `sim`), a known Flink 1.20 outcome.
 *
 * Invariants: each action fires at most once; an action whose time or point never came is
 * unfired (listed, never passed off as tested).
 */
import {
  CheckpointException, StopWithSavepointStoppingException, type JobMaster, type RecoveryClaimMode, type StreamGraph,
} from '../../engine/index.ts';
import { snapshotIdOfPath } from './faultWorldOptions.ts';
import type { MiniCluster, RunCheckpoint } from '../MiniCluster.ts';
import type { World } from '../World.ts';
import { whenPointReached } from './whenPointReached.ts';
import { jobRunOf } from '../../engine/index.ts';
import { actionOrigin } from './savepointPoints.ts';
import type { Action, ActionTrigger } from './RunSpec.ts';

/** One entry of the action log. */
export interface ActionRecord {
  /** Index in `actions`. */
  readonly action: number;
  readonly type: Action['type'];
  /** `fired` when the request went out; then `completed` or `failed` when it ended. */
  readonly event: 'fired' | 'completed' | 'failed';
  readonly timeMs: number;
  /**
   * The savepoint's checkpoint id (`completed`; a stop's from its metadata path, also when the
   * stop `failed` after its savepoint was created).
   */
  readonly checkpointId?: number;
  /** Where the savepoint's metadata is (`completed`): `savepoint-<id>/_metadata`. */
  readonly path?: string;
  /** Why it failed (`failed`): a CheckpointFailureReason, or the error's message. */
  readonly reason?: string;
  /**
   * `fired`: the job run the action was aimed at (the latest when it fired; absent: run 1); a rescale's
   * `completed`: the new job run it submitted, restored from `path`.
   */
  readonly jobRun?: number;
}

/** A job run of the history, as the harness started it. */
export interface JobRunRecord {
  /** 1 for the first run. */
  readonly index: number;
  /** The operators' parallelism in this run, by uid. */
  readonly parallelism: Readonly<Record<string, number>>;
  /** The action that started it (a rescale), absent for the first run. */
  readonly action?: number;
  /** What it was restored from (absent for the first run). */
  readonly restoredFrom?: {
    readonly jobRun: number; readonly checkpointId: number; readonly path: string;
    readonly claimMode: RecoveryClaimMode; readonly savepoint: boolean;
  };
  /** When it was submitted, ms. */
  readonly submittedMs: number;
}

/** How the plan builds the job for a next run (simulate's job at a new parallelism). */
export interface NextRunJob {
  /** The first run's parallelism by uid. */
  readonly firstParallelism: Readonly<Record<string, number>>;
  /** The job's StreamGraph (costs and checkpointing included) at `parallelism`. */
  graph(parallelism: Readonly<Record<string, number>>): StreamGraph;
}

/** A stop-with-savepoint that can never end (see {@link ActionPlan.finish}). */
export interface StuckStop {
  /** Index of the stop in `actions`. */
  readonly action: number;
  /** The synchronous savepoint the tasks wait for. */
  readonly checkpointId: number;
  /** `completed`: its confirmation was lost; `failed`: the abort of the failed savepoint was. */
  readonly savepoint: 'completed' | 'failed';
  /** The waiting tasks (attempt ids). */
  readonly tasks: readonly string[];
}

export class ActionPlan {
  private readonly world: World;
  private readonly records: ActionRecord[] = [];
  private readonly fired = new Set<number>();
  private readonly syncSavepointOutcomes = new Map<string, 'completed' | 'failed'>();
  private readonly runs: JobRunRecord[] = [];

  /**
   * @param actions the spec's actions (validated).
   * @param cluster a booted cluster (nothing has run yet).
   * @param job how to build the job for a next run (needed when a rescale action exists).
   */
  constructor(private readonly actions: readonly Action[], private readonly cluster: MiniCluster,
    private readonly job?: NextRunJob) {
    this.world = cluster.world;
    this.runs.push({ index: 1, parallelism: job?.firstParallelism ?? {}, submittedMs: 0 });
  }

  /** The job runs of the history so far, the first run first. */
  get jobRuns(): readonly JobRunRecord[] {
    return this.runs;
  }

  /** What happened so far, in order. */
  get log(): readonly ActionRecord[] {
    return this.records;
  }

  /** Indices of actions that never fired (their time or point never came before the run ended). */
  unfired(): number[] {
    return this.actions.flatMap((_a, i) => (this.fired.has(i) ? [] : [i]));
  }

  /** Schedules every action. Call once, before the run. */
  install(): void {
    // The outcomes of synchronous savepoints, for finish (the trace may be cut short).
    if (this.actions.some((a) => a.type === 'stop-with-savepoint' || a.type === 'rescale')) {
      this.world.onTrace((e) => e.attrs['synchronous'] === true, (e) => {
        const id = e.attrs['checkpointId'];
        if (typeof id === 'number') {
          this.syncSavepointOutcomes.set(`${jobRunOf(e.attrs)}/${id}`, e.type === 'checkpoint.completed' ? 'completed' : 'failed');
        }
      }, { types: ['checkpoint.completed', 'checkpoint.aborted'] });
    }
    this.actions.forEach((a, i) => this.arm(i, a.when));
  }

  private arm(index: number, when: ActionTrigger): void {
    const action = this.actions[index] as Action;
    if ('atMs' in when) {
      this.world.at(Math.round(when.atMs * 1000), `action[${index}] ${action.type}`, () => this.fire(index));
      return;
    }
    whenPointReached(this.cluster, when.at, `action[${index}] ${action.type}`, () => this.fire(index), this.actions);
  }

  /**
   * At the end of the run: names a stop that can never end. Tasks of live TaskManagers still
   * wait for a synchronous savepoint that completed (a lost confirmation) or was aborted (a lost
   * abort notification), so the job can never finish nor fail over for it. A savepoint still
   * pending when the run ended is not stuck: its timeout may yet decide it.
   * Records the mark `stop-with-savepoint-stuck` and returns the stop, else undefined.
   */
  finish(): StuckStop | undefined {
    // The stop that can be stuck is the latest run's (a rescale's stop, or the history's last).
    const stop = this.stopOfLatestRun();
    if (stop === undefined) return undefined;
    const waiting = this.cluster.tasksWaitingForSynchronousSavepoint();
    const first = waiting[0];
    if (first === undefined) return undefined;
    const id = first.checkpointId;
    const outcome = this.syncSavepointOutcomes.get(`${this.runs.length}/${id}`);
    if (outcome === undefined) return undefined;
    const stuck: StuckStop = {
      action: stop, checkpointId: id, savepoint: outcome,
      tasks: waiting.filter((w) => w.checkpointId === id).map((w) => w.task),
    };
    this.world.trace.mark('sim', 'stop-with-savepoint-stuck', { index: stop, checkpointId: id, savepoint: stuck.savepoint });
    return stuck;
  }

  /** The fired stop (a stop-with-savepoint, or a rescale's) aimed at the latest job run, if any. */
  private stopOfLatestRun(): number | undefined {
    const latest = this.runs.length;
    for (const [i, run] of this.stopRuns) {
      if (run === latest) return i;
    }
    return undefined;
  }

  /** Per fired stop (a stop-with-savepoint, or a rescale via stop), the job run it stopped. */
  private readonly stopRuns = new Map<number, number>();

  /** Fires action `index` (its trigger calls this once: by time, or through whenPointReached). */
  private fire(index: number): void {
    this.fired.add(index);
    const action = this.actions[index] as Action;
    // The run it is aimed at, said only once a history has several (absent: run 1).
    this.note(index, 'fired', this.runs.length > 1 ? { jobRun: this.runs.length } : {});
    const jobMaster = this.cluster.jobManagerProcess.jobMaster;
    if (action.type === 'cancel') {
      jobMaster.cancel().whenComplete((cancelled) => {
        if (cancelled === true) this.note(index, 'completed');
        else this.note(index, 'failed', { reason: `the job was ${jobMaster.jobStatus}, not running` });
      });
      return;
    }
    if (action.type === 'rescale') {
      this.rescale(index, action, jobMaster);
      return;
    }
    const format = action.format === 'native' ? 'NATIVE' : 'CANONICAL';
    if (action.type === 'stop-with-savepoint') {
      this.stopRuns.set(index, this.runs.length);
      jobMaster.stopWithSavepoint(action.drain === true, format, actionOrigin(index)).whenComplete((path, e) => {
        if (path !== undefined) this.note(index, 'completed', { checkpointId: snapshotIdOfPath(path), path });
        // The savepoint exists although the stop failed: say which (its metadata path).
        else if (e instanceof StopWithSavepointStoppingException) {
          this.note(index, 'failed', { reason: reasonOf(e), checkpointId: snapshotIdOfPath(e.savepointPath), path: e.savepointPath });
        } else this.note(index, 'failed', { reason: reasonOf(e) });
      });
      return;
    }
    jobMaster.triggerSavepoint(format, actionOrigin(index)).whenComplete((cp, e) => {
      if (cp !== undefined) this.note(index, 'completed', { checkpointId: cp.checkpointId, path: cp.metadataPath });
      else this.note(index, 'failed', { reason: reasonOf(e) });
    });
  }

  /**
   * A rescale: ends the latest job run (stop-with-savepoint without drain, or cancel) and, once it
   * ended with a snapshot to restore (the savepoint, or the run's latest completed checkpoint,
   * retained by RETAIN_ON_CANCELLATION, or a stop's synchronous savepoint completed after it),
   * submits the next run at the new parallelism restored
   * from it, as a user's tooling would when its client learns the outcome; a rescale via cancel
   * while the run has no completed checkpoint fails without cancelling. The history's end is
   * held meanwhile (MiniCluster.holdHistoryEnd). Marks `rescale-up` / `rescale-down` (host `sim`)
   * when some operator's parallelism grows / shrinks.
   */
  private rescale(index: number, action: Extract<Action, { type: 'rescale' }>, jobMaster: JobMaster): void {
    const job = this.job;
    if (job === undefined) throw new Error('ActionPlan: a rescale needs the job (NextRunJob)');
    const from = this.runs[this.runs.length - 1] as JobRunRecord;
    const release = this.cluster.holdHistoryEnd();
    const failed = (reason: string, savepointPath?: string): void => {
      // A stop whose savepoint exists although the job then failed says which savepoint (its path).
      this.note(index, 'failed', { reason, ...(savepointPath === undefined ? {} : { checkpointId: snapshotIdOfPath(savepointPath), path: savepointPath }) });
      release();
    };
    const restoreFrom = (path: string, checkpointId: number, savepoint: boolean): void => {
      const parallelism = typeof action.parallelism === 'number'
        ? Object.fromEntries(Object.keys(from.parallelism).map((uid) => [uid, action.parallelism as number]))
        : { ...from.parallelism, ...action.parallelism };
      const claimMode: RecoveryClaimMode = action.claimMode ?? 'NO_CLAIM';
      // The user's next submission: its own event, after the client learnt the outcome.
      this.world.at(this.world.nowUs, `action[${index}] rescale submit`, () => {
        const up = Object.entries(parallelism).some(([uid, p]) => p > (from.parallelism[uid] ?? p));
        const down = Object.entries(parallelism).some(([uid, p]) => p < (from.parallelism[uid] ?? p));
        this.cluster.submitJobRun(job.graph(parallelism), { path, claimMode });
        const record: JobRunRecord = {
          index: this.runs.length + 1, parallelism, action: index, submittedMs: this.world.nowUs / 1000,
          restoredFrom: { jobRun: from.index, checkpointId, path, claimMode, savepoint },
        };
        this.runs.push(record);
        if (up) this.world.trace.mark('sim', 'rescale-up', { index, jobRun: record.index });
        if (down) this.world.trace.mark('sim', 'rescale-down', { index, jobRun: record.index });
        this.note(index, 'completed', { checkpointId, path, jobRun: record.index });
        release();
      });
    };
    if ((action.via ?? 'stop-with-savepoint') === 'stop-with-savepoint') {
      this.stopRuns.set(index, this.runs.length);
      jobMaster.stopWithSavepoint(false, 'CANONICAL', actionOrigin(index)).whenComplete((path, e) => {
        if (path !== undefined) restoreFrom(path, snapshotIdOfPath(path), true);
        else failed(reasonOf(e), e instanceof StopWithSavepointStoppingException ? e.savepointPath : undefined);
      });
      return;
    }
    // The newest completed checkpoint, or a stop's synchronous savepoint if it completed later:
    // its notification commits the sinks' transactions (a completed savepoint of a stop whose job
    // then did not finish, say a cancel came before the tasks ended), so an older checkpoint would
    // emit that output again; StopWithSavepointStoppingException tells the user to restart from it.
    const latestCheckpoint = (): RunCheckpoint | undefined =>
      [...this.cluster.completedCheckpointsOf(from.index)].reverse()
        .find((c) => c.kind === 'checkpoint' || c.kind === 'sync-savepoint');
    // The user's tooling looks for a checkpoint to restore before it cancels (as the Flink
    // Kubernetes Operator's last-state upgrade checks for one): with none, it leaves the run
    // running, as a failed stop does, rather than cancel a job it cannot bring back.
    if (latestCheckpoint() === undefined) {
      failed('no retained checkpoint to restore from (none completed)');
      return;
    }
    jobMaster.cancel().whenComplete((cancelled) => {
      if (cancelled !== true) {
        failed(`the job was ${jobMaster.jobStatus}, not running`);
        return;
      }
      // The latest when the run ended (one may have completed while it was cancelling; the one
      // found above is still recorded, so there is one).
      const latest = latestCheckpoint() as RunCheckpoint;
      restoreFrom(latest.metadataPath, latest.checkpointId, latest.kind !== 'checkpoint');
    });
  }

  private note(index: number, event: ActionRecord['event'], extra: Omit<ActionRecord, 'action' | 'type' | 'event' | 'timeMs'> = {}): void {
    const a = this.actions[index] as Action;
    this.records.push({ action: index, type: a.type, event, timeMs: this.world.nowUs / 1000, ...extra });
    this.world.trace.record('sim', 'action', { index, type: a.type, action: event, ...extra });
  }
}

/** A failed request's reason: its CheckpointFailureReason, else the error's name and message. */
function reasonOf(e: unknown): string {
  if (e instanceof CheckpointException) return e.reason;
  if (e instanceof StopWithSavepointStoppingException) return e.name;
  return e instanceof Error ? e.message : String(e);
}
