/**
 * Runs a KeyedProcessFunction on a keyed stream. The operator owns a HeapKeyedStateBackend over
 * its subtask's key-group range; for each record it sets the record's key (from the input edge's
 * key selector) as the current key, so the function's ValueState / MapState / ListState handles
 * and timers act on that key.
 *
 * Processing-time timers live in the keyed state (snapshotted and restored with it). One
 * physical wake-up, a mail at the earliest timer's time, is kept scheduled on the task's
 * processing-time service; when it fires, every timer due at that time fires in (time, sequence)
 * order with its key set, and the wake-up moves to the next timer. Times are virtual
 * microseconds inside; the function sees milliseconds (`timestampMs = timeUs / 1000`) and its
 * registrations are rounded to whole microseconds.
 *
 * When the task asks for it (`ctx.keyedInputTrace`), the operator also traces at each snapshot
 * which records it processed since the previous one (KeyedInputLog.ts), the at-least-once
 * oracle's evidence of what a restore read again.
 *
 * Output identity: outputs of a record keep its split and offset; the first output keeps its tag
 * and the i-th further one (i ≥ 1) gets `<tag>/<uid>.<i>` (StreamRecord.ts's tagSegment), so
 * multi-output stages in a row never give two records one tag. Outputs of a timer carry split -1,
 * offset = the timer's time in milliseconds, and tag `timer` (then `timer/<uid>.1`, ...).
 *
 * @see org.apache.flink.streaming.api.operators.KeyedProcessOperator,
 *      org.apache.flink.streaming.api.operators.InternalTimerServiceImpl
 *
 * Invariants: the backend's invariants; while a timer is registered and the operator is open
 * and not finished, a wake-up is scheduled no later than the earliest timer.
 */
import { assert } from '../../util/assert.ts';
import { HeapKeyedStateBackend, RESTORE_HANDLE_REPLACES } from '../../state/HeapKeyedStateBackend.ts';
import { computeKeyGroupRangeForOperatorIndex } from '../../state/KeyGroupRangeAssignment.ts';
import type { KeyedStateJson, TimerJson } from '../../state/KeyedStateSnapshot.ts';
import type {
  Collector, Key, KeyedContext, KeyedProcessFunction, KeySelector, TimerService,
} from '../api/functions.ts';
import { tagSegment, type StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from './AbstractStreamOperator.ts';
import { KeyedInputLog } from './KeyedInputLog.ts';
import {
  decodeKeyedState, operatorSubtaskState, readRestoredState,
} from './OperatorSubtaskState.ts';
import {
  withLiveRead, type OperatorSnapshot, type Output, type StreamOperatorContext,
} from './StreamOperator.ts';

/** Constructor options of {@link KeyedProcessOperator}. */
export interface KeyedProcessOperatorOptions {
  readonly uid: string;
  readonly fn: KeyedProcessFunction<Key, unknown, unknown>;
  /** The key selector of the keyed input edge. */
  readonly keySelector: KeySelector<unknown>;
  readonly ctx: StreamOperatorContext;
}

/** Approximate bytes per state entry, for snapshot sizes. */
const BYTES_PER_ENTRY = 64;

/** The keyed process operator; see the file comment. */
export class KeyedProcessOperator extends AbstractStreamOperator {
  /** The keyed state of this subtask (exposed for tests and the final-state view). */
  readonly backend: HeapKeyedStateBackend;
  private readonly fn: KeyedProcessFunction<Key, unknown, unknown>;
  private readonly keySelector: KeySelector<unknown>;
  private readonly ctx: StreamOperatorContext;
  private readonly keyedContext: KeyedContext;
  /** Reused for every input record, as Flink reuses its TimestampedCollector. */
  private readonly recordCollector: IdentityCollector;
  private wakeUp: { readonly timeUs: number; readonly handle: { cancel(): void } } | undefined;
  /** The records processed since the last snapshot, when the task traces them. */
  private readonly inputLog: KeyedInputLog | undefined;
  private opened = false;
  private finished = false;
  private unregisterInvariants: (() => void) | undefined;

  constructor(options: KeyedProcessOperatorOptions) {
    super(options.uid);
    const { ctx } = options;
    this.fn = options.fn;
    this.keySelector = options.keySelector;
    this.ctx = ctx;
    this.backend = new HeapKeyedStateBackend({
      keyGroupRange: computeKeyGroupRangeForOperatorIndex(
        ctx.maxParallelism, ctx.parallelism, ctx.subtaskIndex),
      maxParallelism: ctx.maxParallelism,
      restoreHandleReplaces: ctx.env.bugs.has(RESTORE_HANDLE_REPLACES),
    });
    this.keyedContext = this.createKeyedContext();
    this.recordCollector = new IdentityCollector(options.uid, () => this.output);
    const trace = ctx.keyedInputTrace;
    this.inputLog = trace === undefined ? undefined : new KeyedInputLog({
      tracer: ctx.env.tracer, attemptId: trace.attemptId, operatorUid: options.uid,
      restoredCheckpointId: trace.restoredCheckpointId,
    });
  }

  /**
   * Restores the keyed state and timers from the keyed snapshots in `restored` (an
   * OperatorSubtaskState; undefined: fresh start); only key groups of this subtask's range are
   * taken.
   */
  override initializeState(restored: unknown): void {
    const state = readRestoredState(restored, this.uid);
    if (state.managedKeyedState.length > 0) this.backend.restore(state.managedKeyedState);
  }

  /** Schedules the wake-up for restored timers. */
  override open(): void {
    this.opened = true;
    this.unregisterInvariants = this.ctx.env.invariants.register(
      `keyed-process/${this.ctx.taskName}/${this.uid}`,
      () => this.checkInvariants());
    this.rescheduleWakeUp();
  }

  /** Sets the record's key and runs `processElement` of the function. */
  processElement(record: StreamRecord): void {
    this.inputLog?.add(record);
    this.backend.setCurrentKey(this.keySelector(record.value));
    this.fn.processElement(record.value, this.keyedContext,
      this.recordCollector.reset(record.split, record.offset, record.tag));
    this.rescheduleWakeUp();
  }

  /** No timer fires after finish (Flink quiesces the processing-time service). */
  override finish(): void {
    this.finished = true;
    this.cancelWakeUp();
  }

  override close(): void {
    this.cancelWakeUp();
    this.unregisterInvariants?.();
    this.unregisterInvariants = undefined;
  }

  /**
   * A frozen copy-on-write view of the keyed state and timers (and, when traced, the records it
   * reflects since the previous snapshot: the same moment, so the evidence matches the state).
   */
  override snapshotState(checkpointId: number): OperatorSnapshot {
    const taken = this.keyedSnapshot();
    this.inputLog?.flush(checkpointId);
    // Planted bug 23 (FLINK-9269): the async part reads the backend as it is when it runs.
    return withLiveRead(this.ctx.env.bugs, taken, () => this.keyedSnapshot());
  }

  /** The backend's copy-on-write snapshot now, with its size. */
  private keyedSnapshot(): OperatorSnapshot {
    const snapshot = this.backend.snapshot();
    return {
      operatorUid: this.uid,
      data: operatorSubtaskState({ managedKeyedState: [snapshot] }),
      sizeBytes: (snapshot.numberOfEntries() + this.backend.timerService.size()) * BYTES_PER_ENTRY,
    };
  }

  /**
   * Decodes what {@link snapshotState} stored (or any OperatorSubtaskState with keyed pieces) to
   * plain JSON for oracles: `state[stateName][String(key)]` and the timers.
   * @throws AssertionError when `data` is not an OperatorSubtaskState.
   */
  static decode(data: unknown): { state: KeyedStateJson; timers: TimerJson[] } {
    return decodeKeyedState(readRestoredState(data, 'keyed-process'));
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    this.backend.checkInvariants();
    const next = this.backend.timerService.nextTimestampUs();
    if (this.opened && !this.finished && next !== undefined) {
      assert(this.wakeUp !== undefined && this.wakeUp.timeUs <= next,
        () => `${this.uid}: timer at ${next}us has no wake-up`);
    }
  }

  /** Fires every timer due at `timeUs`, then schedules the next wake-up. */
  private onProcessingTime(timeUs: number): void {
    this.wakeUp = undefined;
    if (this.finished) return;
    const onTimer = this.fn.onTimer;
    for (let timer = this.backend.timerService.poll(timeUs); timer !== undefined;
      timer = this.backend.timerService.poll(timeUs)) {
      this.backend.setCurrentKey(timer.key);
      const timestampMs = timer.timestampUs / 1000;
      onTimer?.call(this.fn, timestampMs, this.keyedContext,
        new IdentityCollector(this.uid, () => this.output).reset(-1, timestampMs, 'timer'));
    }
    this.rescheduleWakeUp();
  }

  private rescheduleWakeUp(): void {
    if (!this.opened || this.finished) return;
    const next = this.backend.timerService.nextTimestampUs();
    if (next === undefined || (this.wakeUp !== undefined && this.wakeUp.timeUs <= next)) return;
    this.scheduleWakeUp(next);
  }

  /**
   * Replaces the wake-up by one at `timeUs`. Kept out of {@link rescheduleWakeUp}, which runs per
   * record: the timer's arrow captures a local, and that makes every call of the function that
   * declares the arrow allocate a closure context.
   */
  private scheduleWakeUp(timeUs: number): void {
    this.cancelWakeUp();
    const handle = this.ctx.processingTime.registerTimer(timeUs, `timer ${this.uid}`,
      () => this.onProcessingTime(timeUs));
    this.wakeUp = { timeUs, handle };
  }

  private cancelWakeUp(): void {
    this.wakeUp?.handle.cancel();
    this.wakeUp = undefined;
  }


  private createKeyedContext(): KeyedContext {
    const backend = this.backend;
    const processingTime = this.ctx.processingTime;
    const timers: TimerService = {
      currentProcessingTimeMs: () => processingTime.nowUs() / 1000,
      registerProcessingTimeTimer: (timeMs) => {
        backend.timerService.registerProcessingTimeTimer(toUs(timeMs));
      },
      deleteProcessingTimeTimer: (timeMs) => {
        backend.timerService.deleteProcessingTimeTimer(toUs(timeMs));
      },
    };
    return {
      getCurrentKey: () => backend.currentKey(),
      getState: (d) => backend.getValueState(d.name),
      getMapState: (d) => backend.getMapState(d.name),
      getListState: (d) => backend.getListState(d.name),
      timerService: () => timers,
    };
  }
}

/**
 * The collector of one input or timer: output i keeps the identity (split, offset); the first
 * keeps `tag`, the i-th further one gets `<tag>/<uid>.<i>`.
 */
class IdentityCollector implements Collector<unknown> {
  private split = 0;
  private offset = 0;
  private tag = '';
  private i = 0;
  /** The operator's tag segment `/<uid>.` (tagSegment), made once. */
  private readonly segment: string;

  constructor(uid: string, private readonly output: () => Output) {
    this.segment = tagSegment(uid);
  }

  /** Starts the outputs of a new input (or timer); returns this collector. */
  reset(split: number, offset: number, tag: string): this {
    this.split = split;
    this.offset = offset;
    this.tag = tag;
    this.i = 0;
    return this;
  }

  collect(value: unknown): void {
    const i = this.i++;
    this.output().collect({
      value, split: this.split, offset: this.offset,
      tag: i === 0 ? this.tag : `${this.tag}${this.segment}${i}`,
    });
  }
}

/** Milliseconds at the API edge to whole virtual microseconds. */
function toUs(timeMs: number): number {
  assert(Number.isFinite(timeMs), () => `bad timer time ${timeMs}ms`);
  return Math.round(timeMs * 1000);
}
