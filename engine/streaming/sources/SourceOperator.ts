/**
 * The FLIP-27 source operator at the head of a source task. It owns a SourceReader, talks to the
 * SourceCoordinator through the task's operator event gateway (split requests out; AddSplitEvent
 * and NoMoreSplitsEvent in, as mails), and is driven by the task's default action through
 * `emitNext`. When nothing is available the task waits on `onAvailable`, which fires when splits
 * or the end of splits arrive.
 *
 * State: the reader's held splits with their next offsets, as operator list state
 * `SourceReaderState` (SPLIT_DISTRIBUTE), so a restore resumes every split exactly where the
 * checkpoint's barrier cut it. On open the reader asks for a split only if it restored none
 * (IteratorSourceReaderBase#start); otherwise it asks when a restored split is finished.
 *
 * @see org.apache.flink.streaming.api.operators.SourceOperator
 *
 * Invariants: the reader's invariants; availability callbacks are pending only while the reader
 * has nothing available.
 */
import { assert } from '../../util/assert.ts';
import { DefaultOperatorStateBackend } from '../../state/DefaultOperatorStateBackend.ts';
import type { ListState } from '../../state/State.ts';
import {
  isSourceEvent, requestSplitEvent, type SourceSplit,
} from '../../coordination/SourceEvent.ts';
import type { SplitSource } from '../api/sources.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import {
  operatorStateElements, operatorSubtaskState, readRestoredState,
} from '../operators/OperatorSubtaskState.ts';
import type { StopMode } from '../../checkpoint/CheckpointBarrier.ts';
import {
  withLiveRead, type OperatorSnapshot, type Output, type SourceInputStatus,
  type SourceStreamOperator, type StreamOperatorContext,
} from '../operators/StreamOperator.ts';
import { SourceReader } from './SourceReader.ts';

/** The operator list state holding the reader's splits. */
export const SOURCE_READER_STATE = 'SourceReaderState';

/** Approximate bytes per stored split, for snapshot sizes. */
const BYTES_PER_SPLIT = 16;

/** Constructor options of {@link SourceOperator}. */
export interface SourceOperatorOptions {
  readonly uid: string;
  readonly source: SplitSource<unknown>;
  readonly ctx: StreamOperatorContext;
}

/** The source operator; see the file comment. */
export class SourceOperator implements SourceStreamOperator {
  readonly uid: string;
  private readonly ctx: StreamOperatorContext;
  private readonly reader: SourceReader;
  private readonly stateBackend = new DefaultOperatorStateBackend();
  private readonly readerState: ListState<SourceSplit>;
  private availabilityCallbacks: (() => void)[] = [];
  /**
   * Set by `stop` (Flink's operating modes SOURCE_DRAINED / SOURCE_STOPPED): the next emitNext
   * reports the end, then `ended` (DATA_FINISHED).
   */
  private stopped: StopMode | 'ended' | undefined;
  private unregisterInvariants: (() => void) | undefined;

  constructor(options: SourceOperatorOptions) {
    this.uid = options.uid;
    this.ctx = options.ctx;
    const metrics = options.ctx.metrics;
    const processingTime = options.ctx.processingTime;
    this.reader = new SourceReader(options.source.splits, {
      sendSplitRequest: () => this.sendSplitRequest(),
      // The record's own time: inside a lazy batch it is earlier than the clock (StreamTask).
      recordEmitted: (split, offset) => metrics.markRecordRead(split, offset, processingTime.nowUs()),
    });
    this.readerState = this.stateBackend.getListState<SourceSplit>(SOURCE_READER_STATE);
  }

  /**
   * Restores the reader's splits and positions from `restored` (an OperatorSubtaskState;
   * undefined: fresh start).
   */
  initializeState(restored: unknown): void {
    const state = readRestoredState(restored, this.uid);
    const splits = operatorStateElements<SourceSplit>(state, SOURCE_READER_STATE);
    this.reader.addSplits(splits);
    if (splits.length > 0) {
      this.ctx.env.tracer.event('source.splits-restored', {
        task: this.ctx.taskName, source: this.uid,
        splits: splits.map((s) => `${s.splitId}@${s.offset}`).join(','),
      });
    }
  }

  /** Starts the reader: a split request when it restored no split. */
  open(): void {
    this.unregisterInvariants = this.ctx.env.invariants.register(
      `source/${this.ctx.taskName}/${this.uid}`,
      () => this.checkInvariants());
    if (this.reader.isIdle) this.sendSplitRequest();
  }

  /**
   * Emits at most one record; see SourceReader#pollNext for the statuses. After `stop`, emits
   * nothing: the first call reports END_OF_INPUT (DRAIN) or STOPPED (NO_DRAIN), later ones
   * END_OF_INPUT.
   */
  emitNext(output: Output): SourceInputStatus {
    const stopped = this.stopped;
    if (stopped === undefined) {
      const status = this.reader.pollNext(output);
      if (status === 'END_OF_INPUT') this.stopped = 'ended';
      return status;
    }
    this.stopped = 'ended';
    return stopped === 'NO_DRAIN' ? 'STOPPED' : 'END_OF_INPUT';
  }

  /**
   * SourceOperator.stop for stop-with-savepoint: the reader reads no more (its splits keep their
   * offsets, which the synchronous savepoint then stores). A source already at its end is left
   * as it is, as Flink leaves DATA_FINISHED. Wakes a task waiting for input (forceStop).
   */
  stop(mode: StopMode): void {
    if (this.stopped !== undefined) return;
    this.stopped = mode;
    this.ctx.env.tracer.event('source.stopped', { task: this.ctx.taskName, source: this.uid, mode });
    this.fireAvailable();
  }

  /**
   * How many of the next emitNext calls emit a record and nothing else: the current split's
   * records but its last, which ends the split and asks for another.
   */
  quietRecordsAhead(): number {
    if (this.stopped !== undefined) return 0;
    return Math.max(0, this.reader.recordsLeftInSplit() - 1);
  }

  /**
   * Runs `callback` once input is available (records or the end of input): at once as a mail
   * when it already is, else when the coordinator's next event makes it so.
   */
  onAvailable(callback: () => void): void {
    if (this.reader.isAvailable() || this.stopped !== undefined) {
      this.ctx.mailbox.execute(`source available ${this.uid}`, callback);
      return;
    }
    this.availabilityCallbacks.push(callback);
  }

  /** AddSplitEvent adds splits; NoMoreSplitsEvent ends the assignments. @throws on others. */
  handleOperatorEvent(event: unknown): void {
    assert(isSourceEvent(event) && event.type !== 'RequestSplitEvent',
      () => `source ${this.uid} got an unexpected event ${JSON.stringify(event)}`);
    if (event.type === 'AddSplitEvent') {
      this.reader.addSplits(event.splits);
      this.ctx.env.tracer.event('source.splits-added', {
        task: this.ctx.taskName, source: this.uid,
        splits: event.splits.map((s) => s.splitId).join(','),
      });
    } else {
      this.reader.notifyNoMoreSplits();
      this.ctx.env.tracer.event('source.no-more-splits-received',
        { task: this.ctx.taskName, source: this.uid });
    }
    if (this.reader.isAvailable()) this.fireAvailable();
  }

  /** @throws AssertionError: a source has no input. */
  processElement(record: StreamRecord): void {
    assert(false, () => `source ${this.uid} got a record ${JSON.stringify(record)}`);
  }

  endInput(): void {}

  finish(): void {}

  close(): void {
    this.availabilityCallbacks = [];
    this.unregisterInvariants?.();
    this.unregisterInvariants = undefined;
  }

  prepareSnapshotPreBarrier(_checkpointId: number): void {}

  /** The held splits and positions as list state `SourceReaderState`, frozen. */
  snapshotState(checkpointId: number): OperatorSnapshot {
    const splits = this.reader.snapshotState();
    this.readerState.update(splits);
    const handleId = `${this.ctx.taskName}/${this.uid}/chk-${checkpointId}`;
    const sizeBytes = splits.length * BYTES_PER_SPLIT;
    // Planted bug 23 (FLINK-9263): the async part reads the reader's list state when it runs.
    return withLiveRead(this.ctx.env.bugs, this.backendSnapshot(handleId, sizeBytes),
      () => this.backendSnapshot(handleId, sizeBytes));
  }

  /** A frozen copy of the backend now, as one handle `handleId`. */
  private backendSnapshot(handleId: string, sizeBytes: number): OperatorSnapshot {
    const handle = this.stateBackend.snapshot(handleId);
    return {
      operatorUid: this.uid,
      data: operatorSubtaskState({ managedOperatorState: handle === null ? [] : [handle] }),
      sizeBytes,
    };
  }

  notifyCheckpointComplete(_checkpointId: number): void {}

  notifyCheckpointAborted(_checkpointId: number): void {}

  notifyCheckpointSubsumed(_checkpointId: number): void {}

  /**
   * Decodes a snapshot's (or a restore's) splits to plain JSON: split id -> next offset, over
   * every piece. @throws AssertionError when `data` is not an OperatorSubtaskState.
   */
  static decode(data: unknown): Record<number, number> {
    const out: Record<number, number> = {};
    const state = readRestoredState(data, 'source');
    for (const s of operatorStateElements<SourceSplit>(state, SOURCE_READER_STATE)) {
      assert(out[s.splitId] === undefined, () => `split ${s.splitId} stored twice`);
      out[s.splitId] = s.offset;
    }
    return out;
  }

  /** The held splits and positions now (tests, final-state view). */
  currentSplits(): SourceSplit[] {
    return this.reader.snapshotState();
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    this.reader.checkInvariants();
    this.stateBackend.checkInvariants();
    assert(this.availabilityCallbacks.length === 0 || (!this.reader.isAvailable() && this.stopped === undefined),
      () => `source ${this.uid} is available but callbacks still wait`);
  }

  private sendSplitRequest(): void {
    this.ctx.env.tracer.event('source.split-requested',
      { task: this.ctx.taskName, source: this.uid });
    this.ctx.eventGateway.sendEventToCoordinator(requestSplitEvent());
  }

  private fireAvailable(): void {
    const callbacks = this.availabilityCallbacks;
    this.availabilityCallbacks = [];
    for (const cb of callbacks) cb();
  }
}
