/**
 * What the world may know of the data plane's traffic, for faults aimed at one channel's events:
 * whether a payload is a checkpoint barrier or a CancelCheckpointMarker (and of which
 * checkpoint), and which producer attempt serves a subpartition key. The data network transmits
 * payloads it does not otherwise look into (DataNetwork.ts); these readers let the sim's channel
 * faults find their event without depending on the engine's buffer types.
 *
 * @see org.apache.flink.runtime.io.network.api.CheckpointBarrier, CancelCheckpointMarker
 */
import type { NetworkBuffer } from './NetworkBuffer.ts';

/** A checkpoint event travelling on a data channel. */
export interface ChannelCheckpointEvent {
  /** `barrier`: a CheckpointBarrier (any alignment); `cancellation`: a CancelCheckpointMarker. */
  readonly event: 'barrier' | 'cancellation';
  readonly checkpointId: number;
}

/**
 * The checkpoint event `payload` carries, or undefined for records, other events
 * (EndOfData, EndOfPartition) and anything that is not a network buffer.
 */
export function channelEventOf(payload: unknown): ChannelCheckpointEvent | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const buffer = payload as Partial<NetworkBuffer>;
  if (buffer.kind !== 'event' || buffer.event === undefined) return undefined;
  const e = buffer.event;
  if (e.type === 'barrier') return { event: 'barrier', checkpointId: e.barrier.id };
  if (e.type === 'cancel-checkpoint') return { event: 'cancellation', checkpointId: e.checkpointId };
  return undefined;
}

/**
 * The producer attempt (`<vertex>#<subtask>@<attempt>`) that serves subpartition key `key`
 * (`e<edge>:<attempt>/<subpartition>`: subpartitionKey of partitionIdOf), or undefined for a key
 * of another shape.
 */
export function producerOfSubpartitionKey(key: string): string | undefined {
  const m = /^e\d+:(v\d+#\d+@\d+)\/\d+$/.exec(key);
  return m === null ? undefined : m[1];
}
