/**
 * Assigns a completed checkpoint's state to the subtasks being restored, at the parallelism the
 * job vertices have now, operator by operator (state is matched by operator uid, never by vertex
 * id: chaining can differ in the restoring job).
 *
 * - Preconditions per vertex with state (`checkParallelismPreconditions`): a parallelism above
 *   the state's max parallelism fails; a max parallelism other than the state's is adopted by a
 *   vertex whose max parallelism the job did not set, and fails otherwise.
 * - Keyed state: at the operator's old parallelism each subtask gets its own handles; at another,
 *   new subtask i gets every old handle clipped to its key-group range
 *   `computeKeyGroupRangeForOperatorIndex(maxP, newP, i)`.
 * - Operator state goes through the round-robin repartitioner from the old parallelism to the new
 *   (unchanged: own handles, unless union or partly reported broadcast state is re-spread).
 * - A fully finished vertex is deployed finished on restore at any parallelism. At unchanged
 *   parallelism the finished subtasks of a partly finished vertex are deployed finished too (the
 *   simulation's rule, kept); rescaled, every new subtask is deployed with its share, as Flink
 *   deploys every subtask of a vertex that is not fully finished.
 * - Vertices without state in the checkpoint get no restore.
 *
 * A new subtask's state for one operator can come from several old subtasks' files: it gets one
 * OperatorSubtaskStateHandle per contributing file, each naming the file and holding the part of
 * it (clipped key groups, list elements) that falls to the subtask; the task reads every file and
 * merges the parts (StreamTaskSetup.readOperatorStates, readRestoredState).
 *
 * Channel state (unaligned checkpoints) is not modelled by the simulation, so neither is its
 * redistribution.
 *
 * @see org.apache.flink.runtime.checkpoint.StateAssignmentOperation, TaskStateAssignment
 *      (reference 4.2, 4.3)
 */
import type { KeyedStateSnapshot } from '../state/KeyedStateSnapshot.ts';
import { computeKeyGroupRangeForOperatorIndex } from '../state/KeyGroupRangeAssignment.ts';
import type { OperatorStateHandle, OperatorStateMode } from '../state/OperatorStateHandle.ts';
import { RoundRobinOperatorStateRepartitioner } from '../state/RoundRobinOperatorStateRepartitioner.ts';
import {
  isOperatorSubtaskState, operatorSubtaskState, type OperatorSubtaskState,
} from '../streaming/operators/OperatorSubtaskState.ts';
import type { CheckpointJobVertex } from './CheckpointCoordinatorContext.ts';
import { subtaskKey, type SubtaskRef } from './CheckpointPlan.ts';
import type { CompletedCheckpoint, OperatorStateInfo } from './CompletedCheckpoint.ts';
import { StateAssignmentError } from './StateAssignmentError.ts';
import type {
  JobManagerTaskRestore, OperatorSubtaskStateHandle, TaskStateSnapshot,
} from './TaskStateSnapshot.ts';

/** Options of {@link StateAssignmentOperation}. */
export interface StateAssignmentOptions {
  /** Allow checkpoint state without a matching operator (always true for regional restores). */
  readonly allowNonRestoredState: boolean;
}

const FINISHED_ON_RESTORE: TaskStateSnapshot = Object.freeze({
  operators: Object.freeze([]), isTaskDeployedAsFinished: true, isTaskFinished: true,
});

/** One operator's handles per new subtask (several when a rescale merges old subtasks' files). */
type OperatorAssignment = readonly (readonly OperatorSubtaskStateHandle[])[];

export class StateAssignmentOperation {
  constructor(
    private readonly checkpoint: CompletedCheckpoint,
    private readonly vertices: readonly CheckpointJobVertex[],
    private readonly options: StateAssignmentOptions,
  ) {}

  /**
   * The restores of `subtasks` (`<vertex>#<subtask>` at the vertices' current parallelism),
   * keyed by `<vertex>#<subtask>`; subtasks without state are left out. Adopts the state's max
   * parallelism into vertices that may take it (`setMaxParallelism`), before assigning.
   * @throws StateAssignmentError when checkpoint state matches no operator and non-restored state
   *   is not allowed, when a parallelism exceeds the state's max parallelism, when a configured
   *   max parallelism differs from the state's, when a vertex mixes fully finished and unfinished
   *   operators, or when state cannot be divided (subtask indices beyond the recorded
   *   parallelism, a rescaled operator whose state is not an OperatorSubtaskState).
   */
  /**
   * The operator state modes (SPLIT_DISTRIBUTE, UNION, BROADCAST) that {@link assignStates}
   * redistributed to another parallelism: for the marks `list-state-redistributed` and
   * `union-state-redistributed` (CheckpointRestorer records them).
   */
  readonly redistributedModes = new Set<OperatorStateMode>();

  assignStates(subtasks: readonly SubtaskRef[]): Map<string, JobManagerTaskRestore> {
    this.checkStateMappingCompleteness();
    const out = new Map<string, JobManagerTaskRestore>();
    const wanted = new Set(subtasks.map((s) => subtaskKey(s.vertexId, s.subtask)));
    for (const v of this.vertices) {
      const uids = v.operatorUids;
      const fullyFinished = this.isFullyFinished(v);
      const hasState = uids.some((uid) => (this.checkpoint.operatorStates.get(uid)?.size ?? 0) > 0);
      const rescaled = uids.some((uid) => {
        const info = this.checkpoint.operatorInfo.get(uid);
        return info !== undefined && info.parallelism !== v.parallelism;
      });
      // The simulation's rule at unchanged parallelism (see the file comment), stateless or not.
      const finished = new Set<number>();
      if (!rescaled) {
        for (const uid of uids) for (const i of this.checkpoint.operatorInfo.get(uid)?.finishedSubtasks ?? []) finished.add(i);
      }
      if (!fullyFinished && !hasState && finished.size === 0) continue;
      if (!fullyFinished && hasState) this.checkParallelismPreconditions(v);
      const perOperator = fullyFinished || !hasState ? [] : uids.map((uid) => this.assignOperator(v, uid));
      for (let i = 0; i < v.parallelism; i++) {
        const key = subtaskKey(v.id, i);
        if (!wanted.has(key)) continue;
        if (fullyFinished || finished.has(i)) {
          out.set(key, { restoreCheckpointId: this.checkpoint.checkpointId, taskStateSnapshot: FINISHED_ON_RESTORE });
          continue;
        }
        if (!hasState) continue;
        const operators: OperatorSubtaskStateHandle[] = [];
        for (const assigned of perOperator) if (assigned !== undefined) operators.push(...(assigned[i] ?? []));
        out.set(key, {
          restoreCheckpointId: this.checkpoint.checkpointId,
          taskStateSnapshot: Object.freeze({
            operators: Object.freeze(operators), isTaskDeployedAsFinished: false, isTaskFinished: false,
          }),
        });
      }
    }
    return out;
  }

  private checkStateMappingCompleteness(): void {
    if (this.options.allowNonRestoredState) return;
    const uids = new Set(this.vertices.flatMap((v) => v.operatorUids));
    for (const uid of this.checkpoint.operatorStates.keys()) {
      if (!uids.has(uid)) throw new StateAssignmentError(`There is no operator for the state ${uid}`, uid);
    }
  }

  /**
   * True when the vertex's operators were fully finished in the checkpoint; an operator the
   * checkpoint does not know counts as running.
   * @throws StateAssignmentError when some operators are fully finished and others not.
   */
  private isFullyFinished(v: CheckpointJobVertex): boolean {
    const finished = v.operatorUids.filter((uid) => this.checkpoint.operatorInfo.get(uid)?.fullyFinished === true);
    if (finished.length === 0) return false;
    const running = v.operatorUids.find((uid) => !finished.includes(uid));
    if (running !== undefined) {
      throw new StateAssignmentError(`JobVertex ${v.id} could not have mixed finished and unfinished operators: `
        + `${finished.join(', ')} fully finished, ${running} not (checkpoint ${this.checkpoint.checkpointId})`, running);
    }
    return true;
  }

  /**
   * Flink's preconditions, for every operator of the vertex the checkpoint knows (stateless ones
   * too: Flink keeps an OperatorState for every operator of an acknowledging vertex): the state's
   * max parallelism must be at least the vertex's parallelism, and equal the vertex's max
   * parallelism, which a vertex whose max parallelism was not configured adopts instead.
   * @throws StateAssignmentError with Flink's messages, naming the operator uid.
   */
  private checkParallelismPreconditions(v: CheckpointJobVertex): void {
    for (const uid of v.operatorUids) {
      const info = this.checkpoint.operatorInfo.get(uid);
      if (info === undefined) continue;
      const stateMaxP = info.maxParallelism;
      if (stateMaxP < v.parallelism) {
        throw new StateAssignmentError(`The state for operator ${uid} (vertex ${v.id}) can not be restored. `
          + `The maximum parallelism (${stateMaxP}) of the restored state is lower than the configured parallelism `
          + `(${v.parallelism}). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism.`, uid);
      }
      if (stateMaxP === v.maxParallelism) continue;
      if (v.maxParallelismConfigured) {
        throw new StateAssignmentError(`The maximum parallelism (${stateMaxP}) with which the latest checkpoint `
          + `(${this.checkpoint.checkpointId}) of operator ${uid} (vertex ${v.id}) has been taken and the current maximum `
          + `parallelism (${v.maxParallelism}) changed. This is currently not supported.`, uid);
      }
      v.setMaxParallelism(stateMaxP);
    }
  }

  /**
   * One operator's handles per subtask, or undefined when the checkpoint holds no state for it.
   */
  private assignOperator(v: CheckpointJobVertex, uid: string): OperatorAssignment | undefined {
    const states = this.checkpoint.operatorStates.get(uid);
    if (states === undefined || states.size === 0) return undefined;
    const info = this.checkpoint.operatorInfo.get(uid);
    if (info === undefined) {
      throw new StateAssignmentError(`checkpoint ${this.checkpoint.checkpointId} records no parallelism for operator ${uid}`, uid);
    }
    for (const i of states.keys()) {
      if (i >= info.parallelism) {
        throw new StateAssignmentError(`state of operator ${uid} has subtask ${i} but checkpoint `
          + `${this.checkpoint.checkpointId} records parallelism ${info.parallelism}`, uid);
      }
    }
    return info.parallelism === v.parallelism
      ? this.assignUnchanged(v, uid, states)
      : this.assignRescaled(v, uid, states, info);
  }

  /** At unchanged parallelism: own handles; re-spread union or partly reported broadcast state. */
  private assignUnchanged(v: CheckpointJobVertex, uid: string,
    states: ReadonlyMap<number, OperatorSubtaskStateHandle>): OperatorAssignment {
    const own = Array.from({ length: v.parallelism }, (_x, i) => states.get(i));
    const asList = (h: OperatorSubtaskStateHandle | undefined): OperatorSubtaskStateHandle[] => (h === undefined ? [] : [h]);
    const data = own.map((h) => h?.data);
    if (!data.every((d) => d === undefined || isOperatorSubtaskState(d))) return own.map(asList);
    const previous = data.map((d) => [...((d as OperatorSubtaskState | undefined)?.managedOperatorState ?? [])]);
    const repartitioned = RoundRobinOperatorStateRepartitioner.INSTANCE
      .repartitionState<unknown>(previous, v.parallelism, v.parallelism);
    const firstHandle = own.find((h) => h !== undefined) as OperatorSubtaskStateHandle;
    return own.map((h, i) => {
      const handles = repartitioned[i] ?? [];
      if (sameHandles(handles, previous[i] ?? [])) return asList(h);
      const keyed = (h?.data as OperatorSubtaskState | undefined)?.managedKeyedState ?? [];
      // The file named is the subtask's own snapshot, or the first contributing one when the
      // subtask reported nothing itself (its union or broadcast state comes from other files).
      return [{
        operatorUid: uid,
        handle: (h ?? firstHandle).handle,
        data: operatorSubtaskState({ managedKeyedState: keyed, managedOperatorState: handles }),
      }];
    });
  }

  /**
   * At another parallelism: keyed state clipped to each new subtask's key-group range (at the
   * vertex's max parallelism, after any adoption), operator state round robin from the old
   * parallelism; each new subtask gets one handle per old file that contributes to it, in old
   * subtask order.
   */
  private assignRescaled(v: CheckpointJobVertex, uid: string,
    states: ReadonlyMap<number, OperatorSubtaskStateHandle>, info: OperatorStateInfo): OperatorAssignment {
    const old: (OperatorSubtaskStateHandle | undefined)[] = Array.from({ length: info.parallelism }, (_x, j) => states.get(j));
    const oldData = old.map((h) => {
      if (h === undefined) return undefined;
      if (!isOperatorSubtaskState(h.data)) {
        throw new StateAssignmentError(`operator ${uid} cannot be rescaled from ${info.parallelism} to `
          + `${v.parallelism}: its state is not an OperatorSubtaskState`, uid);
      }
      return h.data;
    });
    const previous = oldData.map((d) => [...(d?.managedOperatorState ?? [])]);
    for (const handles of previous) {
      for (const h of handles) for (const meta of h.states.values()) this.redistributedModes.add(meta.mode);
    }
    const repartitioned = RoundRobinOperatorStateRepartitioner.INSTANCE
      .repartitionState<unknown>(previous, info.parallelism, v.parallelism);
    // Which old subtask's file each operator state handle lies in (its handle id names the file).
    const fileOf = new Map<string, number>();
    previous.forEach((handles, j) => { for (const h of handles) if (!fileOf.has(h.handleId)) fileOf.set(h.handleId, j); });
    return Array.from({ length: v.parallelism }, (_x, i) => {
      const range = computeKeyGroupRangeForOperatorIndex(v.maxParallelism, v.parallelism, i);
      const mine = repartitioned[i] ?? [];
      const pieces: OperatorSubtaskStateHandle[] = [];
      old.forEach((h, j) => {
        if (h === undefined) return;
        const keyed: KeyedStateSnapshot[] = [];
        for (const k of oldData[j]?.managedKeyedState ?? []) {
          const clipped = k.getIntersection(range);
          if (clipped !== null) keyed.push(clipped);
        }
        const operator = mine.filter((o) => fileOf.get(o.handleId) === j);
        if (keyed.length === 0 && operator.length === 0) return;
        pieces.push({
          operatorUid: uid,
          handle: h.handle,
          data: operatorSubtaskState({ managedKeyedState: keyed, managedOperatorState: operator }),
        });
      });
      return pieces;
    });
  }
}

function sameHandles(a: readonly OperatorStateHandle[], b: readonly OperatorStateHandle[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}
