/**
 * Forwards every record unchanged and runs a {@link CheckpointedPassThroughFunction} beside it:
 * the function keeps operator (non-keyed) list or union list state in the subtask's
 * DefaultOperatorStateBackend, which this operator snapshots and restores. It models a Flink
 * MapFunction that implements CheckpointedFunction and maps every value to itself
 * (AbstractUdfStreamOperator with StreamingFunctionUtils' snapshot/restore of its function).
 *
 * Evidence for the operator-state oracle: when the task was restored (the context carries a
 * restored checkpoint id), `initializeState` records one `operator.stateRestored` event with
 * what the backend got from the state assignment (every state's mode and elements, before the
 * function looked at them) and what the backend holds once the function's initializeState
 * returned (a union-state function keeps only part of the union). Judged against the restored
 * checkpoint's own snapshot, it shows lost, duplicated or missing union elements.
 *
 * @see org.apache.flink.streaming.api.checkpoint.CheckpointedFunction
 * @see org.apache.flink.streaming.api.operators.StreamMap
 *
 * Invariants: exactly one output per input, the input record itself; the function is made once
 * per operator (per subtask attempt) and initialized before the first record.
 */
import { DefaultOperatorStateBackend } from '../../state/DefaultOperatorStateBackend.ts';
import type {
  CheckpointedPassThroughFunction, FunctionInitializationContext,
} from '../api/functions.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from './AbstractStreamOperator.ts';
import { operatorSubtaskState, readRestoredState } from './OperatorSubtaskState.ts';
import { withLiveRead, type OperatorSnapshot, type StreamOperatorContext } from './StreamOperator.ts';

/** Approximate bytes per stored element (a snapshot's size in the statistics). */
const BYTES_PER_ELEMENT = 16;

/** The trace event type of the restore evidence (see the file comment). */
export const OPERATOR_STATE_RESTORED_EVENT = 'operator.stateRestored';

/** The pass-through operator with operator state; see the file comment. */
export class CheckpointedPassThroughOperator extends AbstractStreamOperator {
  private readonly backend = new DefaultOperatorStateBackend();
  private readonly fn: CheckpointedPassThroughFunction<unknown>;

  constructor(
    uid: string,
    create: () => CheckpointedPassThroughFunction<unknown>,
    private readonly ctx: StreamOperatorContext,
  ) {
    super(uid);
    this.fn = create();
  }

  /**
   * Restores the backend from `restored` (an OperatorSubtaskState or a list of pieces;
   * undefined: nothing for this operator), lets the function register and read its state, and
   * on a restored task records the evidence event of the file comment.
   * @throws AssertionError when `restored` has another shape.
   */
  override initializeState(restored: unknown): void {
    const state = readRestoredState(restored, this.uid);
    this.backend.restore(state.managedOperatorState);
    const restoredId = this.ctx.restoredCheckpointId;
    const got = restoredId === undefined ? undefined : this.describeStates();
    const backend = this.backend;
    const context: FunctionInitializationContext = {
      isRestored: () => restoredId !== undefined,
      getRestoredCheckpointId: () => restoredId,
      getOperatorStateStore: () => ({
        getListState: <E>(name: string) => backend.getListState<E>(name),
        getUnionListState: <E>(name: string) => backend.getUnionListState<E>(name),
      }),
      subtaskIndex: this.ctx.subtaskIndex,
      parallelism: this.ctx.parallelism,
    };
    this.fn.initializeState(context);
    if (restoredId === undefined || got === undefined) return;
    this.ctx.env.tracer.event(OPERATOR_STATE_RESTORED_EVENT, {
      task: `${this.ctx.taskName}@${this.ctx.attemptNumber}`,
      operator: this.uid,
      subtask: this.ctx.subtaskIndex,
      parallelism: this.ctx.parallelism,
      checkpointId: restoredId,
      restored: JSON.stringify(got),
      holds: JSON.stringify(Object.fromEntries(
        Object.entries(this.describeStates()).map(([name, s]) => [name, s.elements]))),
    });
  }

  /** Lets the function see the record, then forwards the record itself. */
  processElement(record: StreamRecord): void {
    this.fn.observe(record.value, record.split);
    this.output.collect(record);
  }

  /** The function's pending writes, then a frozen copy of the backend (Flink's sync phase). */
  override snapshotState(checkpointId: number): OperatorSnapshot {
    this.fn.snapshotState(checkpointId);
    const handleId = `${this.ctx.taskName}/${this.uid}/chk-${checkpointId}`;
    // Planted bug 23 (FLINK-9263): the async part reads the backend as it is when it runs.
    return withLiveRead(this.ctx.env.bugs, this.backendSnapshot(handleId), () => this.backendSnapshot(handleId));
  }

  /** A frozen copy of the backend now, as one handle `handleId`. */
  private backendSnapshot(handleId: string): OperatorSnapshot {
    const handle = this.backend.snapshot(handleId);
    let elements = 0;
    for (const meta of handle?.states.values() ?? []) elements += meta.elements.length;
    return {
      operatorUid: this.uid,
      data: operatorSubtaskState({ managedOperatorState: handle === null ? [] : [handle] }),
      sizeBytes: elements * BYTES_PER_ELEMENT,
    };
  }

  /** Every registered state's mode and elements now: `{ [name]: { mode, elements } }`. */
  private describeStates(): Record<string, { mode: string; elements: unknown[] }> {
    const decoded = this.backend.decode();
    const out: Record<string, { mode: string; elements: unknown[] }> = {};
    for (const { name, mode } of this.backend.getRegisteredStates()) {
      const elements = decoded[name];
      out[name] = { mode, elements: Array.isArray(elements) ? elements : [] };
    }
    return out;
  }
}
