/**
 * The failure of a partition request that kept finding nothing served under its key through
 * every backoff retry: the producer is not (or no longer) running. It fails the consumer task.
 *
 * @see org.apache.flink.runtime.io.network.partition.PartitionNotFoundException
 */
export class PartitionNotFoundException extends Error {
  override readonly name = 'PartitionNotFoundException';

  constructor(
    /** The partition requested. */
    readonly partitionId: string,
    /** The subpartition requested. */
    readonly subpartition: number,
    /** How many requests were made, the first included. */
    readonly attempts: number,
  ) {
    super(`partition ${partitionId} subpartition ${subpartition} not found after ` +
      `${attempts} requests`);
  }
}
