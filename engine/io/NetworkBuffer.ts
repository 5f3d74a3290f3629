/**
 * What a network buffer holds: a batch of serialized records, or one event. Buffers are
 * immutable once sent.
 *
 * @see org.apache.flink.runtime.io.network.buffer.Buffer, Buffer.DataType
 */
import type { RuntimeEvent } from '../checkpoint/CheckpointBarrier.ts';
import type { StreamRecord } from '../streaming/api/StreamRecord.ts';

export type NetworkBuffer =
  | { readonly kind: 'data'; readonly records: readonly StreamRecord[]; readonly sizeBytes: number }
  | { readonly kind: 'event'; readonly event: RuntimeEvent; readonly sizeBytes: number };

/** Messages a consumer sends upstream besides credit. */
export type UpstreamMessage = { readonly type: 'resume-consumption' };

/** The network key of one subpartition: `<partition id>/<subpartition index>`. */
export function subpartitionKey(partitionId: string, subpartition: number): string {
  return `${partitionId}/${subpartition}`;
}
