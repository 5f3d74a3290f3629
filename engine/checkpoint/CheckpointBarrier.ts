/**
 * Events that travel in the data stream besides records: checkpoint barriers, cancellation
 * markers, end-of-data and end-of-partition.
 *
 * @see org.apache.flink.runtime.io.network.api.CheckpointBarrier, CancelCheckpointMarker,
 *      EndOfData, EndOfPartitionEvent; org.apache.flink.runtime.checkpoint.CheckpointOptions
 */

/** How a barrier is aligned (CheckpointOptions.AlignmentType). */
export type AlignmentType = 'ALIGNED' | 'AT_LEAST_ONCE' | 'UNALIGNED' | 'FORCED_ALIGNED';

/** What kind of snapshot (SnapshotType): a checkpoint, a savepoint, or a full checkpoint. */
export type SnapshotType = 'CHECKPOINT' | 'FULL_CHECKPOINT' | 'SAVEPOINT' | 'SYNC_SAVEPOINT';

/**
 * What the job does after a synchronous savepoint (SavepointType.PostCheckpointAction):
 * TERMINATE is stop-with-savepoint with drain (MAX_WATERMARK, endInput), SUSPEND without.
 */
export type PostCheckpointAction = 'NONE' | 'TERMINATE' | 'SUSPEND';

/**
 * How a task's data ends (StopMode): DRAIN ends the input (endInput and finish run, as at the end
 * of a bounded input or a stop with drain), NO_DRAIN stops it with the operators unfinished
 * (stop-with-savepoint without drain).
 */
export type StopMode = 'DRAIN' | 'NO_DRAIN';

/** CheckpointOptions carried by every barrier. */
export interface CheckpointOptions {
  readonly snapshotType: SnapshotType;
  /**
   * A synchronous savepoint's post-checkpoint action (SavepointType): TERMINATE makes the
   * sources drain before they snapshot (SavepointType.shouldDrain), SUSPEND stops them. Absent
   * for every other snapshot.
   */
  readonly postCheckpointAction?: PostCheckpointAction;
  readonly alignment: AlignmentType;
  /** Aligned checkpoint timeout in µs for "timeoutable" barriers; 0 = none. */
  readonly alignedCheckpointTimeoutUs: number;
  /**
   * Where the tasks write this snapshot's state (CheckpointStorageLocationReference): a
   * savepoint's own directory; absent for a checkpoint, which writes into `chk-<id>`.
   */
  readonly targetLocation?: string;
}

/** A checkpoint barrier. `timestampUs` is the JobMaster's trigger time. */
export interface CheckpointBarrier {
  readonly id: number;
  readonly timestampUs: number;
  readonly options: CheckpointOptions;
}

/** An event in the data stream. */
export type RuntimeEvent =
  | { readonly type: 'barrier'; readonly barrier: CheckpointBarrier }
  | { readonly type: 'cancel-checkpoint'; readonly checkpointId: number }
  | { readonly type: 'end-of-data'; readonly stopMode: StopMode }
  | { readonly type: 'end-of-partition' };

/** True for barriers that block their channel until resumeConsumption (aligned kinds). */
export function isBlockingBarrier(b: CheckpointBarrier): boolean {
  return b.options.alignment === 'ALIGNED' || b.options.alignment === 'FORCED_ALIGNED';
}
