/**
 * What the aligned states share (reference 3.2): a barrier blocks its channel unless
 * RPC-triggered; when the last barrier is in, trigger the checkpoint first and only then resume
 * every blocked channel, and wait for the next first barrier; an abort resumes everything.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.AbstractAlignedBarrierHandlerState
 *
 * Invariants: channels are resumed only after the trigger returns; after a trigger or an abort
 * no channel is recorded as blocked; aligned states accept only aligned (blocking) barriers.
 */
import { isBlockingBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import { assert } from '../../util/assert.ts';
import type { BarrierHandlerController, BarrierHandlerState } from './BarrierHandlerState.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import type { ChannelState } from './ChannelState.ts';

export abstract class AbstractAlignedBarrierHandlerState implements BarrierHandlerState {
  abstract readonly name: string;
  protected readonly state: ChannelState;

  protected constructor(state: ChannelState) {
    this.state = state;
  }

  getChannelState(): ChannelState {
    return this.state;
  }

  barrierReceived(
    controller: BarrierHandlerController, channel: ChannelInfo, barrier: CheckpointBarrier,
    markChannelBlocked: boolean,
  ): BarrierHandlerState {
    assert(isBlockingBarrier(barrier), () =>
      `${this.name}: aligned handler got a ${barrier.options.alignment} barrier ${barrier.id}`);
    if (markChannelBlocked) this.state.blockChannel(channel);
    if (controller.allBarriersReceived()) {
      controller.triggerGlobalCheckpoint(barrier);
      return this.finishCheckpoint();
    }
    return this.convertAfterBarrierReceived();
  }

  endOfPartitionReceived(
    controller: BarrierHandlerController, channel: ChannelInfo,
  ): BarrierHandlerState {
    this.state.channelFinished(channel);
    if (controller.allBarriersReceived()) {
      controller.triggerGlobalCheckpoint(controller.getPendingCheckpointBarrier());
      return this.finishCheckpoint();
    }
    return this;
  }

  abort(_cancelledId: number): BarrierHandlerState {
    return this.finishCheckpoint();
  }

  /** Resumes every blocked channel and goes back to waiting for a first barrier. */
  protected finishCheckpoint(): BarrierHandlerState {
    this.state.unblockAllChannels();
    return this.waitingForFirstBarrier();
  }

  /** The state after a barrier that did not complete the alignment. */
  protected abstract convertAfterBarrierReceived(): BarrierHandlerState;

  /** A WaitingForFirstBarrier over the same channels (kept abstract to avoid import cycles). */
  protected abstract waitingForFirstBarrier(): BarrierHandlerState;
}
