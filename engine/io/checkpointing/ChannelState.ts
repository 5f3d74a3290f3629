/**
 * The channels a barrier handler holds blocked, shared by the states of its state machine. A
 * channel is recorded when it delivered an aligned barrier (the network already blocked it), and
 * every recorded channel is resumed when the alignment ends, whether by a trigger or an abort.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.ChannelState
 *
 * Invariants: a channel is recorded at most once; a finished channel is never recorded; every
 * channel resumed through this object was recorded (so the gate's "resume only a blocked
 * channel" check holds), except under the planted bug, where a channel is resumed at the moment
 * it would have been recorded and never recorded.
 */
import { assert } from '../../util/assert.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import { channelKey } from './ChannelInfo.ts';
import type { CheckpointableInputs } from './CheckpointableInputs.ts';

/** Options of {@link ChannelState}. */
export interface ChannelStateOptions {
  readonly inputs: CheckpointableInputs;
  /**
   * Planted bug `aligned-resume-immediately`: resume a channel as soon as it would be blocked,
   * so alignment never holds anything back.
   */
  readonly resumeImmediately: boolean;
}

export class ChannelState {
  readonly inputs: CheckpointableInputs;
  private readonly resumeImmediately: boolean;
  /** Insertion-ordered, so channels resume in the order they blocked. */
  private readonly blocked = new Map<string, ChannelInfo>();

  constructor(options: ChannelStateOptions) {
    this.inputs = options.inputs;
    this.resumeImmediately = options.resumeImmediately;
  }

  /**
   * Records that the network blocked `channel` after its aligned barrier.
   * @throws AssertionError if the channel is already recorded.
   */
  blockChannel(channel: ChannelInfo): void {
    const key = channelKey(channel);
    assert(!this.blocked.has(key), () => `channel ${key} blocked twice`);
    if (this.resumeImmediately) {
      this.inputs.resumeConsumption(channel);
      return;
    }
    this.blocked.set(key, channel);
  }

  /** `channel` ended (EndOfPartition): it can never be resumed, so forget it. */
  channelFinished(channel: ChannelInfo): void {
    this.blocked.delete(channelKey(channel));
  }

  /** Resumes every recorded channel, in the order they were blocked, and forgets them. */
  unblockAllChannels(): void {
    const channels = [...this.blocked.values()];
    this.blocked.clear();
    for (const channel of channels) this.inputs.resumeConsumption(channel);
  }

  /** The recorded channels, in the order they were blocked. */
  getBlockedChannels(): ChannelInfo[] {
    return [...this.blocked.values()];
  }
}
