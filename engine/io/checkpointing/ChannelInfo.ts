/**
 * The address of one input channel of a task: the gate (the task's input index) and the channel
 * within that gate.
 *
 * @see org.apache.flink.runtime.checkpoint.channel.InputChannelInfo
 *
 * Invariants: both numbers are non-negative integers; two ChannelInfos are the same channel
 * exactly when their {@link channelKey}s are equal.
 */

/** One input channel: `gate` is the gate index, `channel` the channel index in that gate. */
export interface ChannelInfo {
  readonly gate: number;
  readonly channel: number;
}

/**
 * A string key for `info` that is equal for equal channels (`"<gate>:<channel>"`), for use in
 * insertion-ordered Maps and Sets.
 */
export function channelKey(info: ChannelInfo): string {
  return `${info.gate}:${info.channel}`;
}
