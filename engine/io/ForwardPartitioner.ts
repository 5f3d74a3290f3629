/**
 * Forward: producer subtask i feeds consumer subtask i only, so its partition has exactly one
 * subpartition and every record goes to channel 0.
 *
 * @see org.apache.flink.streaming.runtime.partitioner.ForwardPartitioner
 *
 * Invariants: one channel; always selects 0.
 */
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import type { ChannelSelector } from './ChannelSelector.ts';

export class ForwardPartitioner implements ChannelSelector {
  /** @throws AssertionError unless `numberOfChannels` is 1 (a forward edge is pointwise). */
  constructor(readonly numberOfChannels: number) {
    assert(numberOfChannels === 1,
      `a forward partition has one subpartition, got ${numberOfChannels}`);
  }

  /** Always channel 0. */
  selectChannel(_record: StreamRecord): number {
    return 0;
  }

  isBroadcast(): boolean {
    return false;
  }
}
