/**
 * What a task's input processor hands barriers, cancellation markers and EndOfPartition to, in
 * the order it takes them from its gates, all on the task's mailbox thread. The two
 * implementations are SingleCheckpointBarrierHandler (exactly-once, aligned) and
 * CheckpointBarrierTracker (at-least-once). A task without network inputs has no handler.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CheckpointBarrierHandler
 *
 * Invariants (all handlers): checkpoint ids a handler triggers strictly increase; a handler
 * triggers or aborts each id at most once, never both; no method is called after close().
 */
import type { Clock } from '../../api/Clock.ts';
import type { PlantedBugs } from '../../api/EngineEnv.ts';
import type { Tracer } from '../../api/Tracer.ts';
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import type { CheckpointableInputs } from './CheckpointableInputs.ts';
import type { CheckpointableTask } from './CheckpointableTask.ts';

/** Options common to every barrier handler. */
export interface CheckpointBarrierHandlerOptions {
  /** The task that is told to trigger or abort. */
  readonly task: CheckpointableTask;
  /** The task's input channels, over all gates. */
  readonly inputs: CheckpointableInputs;
  /** The task's name in traces and marks (attribute `task`), e.g. `map (2/4)#0`. */
  readonly taskName: string;
  /** Where events and marks go (usually `env.tracer`). */
  readonly tracer: Tracer;
  /** Planted-bug switches (usually `env.bugs`). */
  readonly bugs: PlantedBugs;
  /**
   * Checkpoints after tasks finish (FLIP-147, on by default in Flink): an ended channel counts
   * as aligned. When false, EndOfPartition aborts the pending checkpoint(s).
   */
  readonly checkpointsAfterTasksFinish: boolean;
  /** Virtual time for the start delay and alignment duration (absent: both read 0). */
  readonly clock?: Clock;
}

export interface CheckpointBarrierHandler {
  /**
   * Handles `barrier`, taken from `channel`. In aligned mode the network already blocked the
   * channel; the handler resumes it when the alignment ends, or at once if it ignores the
   * barrier. `isRpcTriggered` marks barriers the task made up on a trigger RPC for channels
   * whose producers finished: they were never blocked and are not resumed.
   * @see CheckpointBarrierHandler#processBarrier
   */
  processBarrier(barrier: CheckpointBarrier, channel: ChannelInfo, isRpcTriggered: boolean): void;

  /**
   * Handles a CancelCheckpointMarker for `checkpointId` taken from `channel`.
   * @see CheckpointBarrierHandler#processCancellationBarrier
   */
  processCancellationBarrier(checkpointId: number, channel: ChannelInfo): void;

  /**
   * `channel` delivered EndOfPartition: it is finished and sends nothing more.
   * @throws AssertionError if the channel already ended.
   * @see CheckpointBarrierHandler#processEndOfPartition
   */
  processEndOfPartition(channel: ChannelInfo): void;

  /** The newest checkpoint id the handler started (or saw cancelled); -1 before any. */
  getLatestCheckpointId(): number;

  /**
   * The task took a data buffer of `bytes` from a gate: counted as processed during alignment
   * while an alignment is in progress.
   * @see CheckpointBarrierHandler#addProcessedBytes (called from CheckpointedInputGate.pollNext)
   */
  addProcessedBytes(bytes: number): void;

  /** True while a checkpoint has some but not all of its barriers. */
  isCheckpointPending(): boolean;

  /** Ends the handler; later process calls are programmer errors. Idempotent. */
  close(): void;

  /** @throws AssertionError when the handler's invariants do not hold (STYLE.md). */
  checkInvariants(): void;
}
