/**
 * The task's inputs as a barrier handler sees them: how many channels there are, and a way to
 * let a channel that delivered an aligned barrier send again. Blocking itself is done by the
 * network (reference 3.0): a subpartition that sent an aligned barrier sends nothing more on
 * that channel until the consumer resumes it.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CheckpointableInput
 */
import type { ChannelInfo } from './ChannelInfo.ts';

export interface CheckpointableInputs {
  /** The number of input channels over all gates, finished or not. */
  getNumberOfInputChannels(): number;

  /**
   * Lets `channel`'s producer send again after the aligned barrier it delivered.
   * @throws AssertionError (from the gate) if the channel is not blocked.
   * @see CheckpointableInput#resumeConsumption
   */
  resumeConsumption(channel: ChannelInfo): void;

  /**
   * True when the network holds `channel` blocked after an aligned barrier. Optional: when
   * present, the handlers' checkInvariants() cross-check their own record against it.
   */
  isBlocked?(channel: ChannelInfo): boolean;
}
