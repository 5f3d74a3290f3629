/**
 * One state of the SingleCheckpointBarrierHandler state machine. Every input to the machine is
 * a method that returns the next state; the handler replaces its state with the result. The
 * handler keeps the bookkeeping (which checkpoint, which channels aligned) and offers it to the
 * states through a {@link BarrierHandlerController}.
 *
 * The aligned states are WaitingForFirstBarrier and CollectingBarriers. The unaligned and
 * alternating states of reference 3.3 will add two inputs here, the aligned-checkpoint timeout
 * and barrier announcements, and two controller methods (`isTimedOut`, `initInputsCheckpoint`).
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.BarrierHandlerState
 *
 * Invariants: a state never calls the task itself; it triggers only through the controller, and
 * only when the controller says all barriers were received.
 */
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import type { ChannelState } from './ChannelState.ts';

/** What a state may ask of its handler (Flink's BarrierHandlerState.Controller). */
export interface BarrierHandlerController {
  /** Calls the task's triggerCheckpointOnBarrier with `barrier`. */
  triggerGlobalCheckpoint(barrier: CheckpointBarrier): void;
  /** True when every targeted channel delivered the pending barrier or ended. */
  allBarriersReceived(): boolean;
  /** The first barrier of the pending checkpoint. @throws AssertionError if none is pending. */
  getPendingCheckpointBarrier(): CheckpointBarrier;
}

export interface BarrierHandlerState {
  /** The state's name (Flink's class name), for traces and assertion messages. */
  readonly name: string;

  /** The blocked channels this state holds. */
  getChannelState(): ChannelState;

  /**
   * A barrier of the pending checkpoint arrived on `channel`, already counted as aligned.
   * `markChannelBlocked` is false for barriers the task made up itself on an RPC trigger, which
   * the network never blocked.
   * @throws AssertionError for a barrier this state cannot handle (an unaligned one).
   */
  barrierReceived(
    controller: BarrierHandlerController, channel: ChannelInfo, barrier: CheckpointBarrier,
    markChannelBlocked: boolean,
  ): BarrierHandlerState;

  /** `channel` ended while a checkpoint is pending; it was counted as aligned. */
  endOfPartitionReceived(
    controller: BarrierHandlerController, channel: ChannelInfo,
  ): BarrierHandlerState;

  /** The pending checkpoint (or `cancelledId`) was aborted: release every blocked channel. */
  abort(cancelledId: number): BarrierHandlerState;
}
