/**
 * Checks, before a restore into a job that may differ from the one that took the snapshot (a
 * savepoint or a retained checkpoint restored by a new job run), that the finished operators in
 * the snapshot still make a runnable job:
 *
 * 1. all operators of a vertex have the same finished state (all running, partly finished or
 *    fully finished);
 * 2. every predecessor of a fully finished vertex is fully finished;
 * 3. a partly finished vertex's predecessors over an ALL_TO_ALL edge are fully finished, over a
 *    POINTWISE edge at least partly finished (ALL_TO_ALL wins when both connect the same pair).
 *
 * An operator the snapshot does not know counts as all running. Flink runs this check for
 * savepoint and initial restores only (`checkForPartiallyFinishedOperators`), not on failover;
 * the caller decides, before StateAssignmentOperation.
 *
 * @see org.apache.flink.runtime.checkpoint.VertexFinishedStateChecker,
 *      CheckpointCoordinator#restoreLatestCheckpointedStateInternal
 */
import type { CheckpointJobEdge, CheckpointJobVertex } from './CheckpointCoordinatorContext.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import { StateAssignmentError } from './StateAssignmentError.ts';

/** A vertex's finished state in a snapshot (VertexFinishedStateChecker.VertexFinishedState). */
export type VertexFinishedState = 'ALL_RUNNING' | 'PARTIALLY_FINISHED' | 'FULLY_FINISHED';

/** The states in Flink's enum order (the order its message lists them in). */
const ORDER: readonly VertexFinishedState[] = ['ALL_RUNNING', 'PARTIALLY_FINISHED', 'FULLY_FINISHED'];

export class VertexFinishedStateChecker {
  private readonly cache = new Map<string, VertexFinishedState>();

  constructor(
    private readonly vertices: readonly CheckpointJobVertex[],
    private readonly edges: readonly CheckpointJobEdge[],
    private readonly checkpoint: CompletedCheckpoint,
  ) {}

  /**
   * Validates the rules of the file comment.
   * @throws StateAssignmentError with Flink's messages ("Can not restore vertex ... mixed
   *   operator finished state", "Illegal JobGraph modification. ..."), naming the vertex and
   *   its first operator uid.
   */
  validateOperatorsFinishedState(): void {
    for (const v of this.vertices) {
      const state = this.finishedStateOf(v);
      if (state === 'FULLY_FINISHED') this.checkPredecessorsOfFullyFinishedVertex(v);
      else if (state === 'PARTIALLY_FINISHED') this.checkPredecessorsOfPartiallyFinishedVertex(v);
    }
  }

  /** The vertex's finished state in the snapshot. @throws StateAssignmentError on mixed operators. */
  finishedStateOf(v: CheckpointJobVertex): VertexFinishedState {
    const known = this.cache.get(v.id);
    if (known !== undefined) return known;
    const states = new Set(v.operatorUids.map((uid) => this.operatorFinishedState(uid)));
    if (states.size !== 1) {
      throw new StateAssignmentError(`Can not restore vertex ${v.id} (${v.operatorUids.join(' -> ')}) which contain mixed `
        + `operator finished state: [${ORDER.filter((x) => states.has(x)).join(', ')}]`, v.operatorUids[0] ?? v.id);
    }
    const state = [...states][0] as VertexFinishedState;
    this.cache.set(v.id, state);
    return state;
  }

  private operatorFinishedState(uid: string): VertexFinishedState {
    const info = this.checkpoint.operatorInfo.get(uid);
    if (info === undefined) return 'ALL_RUNNING';
    if (info.fullyFinished) return 'FULLY_FINISHED';
    return info.finishedSubtasks.length > 0 ? 'PARTIALLY_FINISHED' : 'ALL_RUNNING';
  }

  private predecessors(v: CheckpointJobVertex): Map<CheckpointJobVertex, CheckpointJobEdge['pattern']> {
    const out = new Map<CheckpointJobVertex, CheckpointJobEdge['pattern']>();
    for (const e of this.edges) {
      if (e.target !== v.id) continue;
      const source = this.vertices.find((x) => x.id === e.source);
      if (source === undefined) continue;
      out.set(source, out.get(source) === 'ALL_TO_ALL' ? 'ALL_TO_ALL' : e.pattern);
    }
    return out;
  }

  private checkPredecessorsOfFullyFinishedVertex(v: CheckpointJobVertex): void {
    for (const p of this.predecessors(v).keys()) {
      if (this.finishedStateOf(p) !== 'FULLY_FINISHED') {
        throw new StateAssignmentError('Illegal JobGraph modification. Cannot run a program with fully finished vertices '
          + `predeceased with the ones not fully finished. Task vertex ${v.id} (${v.operatorUids.join(' -> ')}) has a `
          + 'predecessor not fully finished', v.operatorUids[0] ?? v.id);
      }
    }
  }

  private checkPredecessorsOfPartiallyFinishedVertex(v: CheckpointJobVertex): void {
    for (const [p, pattern] of this.predecessors(v)) {
      const state = this.finishedStateOf(p);
      if (pattern === 'ALL_TO_ALL' && state !== 'FULLY_FINISHED') {
        throw new StateAssignmentError('Illegal JobGraph modification. Cannot run a program with partially finished '
          + 'vertices predeceased with running or partially finished ones and connected via the ALL_TO_ALL edges. '
          + `Task vertex ${v.id} (${v.operatorUids.join(' -> ')}) has a `
          + `${state === 'ALL_RUNNING' ? 'all running' : 'partially finished'} predecessor`, v.operatorUids[0] ?? v.id);
      }
      if (pattern === 'POINTWISE' && state === 'ALL_RUNNING') {
        throw new StateAssignmentError('Illegal JobGraph modification. Cannot run a program with partially finished '
          + `vertices predeceased with all running ones. Task vertex ${v.id} (${v.operatorUids.join(' -> ')}) has a all `
          + 'running predecessor', v.operatorUids[0] ?? v.id);
      }
    }
  }
}
