/**
 * Chooses the output channel (subpartition) of each record, one implementation per
 * PartitionerKind of the job API. Selectors are deterministic: none draws random numbers.
 *
 * @see org.apache.flink.runtime.io.network.api.writer.ChannelSelector,
 *      org.apache.flink.streaming.runtime.partitioner.StreamPartitioner
 *
 * Invariants: `selectChannel` returns an integer in `[0, numberOfChannels)`; a broadcast
 * selector is never asked to select.
 */
import type { Key, KeySelector } from '../streaming/api/functions.ts';
import type { PartitionerKind } from '../streaming/api/StreamGraph.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert, unreachable } from '../util/assert.ts';
import { BroadcastPartitioner } from './BroadcastPartitioner.ts';
import { ForwardPartitioner } from './ForwardPartitioner.ts';
import { KeyGroupStreamPartitioner } from './KeyGroupStreamPartitioner.ts';
import { RebalancePartitioner } from './RebalancePartitioner.ts';

/** Picks the channel of each record. */
export interface ChannelSelector {
  /** The number of channels (subpartitions) it selects among. */
  readonly numberOfChannels: number;
  /** The channel of `record`, in `[0, numberOfChannels)`. @throws AssertionError if broadcast. */
  selectChannel(record: StreamRecord): number;
  /** True when every record goes to every channel. */
  isBroadcast(): boolean;
}

/** What {@link createChannelSelector} needs to know about the edge. */
export interface ChannelSelectorOptions {
  readonly partitioner: PartitionerKind;
  /** Subpartitions of the producer's partition (the consumer parallelism; 1 for forward). */
  readonly numberOfChannels: number;
  /** The producer subtask's index (rebalance starts at `subtaskIndex % numberOfChannels`). */
  readonly subtaskIndex: number;
  /** For `hash` edges: the key of a record value. */
  readonly keySelector?: KeySelector<unknown>;
  /** For `hash` edges: the consumer vertex's max parallelism (the number of key groups). */
  readonly downstreamMaxParallelism?: number;
}

/** The selector for an edge with partitioner `options.partitioner`. */
export function createChannelSelector(options: ChannelSelectorOptions): ChannelSelector {
  const n = options.numberOfChannels;
  assert(Number.isInteger(n) && n >= 1, `numberOfChannels must be positive, got ${n}`);
  switch (options.partitioner) {
    case 'forward':
      return new ForwardPartitioner(n);
    case 'hash': {
      const keySelector = options.keySelector;
      const maxParallelism = options.downstreamMaxParallelism;
      assert(keySelector !== undefined, 'a hash edge needs a key selector');
      assert(maxParallelism !== undefined, 'a hash edge needs the downstream max parallelism');
      return new KeyGroupStreamPartitioner({
        numberOfChannels: n,
        keySelector: keySelector as (value: unknown) => Key,
        maxParallelism,
      });
    }
    case 'rebalance':
      return new RebalancePartitioner(n, options.subtaskIndex);
    case 'broadcast':
      return new BroadcastPartitioner(n);
    default:
      return unreachable(options.partitioner, 'partitioner');
  }
}
