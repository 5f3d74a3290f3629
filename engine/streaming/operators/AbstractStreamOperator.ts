/**
 * The base of the built-in operators: holds the uid and the output given by `setup`, and makes
 * every lifecycle and checkpoint hook a no-op so that each operator overrides only what it
 * needs. A stateless operator snapshots nothing (`undefined`).
 *
 * @see org.apache.flink.streaming.api.operators.AbstractStreamOperator
 *
 * Invariants: `setup` is called at most once; an operator emits only after `setup`.
 */
import { assert } from '../../util/assert.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import type { OperatorSnapshot, Output, StreamOperator } from './StreamOperator.ts';

/** Default hooks of a chained operator; see the file comment. */
export abstract class AbstractStreamOperator implements StreamOperator {
  private outputOrUndefined: Output | undefined;

  protected constructor(readonly uid: string) {}

  /** Stores the output this operator emits into. @throws AssertionError when called twice. */
  setup(output: Output): void {
    assert(this.outputOrUndefined === undefined, () => `operator ${this.uid} set up twice`);
    this.outputOrUndefined = output;
  }

  /** The output given by `setup`. @throws AssertionError before `setup`. */
  protected get output(): Output {
    const out = this.outputOrUndefined;
    // Per record: a lazy-message arrow here would allocate a closure (and context) per call.
    if (out === undefined) assert(false, `operator ${this.uid} emits before setup(output)`);
    return out;
  }

  initializeState(_restored: unknown): void {}

  open(): void {}

  abstract processElement(record: StreamRecord): void;

  endInput(): void {}

  finish(): void {}

  close(): void {}

  prepareSnapshotPreBarrier(_checkpointId: number): void {}

  snapshotState(_checkpointId: number): OperatorSnapshot | undefined {
    return undefined;
  }

  notifyCheckpointComplete(_checkpointId: number): void {}

  notifyCheckpointAborted(_checkpointId: number): void {}

  notifyCheckpointSubsumed(_checkpointId: number): void {}

  /** @throws AssertionError: only source operators receive coordinator events. */
  handleOperatorEvent(event: unknown): void {
    assert(false,
      () => `operator ${this.uid} got an unexpected operator event ${JSON.stringify(event)}`);
  }
}
