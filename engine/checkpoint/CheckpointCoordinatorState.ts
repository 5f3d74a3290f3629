/**
 * The mutable state the CheckpointCoordinator's parts share (the coordinator facade, the trigger
 * pipeline and the outcomes of pending checkpoints): in Flink these are fields of the one
 * CheckpointCoordinator class, read and written under its `lock`. Split out so the 3,000-line
 * class of Flink becomes files by responsibility (STYLE.md) without copying state between them.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (its fields)
 * Invariants (checked by CheckpointCoordinator.checkInvariants): every PendingCheckpoint in
 * `pending` is undisposed and their ids increase in insertion order; after shutdown nothing is
 * pending and periodic scheduling is off.
 */
import { CheckpointStatsTracker } from './CheckpointStatsTracker.ts';
import type { CompletedCheckpoint } from './CompletedCheckpoint.ts';
import type { PendingCheckpoint } from './PendingCheckpoint.ts';

/** How many expired ids are remembered to tell late acks from unknown ones. */
export const NUM_GHOST_CHECKPOINT_IDS = 16;

export class CheckpointCoordinatorState {
  /** Pending checkpoints by id, in trigger (= id) order. */
  readonly pending = new Map<number, PendingCheckpoint>();
  /** The latest {@link NUM_GHOST_CHECKPOINT_IDS} ids aborted with CHECKPOINT_EXPIRED. */
  readonly recentExpired: number[] = [];
  /** True from the start of a trigger until its RPCs were sent (or it failed). */
  triggering = false;
  shutDown = false;
  periodicScheduling = false;
  /** When the latest checkpoint completed, µs (0 before any). */
  lastCompletionUs = 0;
  /** The next checkpoint is a full one (set on a NO_CLAIM restore; reset by a completion). */
  forceFullSnapshot = false;
  /** The id of the checkpoint the latest completion subsumed from the store, -1 for none. */
  lastSubsumedId = -1;
  /**
   * Prefix of the job run's checkpoint and savepoint directories ('' for a first run,
   * `run-<n>/`: JobRun.storagePrefix), so each run has its own checkpoint directory.
   */
  storagePrefix = '';
  /** The job's checkpoint statistics (in Flink the scheduler owns it and hands it over). */
  readonly statsTracker = new CheckpointStatsTracker();
  /**
   * Planted `restore-from-uncompleted` only: the newest aborted checkpoint, as far as its tasks
   * acknowledged it, while it is newer than every completed one; its files are kept.
   */
  newestUncompleted: CompletedCheckpoint | undefined = undefined;

  /** Remembers `id` as expired, forgetting the oldest beyond the ring's size. */
  rememberExpired(id: number): void {
    this.recentExpired.push(id);
    if (this.recentExpired.length > NUM_GHOST_CHECKPOINT_IDS) this.recentExpired.shift();
  }
}
