/**
 * The asynchronous part of one task's checkpoint: writes every operator's frozen snapshot to
 * the object store on the task's async snapshot thread, then acknowledges the checkpoint with
 * the file handles. A failure declines the checkpoint (CHECKPOINT_ASYNC_EXCEPTION, counted) if
 * the task still runs; close() (an abort notification or task shutdown) discards it and
 * suppresses the report. Planted: `ack-before-durable` (the acknowledgement before the writes,
 * here) and `async-snapshot-reads-live` (a snapshot's data read when its write ends).
 *
 * @see org.apache.flink.streaming.runtime.tasks.AsyncCheckpointRunnable
 * Invariants: RUNNING -> COMPLETED or DISCARDED exactly once; reports at most once.
 */
import type { EngineEnv } from '../../api/EngineEnv.ts';
import type { Executor } from '../../api/Executor.ts';
import type { ExecutionAttemptId } from '../../api/ids.ts';
import { StorageError } from '../../api/ObjectStore.ts';
import { NO_EVENT } from '../../api/Tracer.ts';
import type { BarrierMetrics, CheckpointMetrics } from '../../checkpoint/CheckpointMetrics.ts';
import type { OperatorSubtaskStateHandle, TaskStateSnapshot } from '../../checkpoint/TaskStateSnapshot.ts';
import { CompletableFuture } from '../../util/CompletableFuture.ts';
import type { OperatorSnapshot } from '../operators/StreamOperator.ts';
import type { CheckpointResponder } from './CheckpointResponder.ts';

export type AsyncCheckpointState = 'RUNNING' | 'COMPLETED' | 'DISCARDED';

/**
 * Planted classic mistake: the task acknowledges before its asynchronous part is durable. The
 * acknowledgement goes out as the async part starts, carrying the handles of files not written
 * yet, and a write that then fails is only traced: the task took its acknowledgement for done, so
 * a completed checkpoint may name a file that never came to exist.
 */
export const ACK_BEFORE_DURABLE = 'ack-before-durable';

export interface AsyncCheckpointRunnableOptions {
  readonly env: EngineEnv;
  readonly asyncExecutor: Executor;
  readonly attemptId: ExecutionAttemptId;
  readonly checkpointId: number;
  /** The snapshot's directory in the object store: `chk-<id>`, or a savepoint's own. */
  readonly directory: string;
  readonly snapshots: readonly OperatorSnapshot[];
  /** What the barrier handler and the sync part measured (virtual µs). */
  readonly metrics: BarrierMetrics & { readonly syncDurationUs: number };
  readonly isTaskFinished: boolean;
  readonly isTaskDeployedAsFinished: boolean;
  readonly responder: CheckpointResponder;
  /** Whether the task still runs (a failure of a stopped task is not reported). */
  readonly isTaskRunning: () => boolean;
  /** Called once at the end, whatever the outcome (unregisters the runnable). */
  readonly onDone: () => void;
}

export class AsyncCheckpointRunnable {
  private state: AsyncCheckpointState = 'RUNNING';
  /** When the async part started on its thread (Flink's asyncStartNanos). */
  private asyncStartUs = 0;
  /**
   * Completes when the work ends on its thread, whatever the outcome, discarded or not (Flink's
   * finishedFuture): a finishing task waits for it before it turns FINISHED.
   */
  readonly finished = new CompletableFuture<void>();

  constructor(private readonly o: AsyncCheckpointRunnableOptions) {}

  get status(): AsyncCheckpointState {
    return this.state;
  }

  /** Submits the work to the async snapshot thread. */
  start(): void {
    this.o.asyncExecutor.execute('async-checkpoint', () => this.run());
  }

  /** Discards the checkpoint: no report, written files are left to the JobMaster's cleanup. */
  close(): void {
    if (this.state !== 'RUNNING') return;
    this.state = 'DISCARDED';
    this.o.env.tracer.event('checkpoint.asyncDiscarded', { checkpointId: this.o.checkpointId, task: this.o.attemptId });
  }

  private run(): void {
    if (this.state !== 'RUNNING') {
      this.done();
      return;
    }
    const { env, asyncExecutor } = this.o;
    this.asyncStartUs = env.clock.nowUs();
    const writes = this.o.snapshots.map((s) => {
      const path = this.pathOf(s);
      return env.objectStore.put(path, s.data, s.sizeBytes, asyncExecutor).thenApply((): OperatorSubtaskStateHandle => ({
        operatorUid: s.operatorUid,
        handle: { path, sizeBytes: s.sizeBytes },
        // Planted bug 23: a snapshot that kept the live state is what the write serialized, and
        // the write reads the state until it ends: the live state now, at the write's end.
        data: s.readWhenWritten === undefined ? s.data : s.readWhenWritten(),
      }));
    });
    // The planted mistake acknowledges the files it is about to write, with the sync point's data.
    const ackedEarly = env.bugs.has(ACK_BEFORE_DURABLE);
    if (ackedEarly) {
      this.report(this.o.snapshots.map((s) => ({
        operatorUid: s.operatorUid, handle: { path: this.pathOf(s), sizeBytes: s.sizeBytes }, data: s.data,
      })));
    }
    // Wait for every write, failed or not, so cleanup knows what exists.
    const settled = writes.map((w) =>
      (w as CompletableFuture<OperatorSubtaskStateHandle | undefined>).exceptionally(() => undefined));
    CompletableFuture.allOf(settled).whenComplete((results) => {
      const written = (results ?? []).filter((h): h is OperatorSubtaskStateHandle => h !== undefined);
      const failure = writes.find((w) => w.isCompletedExceptionally());
      if (ackedEarly) this.writtenAfterAck(failure);
      else this.written(written, failure);
    });
  }

  /** The file of one operator's snapshot. */
  private pathOf(s: OperatorSnapshot): string {
    return `${this.o.directory}/${this.o.attemptId}/${s.operatorUid}`;
  }

  /** Every write settled: acknowledge, or decline on a failure, or clean up after a discard. */
  private written(written: OperatorSubtaskStateHandle[], failure: CompletableFuture<OperatorSubtaskStateHandle> | undefined): void {
    if (failure !== undefined) {
      this.discardWritten(written);
      this.fail(failureOf(failure));
    } else if (this.state !== 'RUNNING') {
      // Discarded (aborted) while uploading: the JobMaster may already have cleaned the
      // checkpoint's directory, so the task removes what it wrote itself (Flink's cleanup()).
      this.discardWritten(written);
      this.done();
    } else {
      this.report(written);
    }
  }

  /**
   * Planted {@link ACK_BEFORE_DURABLE}: every write settled after the acknowledgement went out.
   * The task took its checkpoint for done: a failed write is only traced, and nothing is
   * declined or discarded.
   */
  private writtenAfterAck(failure: CompletableFuture<OperatorSubtaskStateHandle> | undefined): void {
    if (failure === undefined) return;
    const error = failureOf(failure);
    this.o.env.tracer.event('checkpoint.asyncFailed', {
      checkpointId: this.o.checkpointId, task: this.o.attemptId, error: error instanceof Error ? error.message : String(error),
    });
  }

  private discardWritten(handles: readonly OperatorSubtaskStateHandle[]): void {
    for (const h of handles) this.o.env.objectStore.delete(h.handle.path, this.o.asyncExecutor);
  }

  private report(handles: OperatorSubtaskStateHandle[]): void {
    this.state = 'COMPLETED';
    const { env, checkpointId, attemptId } = this.o;
    env.tracer.event('checkpoint.asyncDone', { checkpointId, task: attemptId });
    const snapshot: TaskStateSnapshot | null = handles.length === 0 && !this.o.isTaskFinished && !this.o.isTaskDeployedAsFinished
      ? null
      : { operators: handles, isTaskFinished: this.o.isTaskFinished, isTaskDeployedAsFinished: this.o.isTaskDeployedAsFinished };
    const totalBytesPersisted = handles.reduce((sum, h) => sum + h.handle.sizeBytes, 0);
    const checkpointMetrics: CheckpointMetrics = {
      ...this.o.metrics,
      asyncDurationUs: Math.max(0, env.clock.nowUs() - this.asyncStartUs),
      bytesPersistedDuringAlignment: 0,
      bytesPersistedOfThisCheckpoint: 0,
      totalBytesPersisted,
      unalignedCheckpoint: false,
    };
    this.o.responder.acknowledgeCheckpoint({ attemptId, checkpointId, subtaskState: snapshot, checkpointMetrics });
    env.tracer.event('checkpoint.acked', { checkpointId, task: attemptId });
    this.done();
  }

  private done(): void {
    this.o.onDone();
    this.finished.complete(undefined);
  }

  private fail(error: unknown): void {
    const { env, checkpointId, attemptId } = this.o;
    const wasRunning = this.state === 'RUNNING';
    this.state = 'DISCARDED';
    const message = error instanceof Error ? error.message : String(error);
    // Caused by the write that failed, not by the last write to end (the runnable waits for all).
    const failedWrite = error instanceof StorageError && error.event !== NO_EVENT ? error.event : undefined;
    env.tracer.event('checkpoint.asyncFailed', { checkpointId, task: attemptId, error: message }, failedWrite);
    if (wasRunning && this.o.isTaskRunning()) {
      const unknown = error instanceof StorageError && error.outcome === 'unknown-outcome';
      this.o.responder.declineCheckpoint({
        attemptId, checkpointId, reason: 'CHECKPOINT_ASYNC_EXCEPTION', message: unknown ? `unknown outcome: ${message}` : message,
      });
    }
    this.done();
  }
}

/** The error a failed future holds. */
function failureOf(failed: CompletableFuture<OperatorSubtaskStateHandle>): unknown {
  try {
    failed.getNow();
  } catch (e) {
    return e;
  }
  return undefined;
}
