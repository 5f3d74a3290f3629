/**
 * Hash (keyBy): a record goes to the consumer subtask that owns its key's key group, exactly as
 * in Flink: `keyGroup = assignToKeyGroup(key, maxParallelism)`, then
 * `computeOperatorIndexForKeyGroup(maxParallelism, parallelism, keyGroup)`.
 *
 * @see org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner
 *
 * Invariants: the same key always selects the same channel; the channel's subtask owns the key
 * group (KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex).
 */
import {
  computeOperatorIndexForKeyGroup,
  javaHashCode,
  murmurHash,
  UPPER_BOUND_MAX_PARALLELISM,
} from '../state/KeyGroupRangeAssignment.ts';
import type { Key } from '../streaming/api/functions.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import type { ChannelSelector } from './ChannelSelector.ts';

/** Options of {@link KeyGroupStreamPartitioner}. */
export interface KeyGroupStreamPartitionerOptions {
  /** The consumer parallelism. */
  readonly numberOfChannels: number;
  /** The key of a record value. */
  readonly keySelector: (value: unknown) => Key;
  /** The consumer's max parallelism: the number of key groups. */
  readonly maxParallelism: number;
}

export class KeyGroupStreamPartitioner implements ChannelSelector {
  readonly numberOfChannels: number;
  private readonly keySelector: (value: unknown) => Key;
  private readonly maxParallelism: number;

  constructor(options: KeyGroupStreamPartitionerOptions) {
    assert(options.numberOfChannels <= options.maxParallelism, () =>
      `parallelism ${options.numberOfChannels} exceeds max parallelism ${options.maxParallelism}`);
    this.numberOfChannels = options.numberOfChannels;
    this.keySelector = options.keySelector;
    this.maxParallelism = options.maxParallelism;
    // The arguments the per-record path no longer checks, checked once (same messages).
    assert(Number.isInteger(this.maxParallelism) && this.maxParallelism > 0
      && this.maxParallelism <= UPPER_BOUND_MAX_PARALLELISM,
    () => `maxParallelism out of bounds: ${this.maxParallelism}`);
    computeOperatorIndexForKeyGroup(this.maxParallelism, this.numberOfChannels, 0);
  }

  /** The channel of the subtask owning the key group of `record`'s key. */
  selectChannel(record: StreamRecord): number {
    // assignToKeyGroup then computeOperatorIndexForKeyGroup with their argument checks done once
    // in the constructor: the key group lies in [0, maxParallelism) by construction.
    const maxParallelism = this.maxParallelism;
    const keyGroup = murmurHash(javaHashCode(this.keySelector(record.value))) % maxParallelism;
    return Math.floor((keyGroup * this.numberOfChannels) / maxParallelism);
  }

  isBroadcast(): boolean {
    return false;
  }
}
