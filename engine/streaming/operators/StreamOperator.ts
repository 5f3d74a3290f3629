/**
 * The operator contract inside an OperatorChain. A StreamTask runs a chain of operators on its
 * mailbox thread: records enter the head and each operator emits into the next (or into the
 * task's RecordWriters at the tail). The checkpoint hooks follow Flink's order: the chain calls
 * prepareSnapshotPreBarrier head to tail, and snapshotState / notifyCheckpointComplete /
 * notifyCheckpointAborted / notifyCheckpointSubsumed tail to head.
 *
 * @see org.apache.flink.streaming.api.operators.StreamOperator, OneInputStreamOperator,
 *      BoundedOneInput, org.apache.flink.streaming.api.operators.SourceOperator
 */
import type { EngineEnv, PlantedBugs } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { TaskIOMetricGroup } from '../../api/MetricGroups.ts';
import type { StopMode } from '../../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';

/** Where an operator emits records. */
export interface Output {
  collect(record: StreamRecord): void;
}

/** Processing-time service of a task: virtual time and timers that run as mails. */
export interface ProcessingTimeService {
  nowUs(): number;
  /** Runs `callback` as a mail on the task's mailbox at `timeUs` (or at once if past). */
  registerTimer(timeUs: number, label: string, callback: () => void): { cancel(): void };
}

/** Sends an OperatorEvent to this operator's coordinator on the JobMaster (over RPC). */
export interface OperatorEventGateway {
  sendEventToCoordinator(event: unknown): void;
}

/** What an operator knows about where it runs. */
export interface StreamOperatorContext {
  readonly env: EngineEnv;
  /** `<vertex>#<subtask>` for traces. */
  readonly taskName: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly attemptNumber: number;
  /**
   * The checkpoint (or savepoint) the task was restored from; absent on a fresh start
   * (JobManagerTaskRestore.restoreCheckpointId, Flink's
   * ManagedInitializationContext#getRestoredCheckpointId).
   */
  readonly restoredCheckpointId?: number;
  /** The task's mailbox thread. */
  readonly mailbox: Executor;
  /**
   * The task attempt's IO metric group (Flink's operator metric group reports into its task's):
   * a source reader counts the records it emits there.
   */
  readonly metrics: TaskIOMetricGroup;
  readonly processingTime: ProcessingTimeService;
  readonly eventGateway: OperatorEventGateway;
  /** The task fails with `error` (an operator that hits a non-recoverable error). */
  failTask(error: Error): void;
  /**
   * Set when keyed operators trace which records they processed between snapshots
   * (ClusterConfiguration.traceKeyedInputs, KeyedInputLog.ts): the attempt's id and the
   * checkpoint it restored from (-1 for none).
   */
  readonly keyedInputTrace?: { readonly attemptId: string; readonly restoredCheckpointId: number };
}

/**
 * The synchronous part of one operator's snapshot: frozen data (never changed by later
 * processing) plus its approximate size, written to durable storage by the async part.
 */
export interface OperatorSnapshot {
  /** The operator's uid. */
  readonly operatorUid: string;
  /** Keyed state by key group, operator list/union/broadcast state, source splits, sink state. */
  readonly data: unknown;
  readonly sizeBytes: number;
  /**
   * Only with planted bug {@link ASYNC_SNAPSHOT_READS_LIVE}: the data the async part writes
   * instead of `data`, read from the operator's live state when its write ends.
   */
  readonly readWhenWritten?: () => unknown;
}

/**
 * Planted bug 23 (FLINK-9269, FLINK-9263, FLINK-8699): the synchronous part of a snapshot keeps
 * references to the state backends' live structures instead of a frozen copy, and the async part
 * serializes whatever they hold while it writes (here: what they hold when its write ends, the
 * last state it reads), so changes made after the barrier (records the task processed meanwhile,
 * a later snapshot's updates) end up in the checkpoint. The built-in stateful operators then hand
 * the async part a {@link OperatorSnapshot.readWhenWritten}.
 */
export const ASYNC_SNAPSHOT_READS_LIVE = 'async-snapshot-reads-live';

/**
 * `taken`, or with planted bug {@link ASYNC_SNAPSHOT_READS_LIVE} on in `bugs`, `taken` whose
 * async part writes the `data` of what `read` returns when its write ends (the live state then).
 */
export function withLiveRead(bugs: PlantedBugs, taken: OperatorSnapshot,
  read: () => OperatorSnapshot): OperatorSnapshot {
  return bugs.has(ASYNC_SNAPSHOT_READS_LIVE) ? { ...taken, readWhenWritten: () => read().data } : taken;
}

/** One operator of a chain. All methods run on the task's mailbox thread. */
export interface StreamOperator {
  readonly uid: string;
  /**
   * Gives the operator the output it emits into (the next operator of the chain, or the task's
   * record writers at the tail), before `initializeState`. Sources get their output in
   * `emitNext` instead; sinks emit nothing. Optional so that test operators may omit it.
   * @see org.apache.flink.streaming.api.operators.AbstractStreamOperator#setup
   */
  setup?(output: Output): void;
  /** Restores from `restored` (undefined: fresh start) before `open`. */
  initializeState(restored: unknown): void;
  open(): void;
  /** Handles one record (not called on source operators). */
  processElement(record: StreamRecord): void;
  /** All input has ended (BoundedOneInput.endInput). */
  endInput(): void;
  /** Flush what is buffered; no more records will come (StreamOperator.finish). */
  finish(): void;
  /** Releases resources; also called on cancel and failure. */
  close(): void;
  prepareSnapshotPreBarrier(checkpointId: number): void;
  /** The synchronous part of a snapshot; undefined for a stateless operator. */
  snapshotState(checkpointId: number): OperatorSnapshot | undefined;
  notifyCheckpointComplete(checkpointId: number): void;
  notifyCheckpointAborted(checkpointId: number): void;
  /**
   * Checkpoint `checkpointId` was subsumed by a newer completed one (-1: none was); the
   * built-in operators do nothing (Flink hands it to the keyed state backend, which may forget
   * what only that checkpoint still used).
   */
  notifyCheckpointSubsumed(checkpointId: number): void;
  /** An OperatorEvent from the coordinator, delivered as a mail. */
  handleOperatorEvent(event: unknown): void;
}

/** What a source operator's emitNext reports (Flink's DataInputStatus). */
export type InputStatus = 'MORE_AVAILABLE' | 'NOTHING_AVAILABLE' | 'END_OF_INPUT';

/** What a source's emitNext reports: an InputStatus, or STOPPED after a stop without drain (DataInputStatus). */
export type SourceInputStatus = InputStatus | 'STOPPED';

/** A source operator: the task's default action calls emitNext instead of feeding records. */
export interface SourceStreamOperator extends StreamOperator {
  /** Emits at most one record into `output`; the record's read cost is the operator's costUs. */
  emitNext(output: Output): SourceInputStatus;
  /**
   * How many of the next `emitNext` calls are sure to emit a record and to do nothing else that
   * anything outside the task could see (a split request, say), so they may run late.
   */
  quietRecordsAhead(): number;
  /** Registers a one-shot callback for when NOTHING_AVAILABLE turns into available input. */
  onAvailable(callback: () => void): void;
  /**
   * Stops reading for stop-with-savepoint (SourceOperator.stop): from the next `emitNext` on, no
   * record; that call reports `END_OF_INPUT` under DRAIN (the task then ends its data as at the
   * end of a bounded input: Flink's END_OF_DATA) or `STOPPED` under NO_DRAIN. A source whose data
   * already ended is unchanged. Wakes a task waiting for input.
   */
  stop(mode: StopMode): void;
}
