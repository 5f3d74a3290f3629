/**
 * Rebalance: round robin over the channels. Flink starts at a random channel; the sim starts at
 * `subtaskIndex % numberOfChannels` so that producers spread their first records without a
 * random draw and runs stay deterministic.
 *
 * @see org.apache.flink.streaming.runtime.partitioner.RebalancePartitioner
 *
 * Invariants: consecutive selections differ by one modulo `numberOfChannels`.
 */
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import type { ChannelSelector } from './ChannelSelector.ts';

export class RebalancePartitioner implements ChannelSelector {
  private next: number;

  constructor(readonly numberOfChannels: number, subtaskIndex: number) {
    assert(Number.isInteger(subtaskIndex) && subtaskIndex >= 0,
      `subtaskIndex must be a non-negative integer, got ${subtaskIndex}`);
    this.next = subtaskIndex % numberOfChannels;
  }

  /** The next channel in round-robin order. */
  selectChannel(_record: StreamRecord): number {
    const channel = this.next;
    this.next = (channel + 1) % this.numberOfChannels;
    return channel;
  }

  isBroadcast(): boolean {
    return false;
  }
}
