/**
 * The at-least-once barrier handler (reference 3.5). It never blocks a channel: it counts, per
 * checkpoint id, the channels whose barrier it saw, and triggers an id once every channel open
 * at its first barrier delivered it (or ended). Completing an id drops every older pending id
 * silently; a late barrier may still complete an older pending id after a newer one started.
 * A CancelCheckpointMarker aborts every older pending id and its own id, each with one
 * notification, and is remembered as an aborted entry so trailing markers do nothing; with one
 * open channel, a marker (like a barrier) for a new id takes a fast path that only notifies.
 *
 * Records that arrive on a channel after its barrier are processed before the snapshot, so
 * after a restore they are replayed: at-least-once, with duplicates.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.CheckpointBarrierTracker
 *
 * Invariants:
 * - pending ids strictly increase from oldest to newest, all <= latestPendingCheckpointId;
 *   at most MAX_CHECKPOINTS_TO_TRACK entries;
 * - each entry: 1 <= |channels| <= target (equal only for an aborted entry, which a cancellation
 *   marker may create complete); an entry without a barrier is aborted;
 * - numOpenChannels = channels - finished channels >= 0.
 */
import type { PlantedBugs } from '../../api/EngineEnv.ts';
import type { Tracer } from '../../api/Tracer.ts';
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointFailureReason } from '../../checkpoint/CheckpointFailureReason.ts';
import { assert } from '../../util/assert.ts';
import { AlignmentTimer } from './AlignmentTimer.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import { channelKey } from './ChannelInfo.ts';
import type { CheckpointableTask } from './CheckpointableTask.ts';
import type {
  CheckpointBarrierHandler, CheckpointBarrierHandlerOptions,
} from './CheckpointBarrierHandler.ts';

/** The most pending checkpoints the tracker keeps; beyond that the oldest is dropped. */
export const MAX_CHECKPOINTS_TO_TRACK = 50;

/**
 * Planted bug (mutants.md 31, FLINK-5285): a cancellation marker for an id the tracker already
 * handled re-creates an aborted entry and notifies the abort again.
 */
export const TRACKER_RECREATES_ABORTED = 'tracker-recreates-aborted';

/** Options of {@link CheckpointBarrierTracker}. */
export type CheckpointBarrierTrackerOptions = CheckpointBarrierHandlerOptions;

/** One pending checkpoint (Flink's CheckpointBarrierCount). */
interface PendingEntry {
  readonly checkpointId: number;
  /** The first barrier; undefined for an entry a cancellation marker created (aborted). */
  readonly barrier: CheckpointBarrier | undefined;
  readonly channels: Set<string>;
  readonly targetChannelCount: number;
  aborted: boolean;
}

export class CheckpointBarrierTracker implements CheckpointBarrierHandler {
  private readonly task: CheckpointableTask;
  private readonly taskName: string;
  private readonly tracer: Tracer;
  private readonly bugs: PlantedBugs;
  private readonly checkpointsAfterTasksFinish: boolean;
  private readonly numChannels: number;
  private readonly alignment: AlignmentTimer;
  /** Oldest first. */
  private pending: PendingEntry[] = [];
  private latestPendingCheckpointId = -1;
  private numOpenChannels: number;
  private readonly finishedChannels = new Set<string>();
  private closed = false;

  constructor(options: CheckpointBarrierTrackerOptions) {
    this.task = options.task;
    this.taskName = options.taskName;
    this.tracer = options.tracer;
    this.bugs = options.bugs;
    this.alignment = new AlignmentTimer(options.clock);
    this.checkpointsAfterTasksFinish = options.checkpointsAfterTasksFinish;
    this.numChannels = options.inputs.getNumberOfInputChannels();
    assert(this.numChannels > 0, () => `${this.taskName}: a barrier handler needs input channels`);
    this.numOpenChannels = this.numChannels;
  }

  /**
   * Reference 3.5 "Barrier for ID X". `isRpcTriggered` makes no difference: nothing blocks.
   * @throws AssertionError after close() or for a finished channel.
   */
  processBarrier(barrier: CheckpointBarrier, channel: ChannelInfo, _isRpcTriggered: boolean): void {
    this.assertUsable(channel);
    const id = barrier.id;
    if (id > this.latestPendingCheckpointId && this.numOpenChannels === 1) {
      // Fast path: X is complete with its first barrier. As in Flink, older pending entries and
      // latestPendingCheckpointID are left alone, so an older entry that a later EndOfPartition
      // completes can still trigger after X (the task's SubtaskCheckpointCoordinator then skips
      // it as out of order), and a later marker for an id below X still takes the fast path.
      this.alignment.markAlignmentStartAndEnd(id, barrier.timestampUs);
      this.tracer.event('checkpoint.firstBarrier', this.attrs(id));
      this.trigger(barrier);
      return;
    }
    const pos = this.pending.findIndex((e) => e.checkpointId === id);
    const entry = this.pending[pos];
    if (entry !== undefined) {
      entry.channels.add(channelKey(channel));
      if (entry.channels.size === entry.targetChannelCount) this.complete(pos);
    } else if (id > this.latestPendingCheckpointId) {
      this.latestPendingCheckpointId = id;
      this.alignment.markAlignmentStart(id, barrier.timestampUs);
      this.tracer.event('checkpoint.firstBarrier', this.attrs(id));
      this.pending.push({
        checkpointId: id, barrier, channels: new Set([channelKey(channel)]),
        targetChannelCount: this.numOpenChannels, aborted: false,
      });
      if (this.pending.length > MAX_CHECKPOINTS_TO_TRACK) this.pending.shift();
    }
    // Otherwise an older id that is no longer pending: it can never complete.
  }

  /**
   * Reference 3.5 "Cancellation marker for X".
   * @throws AssertionError after close() or for a finished channel.
   */
  processCancellationBarrier(checkpointId: number, channel: ChannelInfo): void {
    this.assertUsable(channel);
    if (checkpointId > this.latestPendingCheckpointId && this.numOpenChannels === 1) {
      // Fast path, as for barriers: with one open channel the marker is the only one for this
      // id, so there is nothing to count and no entry to keep. Older pending entries (waiting
      // for this channel after the others ended) are left alone, as in Flink.
      this.task.abortCheckpointOnBarrier(checkpointId, 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER');
      return;
    }
    let head = this.pending[0];
    while (head !== undefined && head.checkpointId < checkpointId) {
      this.pending.shift();
      this.markAbortedAndNotify(head, 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER');
      head = this.pending[0];
    }
    if (head !== undefined && head.checkpointId === checkpointId) {
      this.markAbortedAndNotify(head, 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER');
      // Keep counting, so the entry leaves once every channel reported this id.
      head.channels.add(channelKey(channel));
      if (head.channels.size === head.targetChannelCount) this.pending.shift();
    } else if (checkpointId > this.latestPendingCheckpointId ||
        this.bugs.has(TRACKER_RECREATES_ABORTED)) {
      // Every older entry is gone, so the marker goes to the front.
      this.latestPendingCheckpointId = Math.max(this.latestPendingCheckpointId, checkpointId);
      const marker: PendingEntry = {
        checkpointId, barrier: undefined, channels: new Set([channelKey(channel)]),
        targetChannelCount: this.numOpenChannels, aborted: false,
      };
      this.pending.unshift(marker);
      this.markAbortedAndNotify(marker, 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER');
    }
    // Otherwise a trailing marker for an id already handled.
  }

  /**
   * Reference 3.5 "EndOfPartition": aborts every pending entry (checkpoints after finish off),
   * or counts `channel` as aligned and completes the newest entry that this completes.
   * @throws AssertionError after close() or if the channel already ended.
   */
  processEndOfPartition(channel: ChannelInfo): void {
    this.assertUsable(channel);
    const key = channelKey(channel);
    this.finishedChannels.add(key);
    this.numOpenChannels--;
    if (!this.checkpointsAfterTasksFinish) {
      const entries = this.pending;
      this.pending = [];
      for (const entry of entries) {
        this.markAbortedAndNotify(entry, 'CHECKPOINT_DECLINED_INPUT_END_OF_STREAM');
      }
      return;
    }
    for (let pos = this.pending.length - 1; pos >= 0; pos--) {
      const entry = this.pending[pos];
      assert(entry !== undefined, 'pending entry');
      entry.channels.add(key);
      if (entry.channels.size === entry.targetChannelCount) {
        this.complete(pos);
        return;
      }
    }
  }

  /** The newest pending checkpoint id, or -1 when nothing is pending (as Flink's). */
  addProcessedBytes(bytes: number): void {
    this.alignment.addProcessedBytes(bytes);
  }

  getLatestCheckpointId(): number {
    return this.pending.at(-1)?.checkpointId ?? -1;
  }

  isCheckpointPending(): boolean {
    return this.pending.length > 0;
  }

  /** The pending checkpoint ids, oldest first (for tests). */
  getPendingCheckpointIds(): number[] {
    return this.pending.map((e) => e.checkpointId);
  }

  close(): void {
    this.closed = true;
  }

  checkInvariants(): void {
    const who = this.taskName;
    assert(this.pending.length <= MAX_CHECKPOINTS_TO_TRACK,
      () => `${who}: ${this.pending.length} pending checkpoints tracked`);
    assert(this.numOpenChannels === this.numChannels - this.finishedChannels.size &&
      this.numOpenChannels >= 0, () => `${who}: ${this.numOpenChannels} open channels`);
    let previous = -Infinity;
    for (const e of this.pending) {
      const id = e.checkpointId;
      assert(id > previous, () => `${who}: pending ids out of order at ${id}`);
      previous = id;
      assert(id <= this.latestPendingCheckpointId,
        () => `${who}: pending ${id} newer than latest ${this.latestPendingCheckpointId}`);
      assert(e.channels.size >= 1 && e.channels.size <= e.targetChannelCount &&
        (e.channels.size < e.targetChannelCount || e.aborted),
        () => `${who}: checkpoint ${id} has ${e.channels.size} of ${e.targetChannelCount}`);
      assert(e.barrier !== undefined || e.aborted, () => `${who}: marker ${id} not aborted`);
    }
  }

  /** Removes the entry at `pos` and every older one, then triggers it unless it was aborted. */
  private complete(pos: number): void {
    const entry = this.pending[pos];
    assert(entry !== undefined, () => `${this.taskName}: no pending entry at ${pos}`);
    this.dropSilently(this.pending.splice(0, pos));
    this.pending.shift();
    if (entry.aborted) return;
    const barrier = entry.barrier;
    assert(barrier !== undefined, () => `${this.taskName}: no barrier for ${entry.checkpointId}`);
    if (entry.checkpointId < this.latestPendingCheckpointId) {
      this.tracer.mark('tracker-late-completion', this.attrs(entry.checkpointId));
    }
    this.alignment.markAlignmentEnd();
    this.trigger(barrier);
  }

  /** Older incomplete entries go without a decline or a cancel marker (reference 3.5). */
  private dropSilently(entries: readonly PendingEntry[]): void {
    for (const e of entries) {
      if (!e.aborted) this.tracer.mark('tracker-incomplete-dropped', this.attrs(e.checkpointId));
    }
  }

  private trigger(barrier: CheckpointBarrier): void {
    this.tracer.event('checkpoint.aligned', this.attrs(barrier.id));
    this.task.triggerCheckpointOnBarrier(barrier, this.alignment.metrics(barrier.id));
  }

  /** Marks `entry` aborted and notifies the task, the first time only. */
  private markAbortedAndNotify(entry: PendingEntry, reason: CheckpointFailureReason): void {
    if (entry.aborted) return;
    entry.aborted = true;
    this.task.abortCheckpointOnBarrier(entry.checkpointId, reason);
  }

  private assertUsable(channel: ChannelInfo): void {
    assert(!this.closed, () => `${this.taskName}: barrier handler used after close`);
    const key = channelKey(channel);
    assert(!this.finishedChannels.has(key), () => `${this.taskName}: channel ${key} already ended`);
  }

  private attrs(checkpointId: number): { task: string; checkpointId: number } {
    return { task: this.taskName, checkpointId };
  }
}
