/**
 * Writes a task's output records to one ResultPartition, choosing subpartitions with a
 * ChannelSelector (or broadcasting). Events, flushing and availability pass through to the
 * partition.
 *
 * @see org.apache.flink.runtime.io.network.api.writer.RecordWriter,
 *      ChannelSelectorRecordWriter, BroadcastRecordWriter
 *
 * Invariants: the selector and the partition agree on the number of channels.
 */
import type { RuntimeEvent } from '../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';
import { assert } from '../util/assert.ts';
import type { ChannelSelector } from './ChannelSelector.ts';
import type { AvailabilityListener } from './LocalBufferPool.ts';
import type {
  BroadcastEventOptions, OvertakenBuffers, ResultPartition,
} from './ResultPartition.ts';

export class RecordWriter {
  readonly partition: ResultPartition;
  readonly selector: ChannelSelector;
  private readonly broadcast: boolean;

  /** @throws AssertionError when selector and partition differ in their channel counts. */
  constructor(partition: ResultPartition, selector: ChannelSelector) {
    assert(partition.numberOfSubpartitions === selector.numberOfChannels, () =>
      `partition ${partition.partitionId} has ${partition.numberOfSubpartitions} subpartitions, ` +
      `selector ${selector.numberOfChannels} channels`);
    this.partition = partition;
    this.selector = selector;
    this.broadcast = selector.isBroadcast();
  }

  /** Emits `record` to the selected subpartition, or to all of them for broadcast. */
  emit(record: StreamRecord): void {
    if (this.broadcast) this.partition.broadcastRecord(record);
    else this.partition.emitRecord(record, this.selector.selectChannel(record));
  }

  /** Emits `record` to every subpartition whatever the selector (Flink's broadcastEmit). */
  broadcastEmit(record: StreamRecord): void {
    this.partition.broadcastRecord(record);
  }

  /** See {@link ResultPartition.broadcastEvent}. */
  broadcastEvent(event: RuntimeEvent, options: BroadcastEventOptions = {}): OvertakenBuffers {
    return this.partition.broadcastEvent(event, options);
  }

  /** See {@link ResultPartition.flushAll}. */
  flushAll(): void {
    this.partition.flushAll();
  }

  /**
   * How many more records, one at a time, can be emitted here with no buffer finished and the
   * partition still available (see {@link ResultPartition.quietRecordCapacity}).
   */
  quietRecordCapacity(): number {
    return this.partition.quietRecordCapacity(this.broadcast);
  }

  /** See {@link ResultPartition.isAvailable}. */
  isAvailable(): boolean {
    return this.partition.isAvailable();
  }

  /** See {@link ResultPartition.onAvailable}. */
  onAvailable(callback: AvailabilityListener): void {
    this.partition.onAvailable(callback);
  }
}
