/**
 * The aligned state machine at rest: no checkpoint is aligning and no channel is blocked. The
 * first barrier of a checkpoint moves it to CollectingBarriers, or, with a single target
 * channel, triggers at once and stays here.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.WaitingForFirstBarrier
 *
 * Invariants: while this is the handler's state, its ChannelState records no blocked channel.
 */
import { AbstractAlignedBarrierHandlerState } from './AbstractAlignedBarrierHandlerState.ts';
import type { BarrierHandlerState } from './BarrierHandlerState.ts';
import type { ChannelState } from './ChannelState.ts';
import { CollectingBarriers } from './CollectingBarriers.ts';

export class WaitingForFirstBarrier extends AbstractAlignedBarrierHandlerState {
  readonly name = 'WaitingForFirstBarrier';

  constructor(state: ChannelState) {
    super(state);
  }

  protected convertAfterBarrierReceived(): BarrierHandlerState {
    return new CollectingBarriers(this.state);
  }

  protected waitingForFirstBarrier(): BarrierHandlerState {
    return this;
  }
}
