/**
 * ActionPlan: installs a RunSpec's actions (what a user asks of the job: savepoints) on a booted
 * MiniCluster. An action fires at its time (`{ atMs }`, through `world.at`, before engine events of
 * that instant) or once right after its protocol point (`{ at: point }`, the same points and trace
 * events as a fault's: FaultPlan.ts). Unlike a fault, an action fires whether or not the heal time
 * has passed: it is part of the history being tested, not of the trouble.
 *
 * Firing an action records an `action` event on host `sim` (`{ index, type, action: 'fired' }`),
 * then asks the JobMaster (a savepoint: JobMaster.triggerSavepoint, a mail on its main thread),
 * naming the action as the request's origin (`action[<index>]`), which the coordinator records on
 * the `checkpoint.triggered` event of the id the savepoint gets: so points that name a savepoint
 * (`savepoint: n`, savepointPoints.ts) learn its id.
 * When the request's future ends, the plan records `completed` (with the savepoint's id and
 * metadata path) or `failed` (with the reason), as the user's client would learn it. The engine
 * marks `savepoint-completed` and `savepoint-failed` itself, per savepoint.
 *
 * Invariants: each action fires at most once; an action whose time or point never came is
 * unfired (listed, never passed off as tested).
 */
import { CheckpointException } from '../../engine/index.ts';
import type { MiniCluster } from '../MiniCluster.ts';
import type { World } from '../World.ts';
import { whenPointReached } from './FaultPlan.ts';
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
  /** The savepoint's checkpoint id (`completed`). */
  readonly checkpointId?: number;
  /** Where the savepoint's metadata is (`completed`): `savepoint-<id>/_metadata`. */
  readonly path?: string;
  /** Why it failed (`failed`): a CheckpointFailureReason, or the error's message. */
  readonly reason?: string;
}

export class ActionPlan {
  private readonly world: World;
  private readonly records: ActionRecord[] = [];
  private readonly fired = new Set<number>();

  /**
   * @param actions the spec's actions (validated).
   * @param cluster a booted cluster (nothing has run yet).
   */
  constructor(private readonly actions: readonly Action[], private readonly cluster: MiniCluster) {
    this.world = cluster.world;
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

  /** Fires action `index` (its trigger calls this once: by time, or through whenPointReached). */
  private fire(index: number): void {
    this.fired.add(index);
    const action = this.actions[index] as Action;
    this.note(index, 'fired');
    const jobMaster = this.cluster.jobManagerProcess.jobMaster;
    jobMaster.triggerSavepoint(action.format === 'native' ? 'NATIVE' : 'CANONICAL', actionOrigin(index)).whenComplete((cp, e) => {
      if (cp !== undefined) {
        this.note(index, 'completed', { checkpointId: cp.checkpointId, path: cp.metadataPath });
        return;
      }
      const reason = e instanceof CheckpointException ? e.reason : e instanceof Error ? e.message : String(e);
      this.note(index, 'failed', { reason });
    });
  }

  private note(index: number, event: ActionRecord['event'], extra: Omit<ActionRecord, 'action' | 'type' | 'event' | 'timeMs'> = {}): void {
    const a = this.actions[index] as Action;
    this.records.push({ action: index, type: a.type, event, timeMs: this.world.nowUs / 1000, ...extra });
    this.world.trace.record('sim', 'action', { index, type: a.type, action: event, ...extra });
  }
}
