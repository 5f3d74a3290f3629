/**
 * The aligned state machine while a checkpoint aligns: some channels delivered its barrier and
 * are blocked, the others keep delivering records. The last barrier (or EndOfPartition) triggers
 * the checkpoint and resumes the channels; an abort only resumes them.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CollectingBarriers
 *
 * Invariants: this is the handler's state exactly while a checkpoint is pending.
 */
import { AbstractAlignedBarrierHandlerState } from './AbstractAlignedBarrierHandlerState.ts';
import type { BarrierHandlerState } from './BarrierHandlerState.ts';
import type { ChannelState } from './ChannelState.ts';
import { WaitingForFirstBarrier } from './WaitingForFirstBarrier.ts';

export class CollectingBarriers extends AbstractAlignedBarrierHandlerState {
  readonly name = 'CollectingBarriers';

  constructor(state: ChannelState) {
    super(state);
  }

  protected convertAfterBarrierReceived(): BarrierHandlerState {
    return this;
  }

  protected waitingForFirstBarrier(): BarrierHandlerState {
    return new WaitingForFirstBarrier(this.state);
  }
}
