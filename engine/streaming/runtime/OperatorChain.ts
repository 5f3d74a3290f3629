/**
 * The operators of one task, head (input side) first, wired so that each emits straight into
 * the next and the tail emits into the task's record writers. Ordering rules (reference 2.6):
 * prepareSnapshotPreBarrier head to tail; snapshotState, notifyCheckpointComplete,
 * notifyCheckpointAborted and notifyCheckpointSubsumed tail to head; if one notification throws,
 * the others still run and the first error is rethrown.
 *
 * @see org.apache.flink.streaming.runtime.tasks.OperatorChain, RegularOperatorChain
 */
import type { StreamRecord } from '../api/StreamRecord.ts';
import type { OperatorSnapshot, Output, StreamOperator } from '../operators/StreamOperator.ts';

export class OperatorChain {
  /** The outputs each operator emits into (index i: operator i's output). */
  readonly outputs: Output[];
  /** {@link operators} tail first, made once: snapshots and notifications walk them so. */
  private readonly tailToHead: readonly StreamOperator[];

  constructor(
    /** Head first. */
    readonly operators: readonly StreamOperator[],
    tailOutput: Output,
  ) {
    this.outputs = operators.map((_op, i) => {
      const next = operators[i + 1];
      return next === undefined ? tailOutput : { collect: (r: StreamRecord) => next.processElement(r) };
    });
    operators.forEach((op, i) => {
      const out = this.outputs[i];
      if (out !== undefined) op.setup?.(out);
    });
    this.tailToHead = [...operators].reverse();
  }

  get head(): StreamOperator {
    const h = this.operators[0];
    if (h === undefined) throw new Error('empty operator chain');
    return h;
  }

  /** Finds an operator by uid. */
  operator(uid: string): StreamOperator | undefined {
    return this.operators.find((o) => o.uid === uid);
  }

  /** Restores every operator, then opens them tail to head (Flink's order). */
  initializeStateAndOpen(restoredByUid: (uid: string) => unknown): void {
    for (const op of this.operators) op.initializeState(restoredByUid(op.uid));
    for (const op of this.tailToHead) op.open();
  }

  /** End of input: endInput then finish, operator by operator from the head. */
  endInputAndFinish(): void {
    for (const op of this.operators) {
      op.endInput();
      op.finish();
    }
  }

  prepareSnapshotPreBarrier(checkpointId: number): void {
    for (const op of this.operators) op.prepareSnapshotPreBarrier(checkpointId);
  }

  /** Synchronous snapshots, tail to head; stateless operators give nothing. */
  snapshotState(checkpointId: number): OperatorSnapshot[] {
    const out: OperatorSnapshot[] = [];
    for (const op of this.tailToHead) {
      const s = op.snapshotState(checkpointId);
      if (s !== undefined) out.push(s);
    }
    return out;
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.forEachTailToHead((op) => op.notifyCheckpointComplete(checkpointId));
  }

  notifyCheckpointAborted(checkpointId: number): void {
    this.forEachTailToHead((op) => op.notifyCheckpointAborted(checkpointId));
  }

  notifyCheckpointSubsumed(checkpointId: number): void {
    this.forEachTailToHead((op) => op.notifyCheckpointSubsumed(checkpointId));
  }

  /** Closes every operator, tail to head, swallowing nothing but continuing past errors. */
  close(): void {
    this.forEachTailToHead((op) => op.close());
  }

  private forEachTailToHead(fn: (op: StreamOperator) => void): void {
    let first: unknown;
    let failed = false;
    for (const op of this.tailToHead) {
      try {
        fn(op);
      } catch (e) {
        if (!failed) first = e;
        failed = true;
      }
    }
    if (failed) throw first;
  }
}
