/**
 * The network side of a task's inputs for barrier-handler tests: gates of given sizes whose
 * channels block when they hand out an aligned barrier and stay blocked until resumed, as
 * PipelinedSubpartition does. Delivering anything on a blocked or finished channel fails, so a
 * test cannot feed a handler a sequence the network could not produce.
 *
 * Invariants: a channel is blocked only between an aligned barrier and its resume; a finished
 * channel delivers nothing more.
 */
import { assert } from '../../../util/assert.ts';
import type { ChannelInfo } from '../ChannelInfo.ts';
import { channelKey } from '../ChannelInfo.ts';
import type { CheckpointableInputs } from '../CheckpointableInputs.ts';

export class TestingCheckpointableInputs implements CheckpointableInputs {
  private readonly blocked = new Set<string>();
  private readonly finished = new Set<string>();
  /** Every resume, as `resume <gate>:<channel>`. */
  readonly resumes: string[] = [];

  /** `gateSizes[g]` channels in gate g; `log` may be shared with the task. */
  constructor(readonly gateSizes: readonly number[], readonly log: string[] = []) {}

  getNumberOfInputChannels(): number {
    return this.gateSizes.reduce((a, b) => a + b, 0);
  }

  resumeConsumption(channel: ChannelInfo): void {
    const key = channelKey(channel);
    assert(this.blocked.has(key), () => `resumeConsumption on unblocked channel ${key}`);
    this.blocked.delete(key);
    this.resumes.push(`resume ${key}`);
    this.log.push(`resume ${key}`);
  }

  isBlocked(channel: ChannelInfo): boolean {
    return this.blocked.has(channelKey(channel));
  }

  /** The network hands out a barrier on `channel`; an aligned one blocks it. */
  deliverBarrier(channel: ChannelInfo, blocking: boolean): void {
    this.assertCanDeliver(channel);
    if (blocking) this.blocked.add(channelKey(channel));
  }

  /** The network hands out a record or a cancellation marker on `channel`. */
  deliverOther(channel: ChannelInfo): void {
    this.assertCanDeliver(channel);
  }

  /** The network hands out EndOfPartition on `channel`. */
  deliverEndOfPartition(channel: ChannelInfo): void {
    this.assertCanDeliver(channel);
    this.finished.add(channelKey(channel));
  }

  /** The blocked channels, sorted by key. */
  blockedChannels(): string[] {
    return [...this.blocked].sort();
  }

  private assertCanDeliver(channel: ChannelInfo): void {
    const key = channelKey(channel);
    assert(!this.blocked.has(key), () => `channel ${key} is blocked and delivers nothing`);
    assert(!this.finished.has(key), () => `channel ${key} is finished`);
  }
}
