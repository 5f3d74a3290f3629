/**
 * Restores the latest completed checkpoint on failover: assigns task state
 * (StateAssignmentOperation), restores the master hooks (also on a regional restore) and resets
 * the OperatorCoordinators: the whole coordinator on a global restore (`resetToCheckpoint`), the
 * restarted subtasks on a regional one (`subtaskReset`). With an empty store, hooks are reset and
 * coordinators go back to their initial state.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator
 *      #restoreLatestCheckpointedStateInternal, hooks.MasterHooks#restoreMasterHooks,
 *      org.apache.flink.runtime.scheduler.SchedulerBase#restoreState (reference 5.1)
 */
import { assert } from '../util/assert.ts';
import type { CheckpointCoordinatorContext } from './CheckpointCoordinatorContext.ts';
import type { SubtaskRef } from './CheckpointPlan.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { CompletedCheckpointStore } from './CompletedCheckpointStore.ts';
import type { MasterTriggerRestoreHook } from './MasterTriggerRestoreHook.ts';
import { StateAssignmentOperation } from './StateAssignmentOperation.ts';
import type { JobManagerTaskRestore } from './TaskStateSnapshot.ts';

/** OperatorCoordinator.NO_CHECKPOINT. */
export const NO_CHECKPOINT = -1;

/** What a restore hands to the scheduler. */
export interface CheckpointRestoreResult {
  /** The restored checkpoint's id; -1 when the store was empty. */
  readonly checkpointId: number;
  /** Per `<vertex>#<subtask>` the state to deploy with; subtasks without state are absent. */
  readonly tasks: ReadonlyMap<string, JobManagerTaskRestore>;
}

export class CheckpointRestorer {
  constructor(
    private readonly ctx: CheckpointCoordinatorContext,
    private readonly store: CompletedCheckpointStore,
    private readonly hooks: readonly MasterTriggerRestoreHook[],
    private readonly allowNonRestoredState = false,
    /** Planted `restore-from-uncompleted` only: the newest checkpoint that never completed. */
    private readonly newestUncompleted: () => CompletedCheckpoint | undefined = () => undefined,
  ) {}

  /** Restores `subtasks` from the latest checkpoint; `global` for a global failover. */
  restore(subtasks: readonly SubtaskRef[], global: boolean): CheckpointRestoreResult {
    const completed = this.store.getLatestCheckpoint();
    const uncompleted = this.newestUncompleted();
    // The planted mistake restores the newest checkpoint, completed or not.
    const latest = uncompleted !== undefined && uncompleted.checkpointId > (completed?.checkpointId ?? 0)
      ? uncompleted : completed;
    const env = this.ctx.env;
    if (latest === undefined) {
      for (const h of this.hooks) h.reset();
      this.resetCoordinators(subtasks, global, NO_CHECKPOINT, () => undefined);
      env.tracer.event('checkpoint.restored', { checkpointId: NO_CHECKPOINT, global, tasks: 0 });
      return { checkpointId: NO_CHECKPOINT, tasks: new Map() };
    }
    const assignment = new StateAssignmentOperation(latest, this.ctx.jobVertices(),
      { allowNonRestoredState: this.allowNonRestoredState || !global });
    const tasks = assignment.assignStates(subtasks);
    // A rescaled restore spread list state round robin, union state to every subtask.
    if (assignment.redistributedModes.has('SPLIT_DISTRIBUTE')) env.tracer.mark('list-state-redistributed', { checkpointId: latest.checkpointId });
    if (assignment.redistributedModes.has('UNION')) env.tracer.mark('union-state-redistributed', { checkpointId: latest.checkpointId });
    const id = latest.checkpointId;
    for (const key of latest.masterStates.keys()) {
      assert(this.allowNonRestoredState || this.hooks.some((h) => h.identifier === key),
        () => `master state ${key} has no hook`);
    }
    for (const h of this.hooks) h.restoreCheckpoint(id, latest.masterStates.get(h.identifier) ?? null);
    this.resetCoordinators(subtasks, global, id, (uid) => latest.coordinatorStates.get(uid));
    env.tracer.event('checkpoint.restored', { checkpointId: id, global, tasks: tasks.size });
    env.tracer.mark('restore-from-checkpoint', { checkpointId: id });
    return { checkpointId: id, tasks };
  }

  private resetCoordinators(subtasks: readonly SubtaskRef[], global: boolean, id: number,
    state: (uid: string) => unknown): void {
    for (const c of this.ctx.coordinators) {
      if (global) {
        c.resetToCheckpoint(id, state(c.operatorUid));
        continue;
      }
      for (const s of subtasks) if (s.vertexId === c.vertexId) c.subtaskReset(s.subtask, id);
    }
  }
}
