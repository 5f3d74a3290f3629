/**
 * Broadcast: every record goes to every channel; the RecordWriter broadcasts instead of
 * selecting.
 *
 * @see org.apache.flink.streaming.runtime.partitioner.BroadcastPartitioner
 *
 * Invariants: never asked to select a single channel.
 */
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import type { ChannelSelector } from './ChannelSelector.ts';

export class BroadcastPartitioner implements ChannelSelector {
  constructor(readonly numberOfChannels: number) {}

  /** @throws AssertionError always, as Flink throws UnsupportedOperationException. */
  selectChannel(_record: StreamRecord): number {
    assert(false, 'broadcast partitioner does not select single channels');
  }

  isBroadcast(): boolean {
    return true;
  }
}
