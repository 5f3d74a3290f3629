/**
 * The exactly-once barrier handler in aligned mode (reference 3.1 and 3.2). It aligns one
 * checkpoint at a time: the first barrier of a newer id starts an alignment, each barrier's
 * channel stays blocked (by the network; recorded here), and when every open channel delivered
 * the barrier or ended, the task is told to trigger the checkpoint and only then are the
 * channels resumed. A newer barrier aborts the alignment in progress (CHECKPOINT_DECLINED_
 * SUBSUMED), a CancelCheckpointMarker aborts it (..._ON_CANCELLATION_BARRIER), and
 * EndOfPartition either counts as aligned or aborts (..._INPUT_END_OF_STREAM), depending on
 * checkpoints-after-finish. Barriers for ids already done are ignored, but their channel is
 * resumed, since the network blocked it all the same.
 *
 * The reactions to barriers live in the states (WaitingForFirstBarrier, CollectingBarriers);
 * this class keeps the bookkeeping. The unaligned and alternating modes of reference 3.3 will
 * add states and a timer here.
 *
 * @see org.apache.flink.streaming.runtime.io.checkpointing.SingleCheckpointBarrierHandler
 *
 * Invariants:
 * - lastCancelledOrCompleted <= current; a checkpoint is pending iff current >= 0 and
 *   current != lastCancelledOrCompleted, iff the state is CollectingBarriers;
 * - pending: 1 <= |aligned| < target, the pending barrier has id current, and every blocked
 *   channel is an aligned channel; not pending: nothing aligned, nothing blocked, no barrier;
 * - numOpenChannels = channels - finished channels >= 0; no finished channel is blocked;
 * - every channel recorded blocked is blocked at the network (when the inputs can tell).
 */
import type { PlantedBugs } from '../../api/EngineEnv.ts';
import type { Tracer } from '../../api/Tracer.ts';
import { isBlockingBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointBarrier } from '../../checkpoint/CheckpointBarrier.ts';
import type { CheckpointFailureReason } from '../../checkpoint/CheckpointFailureReason.ts';
import { assert } from '../../util/assert.ts';
import type { BarrierHandlerController, BarrierHandlerState } from './BarrierHandlerState.ts';
import { AlignmentTimer } from './AlignmentTimer.ts';
import type { ChannelInfo } from './ChannelInfo.ts';
import { channelKey } from './ChannelInfo.ts';
import type { CheckpointableInputs } from './CheckpointableInputs.ts';
import type { CheckpointableTask } from './CheckpointableTask.ts';
import type {
  CheckpointBarrierHandler, CheckpointBarrierHandlerOptions,
} from './CheckpointBarrierHandler.ts';
import { ChannelState } from './ChannelState.ts';
import { CollectingBarriers } from './CollectingBarriers.ts';
import { WaitingForFirstBarrier } from './WaitingForFirstBarrier.ts';

/**
 * Planted bug: aligned mode resumes a channel right after it delivered a barrier, so alignment
 * never blocks and records behind a barrier reach the operators before the snapshot.
 */
export const ALIGNED_RESUME_IMMEDIATELY = 'aligned-resume-immediately';

/** Options of {@link SingleCheckpointBarrierHandler}. */
export type SingleCheckpointBarrierHandlerOptions = CheckpointBarrierHandlerOptions;

export class SingleCheckpointBarrierHandler implements CheckpointBarrierHandler {
  private readonly task: CheckpointableTask;
  private readonly inputs: CheckpointableInputs;
  private readonly taskName: string;
  private readonly tracer: Tracer;
  private readonly bugs: PlantedBugs;
  private readonly checkpointsAfterTasksFinish: boolean;
  private readonly numChannels: number;
  private readonly controller: BarrierHandlerController;
  private readonly alignment: AlignmentTimer;

  private state: BarrierHandlerState;
  private currentCheckpointId = -1;
  private lastCancelledOrCompletedCheckpointId = -1;
  private pendingCheckpointBarrier: CheckpointBarrier | undefined;
  /** Channels that delivered the pending barrier or ended during its alignment. */
  private readonly alignedChannels = new Set<string>();
  private targetChannelCount = 0;
  private numOpenChannels: number;
  private readonly finishedChannels = new Set<string>();
  private closed = false;

  /** Starts in WaitingForFirstBarrier with every channel open. */
  constructor(options: SingleCheckpointBarrierHandlerOptions) {
    this.task = options.task;
    this.inputs = options.inputs;
    this.taskName = options.taskName;
    this.tracer = options.tracer;
    this.bugs = options.bugs;
    this.alignment = new AlignmentTimer(options.clock);
    this.checkpointsAfterTasksFinish = options.checkpointsAfterTasksFinish;
    this.numChannels = options.inputs.getNumberOfInputChannels();
    assert(this.numChannels > 0, () => `${this.taskName}: a barrier handler needs input channels`);
    this.numOpenChannels = this.numChannels;
    this.state = new WaitingForFirstBarrier(new ChannelState({
      inputs: this.inputs,
      resumeImmediately: this.bugs.has(ALIGNED_RESUME_IMMEDIATELY),
    }));
    this.controller = {
      triggerGlobalCheckpoint: (barrier) => this.triggerCheckpoint(barrier),
      allBarriersReceived: () => this.alignedChannels.size === this.targetChannelCount,
      getPendingCheckpointBarrier: () => {
        const barrier = this.pendingCheckpointBarrier;
        assert(barrier !== undefined, () => `${this.taskName}: no pending checkpoint barrier`);
        return barrier;
      },
    };
  }

  /**
   * Reference 3.1 `processBarrier`: ignores (and resumes) obsolete barriers, subsumes an older
   * alignment, counts `channel` as aligned and lets the state react.
   * @throws AssertionError after close(), for a finished channel, or for an unaligned barrier.
   */
  processBarrier(barrier: CheckpointBarrier, channel: ChannelInfo, isRpcTriggered: boolean): void {
    this.assertUsable(channel);
    const id = barrier.id;
    if (id < this.currentCheckpointId ||
        (id === this.currentCheckpointId && !this.isCheckpointPending())) {
      // The network blocked the channel for this barrier too; ignoring it must not strand it.
      if (!isRpcTriggered && isBlockingBarrier(barrier)) this.inputs.resumeConsumption(channel);
      this.tracer.mark('obsolete-barrier-ignored', this.attrs(id));
      return;
    }
    this.checkNewCheckpoint(barrier);
    assert(this.currentCheckpointId === id, () => `${this.taskName}: barrier ${id} not current`);
    this.markAlignedAndTransformState(channel, (state) =>
      state.barrierReceived(this.controller, channel, barrier, !isRpcTriggered));
  }

  /**
   * Reference 3.1 `processCancellationBarrier`: acts on a marker newer than the current id, or
   * for the current id while some channel is aligned; aborts with
   * CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER. A marker for an id never seen still declines.
   * @throws AssertionError after close() or for a finished channel.
   */
  processCancellationBarrier(checkpointId: number, channel: ChannelInfo): void {
    this.assertUsable(channel);
    if (checkpointId > this.currentCheckpointId ||
        (checkpointId === this.currentCheckpointId && this.alignedChannels.size > 0)) {
      this.abortInternal(checkpointId, 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER');
    }
  }

  /**
   * Reference 3.1 `processEndOfPartition`: one channel fewer for later checkpoints; the pending
   * one counts `channel` as aligned (checkpoints after finish) or is aborted with
   * CHECKPOINT_DECLINED_INPUT_END_OF_STREAM.
   * @throws AssertionError after close() or if the channel already ended.
   */
  processEndOfPartition(channel: ChannelInfo): void {
    this.assertUsable(channel);
    this.finishedChannels.add(channelKey(channel));
    this.numOpenChannels--;
    if (!this.isCheckpointPending()) return;
    if (!this.checkpointsAfterTasksFinish) {
      this.abortInternal(this.currentCheckpointId, 'CHECKPOINT_DECLINED_INPUT_END_OF_STREAM');
      return;
    }
    this.markAlignedAndTransformState(channel, (state) =>
      state.endOfPartitionReceived(this.controller, channel));
  }

  addProcessedBytes(bytes: number): void {
    this.alignment.addProcessedBytes(bytes);
  }

  getLatestCheckpointId(): number {
    return this.currentCheckpointId;
  }

  isCheckpointPending(): boolean {
    return this.currentCheckpointId >= 0 &&
      this.currentCheckpointId !== this.lastCancelledOrCompletedCheckpointId;
  }

  /** The state machine's current state name (for tests and traces). */
  getStateName(): string {
    return this.state.name;
  }

  /** The channels currently recorded as blocked, in the order they blocked. */
  getBlockedChannels(): ChannelInfo[] {
    return this.state.getChannelState().getBlockedChannels();
  }

  /** Ends the handler. Blocked channels stay blocked: the gates close with the task. */
  close(): void {
    this.closed = true;
  }

  checkInvariants(): void {
    const who = this.taskName;
    const current = this.currentCheckpointId;
    const blocked = this.state.getChannelState().getBlockedChannels();
    const last = this.lastCancelledOrCompletedCheckpointId;
    assert(last <= current, () => `${who}: last cancelled/completed ${last} > ${current}`);
    assert(this.numOpenChannels === this.numChannels - this.finishedChannels.size &&
      this.numOpenChannels >= 0, () => `${who}: ${this.numOpenChannels} open channels`);
    const pending = this.isCheckpointPending();
    assert(pending === (this.state instanceof CollectingBarriers),
      () => `${who}: pending=${pending} in state ${this.state.name}`);
    if (pending) {
      assert(this.alignedChannels.size >= 1 && this.alignedChannels.size < this.targetChannelCount,
        () => `${who}: ${this.alignedChannels.size} of ${this.targetChannelCount} aligned`);
      assert(this.pendingCheckpointBarrier?.id === current,
        () => `${who}: pending barrier is not checkpoint ${current}`);
      for (const channel of blocked) {
        assert(this.alignedChannels.has(channelKey(channel)),
          () => `${who}: blocked channel ${channelKey(channel)} is not aligned`);
      }
    } else {
      assert(this.alignedChannels.size === 0 && blocked.length === 0 &&
        this.pendingCheckpointBarrier === undefined,
        () => `${who}: alignment state left over with no pending checkpoint`);
    }
    for (const channel of blocked) {
      const key = channelKey(channel);
      assert(!this.finishedChannels.has(key), () => `${who}: finished channel ${key} blocked`);
      assert(this.inputs.isBlocked?.(channel) ?? true,
        () => `${who}: channel ${key} recorded blocked but the network does not block it`);
    }
  }

  /** Starts checkpoint `barrier.id` if it is newer, first aborting an alignment in progress. */
  private checkNewCheckpoint(barrier: CheckpointBarrier): void {
    const id = barrier.id;
    if (this.currentCheckpointId >= id) return;
    if (this.isCheckpointPending()) {
      this.tracer.mark('barrier-during-alignment',
        { ...this.attrs(id), aligning: this.currentCheckpointId });
      this.abortInternal(this.currentCheckpointId, 'CHECKPOINT_DECLINED_SUBSUMED');
    }
    this.currentCheckpointId = id;
    this.pendingCheckpointBarrier = barrier;
    this.alignedChannels.clear();
    this.targetChannelCount = this.numOpenChannels;
    this.alignment.markAlignmentStart(id, barrier.timestampUs);
    this.tracer.event('checkpoint.firstBarrier', this.attrs(id));
  }

  private markAlignedAndTransformState(
    channel: ChannelInfo, transform: (state: BarrierHandlerState) => BarrierHandlerState,
  ): void {
    this.alignedChannels.add(channelKey(channel));
    const complete = this.alignedChannels.size === this.targetChannelCount;
    if (complete) {
      this.alignment.markAlignmentEnd();
      this.tracer.event('checkpoint.aligned', this.attrs(this.currentCheckpointId));
    }
    this.state = transform(this.state);
    if (complete) {
      this.alignedChannels.clear();
      this.lastCancelledOrCompletedCheckpointId = this.currentCheckpointId;
      this.pendingCheckpointBarrier = undefined;
    }
  }

  private triggerCheckpoint(barrier: CheckpointBarrier): void {
    assert(barrier.id === this.currentCheckpointId,
      () => `${this.taskName}: trigger ${barrier.id} while aligning ${this.currentCheckpointId}`);
    this.task.triggerCheckpointOnBarrier(barrier, this.alignment.metrics(barrier.id));
  }

  /**
   * Reference 3.1 `abortInternal`: forget the alignment, resume every blocked channel, then
   * tell the task. Later barriers of `cancelledId` count as obsolete.
   */
  private abortInternal(cancelledId: number, reason: CheckpointFailureReason): void {
    const aligning = this.isCheckpointPending() ? this.currentCheckpointId : undefined;
    this.currentCheckpointId = Math.max(this.currentCheckpointId, cancelledId);
    this.lastCancelledOrCompletedCheckpointId =
      Math.max(this.lastCancelledOrCompletedCheckpointId, cancelledId);
    this.pendingCheckpointBarrier = undefined;
    this.alignedChannels.clear();
    this.targetChannelCount = 0;
    this.state = this.state.abort(cancelledId);
    if (aligning !== undefined) {
      this.tracer.mark('alignment-aborted', { ...this.attrs(aligning), reason });
    }
    this.task.abortCheckpointOnBarrier(cancelledId, reason);
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
