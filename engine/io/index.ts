/**
 * The task-side data plane: result partitions and record writers on the producer side, input
 * gates and channels on the consumer side (DESIGN.md: engine/io).
 */
export { BroadcastPartitioner } from './BroadcastPartitioner.ts';
export { createChannelSelector } from './ChannelSelector.ts';
export type { ChannelSelector, ChannelSelectorOptions } from './ChannelSelector.ts';
export { ForwardPartitioner } from './ForwardPartitioner.ts';
export { InputChannel, isPriorityBuffer } from './InputChannel.ts';
export type { InputChannelListener, InputChannelOptions, QueuedInput } from './InputChannel.ts';
export { InputGate } from './InputGate.ts';
export type { BufferOrEvent, InputChannelDescriptor, InputGateOptions } from './InputGate.ts';
export { KeyGroupStreamPartitioner } from './KeyGroupStreamPartitioner.ts';
export type { KeyGroupStreamPartitionerOptions } from './KeyGroupStreamPartitioner.ts';
export { LocalBufferPool } from './LocalBufferPool.ts';
export type { AvailabilityListener, LocalBufferPoolOptions } from './LocalBufferPool.ts';
export { subpartitionKey } from './NetworkBuffer.ts';
export type { NetworkBuffer, UpstreamMessage } from './NetworkBuffer.ts';
export { PartitionNotFoundException } from './PartitionNotFoundException.ts';
export { EVENT_SIZE_BYTES, PipelinedSubpartition } from './PipelinedSubpartition.ts';
export type {
  PipelinedSubpartitionOptions, SubpartitionListener,
} from './PipelinedSubpartition.ts';
export { RebalancePartitioner } from './RebalancePartitioner.ts';
export { RecordWriter } from './RecordWriter.ts';
export { ResultPartition } from './ResultPartition.ts';
export type {
  BroadcastEventOptions, OvertakenBuffers, ResultPartitionOptions,
} from './ResultPartition.ts';
