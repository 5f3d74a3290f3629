import { describe, expect, test } from 'vitest';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import {
  CheckpointBarrierTracker, MAX_CHECKPOINTS_TO_TRACK, TRACKER_RECREATES_ABORTED,
} from './CheckpointBarrierTracker.ts';
import { TestingCheckpointableInputs } from './testing/TestingCheckpointableInputs.ts';
import { TestingCheckpointableTask } from './testing/TestingCheckpointableTask.ts';
import { barrierOf, TestingInputProcessor } from './testing/TestingInputProcessor.ts';

function tracker(channels: number, options: { afterFinish?: boolean; bugs?: string[] } = {}) {
  return new TestingInputProcessor('AT_LEAST_ONCE', {
    gateSizes: [channels], checkpointsAfterTasksFinish: options.afterFinish ?? true,
    bugs: options.bugs ?? [],
  });
}

/** Delivers `[id, channel]` barriers in order. */
function barriers(p: TestingInputProcessor, sequence: ReadonlyArray<readonly [number, number]>) {
  for (const [id, channel] of sequence) p.barrier(id, channel);
}

const CANCELLED = 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER';

describe('CheckpointBarrierTracker (at-least-once), reference section 7', () => {
  test('testCompleteCheckpointsOnLateBarriers: late completion allowed, older dropped', () => {
    // Given 3 channels.
    const p = tracker(3);
    p.task.onTrigger = () => expect(p.inputs.blockedChannels()).toEqual([]);
    barriers(p, [[2, 0], [2, 1], [2, 2]]);
    // 3 is incomplete while 4 starts, then 3 completes, then 4.
    barriers(p, [[3, 1], [3, 2], [4, 2], [4, 1]]);
    p.data(0);
    expect(p.task.triggered).toEqual([2]);
    barriers(p, [[3, 0]]);
    expect(p.task.triggered).toEqual([2, 3]);
    barriers(p, [[4, 0]]);
    barriers(p, [[5, 1], [5, 0], [5, 2]]);
    // 6 gets two of three barriers.
    barriers(p, [[6, 1], [6, 0]]);
    // 7, 8 and 9 overlap; 10 starts before 8 and 9 complete.
    barriers(p, [[7, 0], [8, 0], [7, 2], [9, 0], [7, 1]]);
    barriers(p, [[8, 1], [9, 1], [10, 0], [10, 1], [8, 2], [9, 2], [10, 2]]);
    // Then the triggered sequence is exactly this; 6 is neither triggered nor aborted.
    expect(p.task.triggered).toEqual([2, 3, 4, 5, 7, 8, 9, 10]);
    expect(p.task.aborted).toEqual([]);
    expect(p.inputs.resumes).toEqual([]);
    expect(p.handler.isCheckpointPending()).toBe(false);
    expect(p.tracer.marks.filter((m) => m.type === 'tracker-incomplete-dropped')
      .map((m) => m.attrs.checkpointId)).toEqual([6]);
    expect(p.tracer.marks.filter((m) => m.type === 'tracker-late-completion')
      .map((m) => m.attrs.checkpointId)).toEqual([3, 7, 8, 9]);
  });

  test('testMultiChannelSkippingCheckpoints: a skipped checkpoint is dropped', () => {
    const p = tracker(3);
    barriers(p, [[1, 0], [1, 1], [1, 2], [2, 1], [2, 0], [2, 2]]);
    // Given checkpoint 3 with a barrier on channel 2 only,
    barriers(p, [[3, 2]]);
    // when all barriers of 4 arrive,
    barriers(p, [[4, 0], [4, 1], [4, 2]]);
    // then the triggered sequence is 1, 2, 4.
    expect(p.task.triggered).toEqual([1, 2, 4]);
    expect(p.task.aborted).toEqual([]);
  });

  test('testSingleChannelWithSkippedBarriers: the fast path triggers each at once', () => {
    const p = tracker(1);
    for (const id of [1, 3, 4, 6, 7, 10]) {
      p.data(0);
      p.barrier(id, 0);
      expect(p.task.triggered.at(-1)).toBe(id);
    }
    expect(p.task.triggered).toEqual([1, 3, 4, 6, 7, 10]);
    expect(p.handler.isCheckpointPending()).toBe(false);
    expect(p.tracer.eventsOf('checkpoint.aligned')).toHaveLength(6);
  });

  test('testSingleChannelAbortCheckpoint: a marker for a new id on the only open channel '
    + 'notifies the abort and queues nothing (fast path)', () => {
    const p = tracker(1);
    barriers(p, [[1, 0], [2, 0]]);
    p.cancel(4, 0);
    expect(p.handler.isCheckpointPending()).toBe(false);
    p.barrier(5, 0);
    p.cancel(6, 0);
    // Flink's sequence 1, 2, -4, 5, -6, and nothing is left behind.
    expect(p.task.triggered).toEqual([1, 2, 5]);
    expect(p.task.aborted).toEqual([{ id: 4, reason: CANCELLED }, { id: 6, reason: CANCELLED }]);
    expect((p.handler as CheckpointBarrierTracker).getPendingCheckpointIds()).toEqual([]);
  });

  test('fast path for a marker also when other channels ended: older pending entries stay', () => {
    // Channel 1 delivered 1 and ended: entry 1 waits for channel 0 only, which is the only open one.
    const p = tracker(2);
    p.barrier(1, 1);
    p.endOfPartition(1);
    p.cancel(2, 0);
    // As in Flink the marker for the new id 2 takes the fast path: it aborts 2 alone and neither
    // aborts nor removes entry 1, nor queues an aborted entry for 2.
    expect(p.task.abortedIds()).toEqual([2]);
    expect((p.handler as CheckpointBarrierTracker).getPendingCheckpointIds()).toEqual([1]);
  });

  test('the fast path leaves latestPendingCheckpointID alone, so a marker for an older id '
    + 'still takes the fast path (as Flink)', () => {
    const p = tracker(1);
    p.barrier(5, 0);
    p.cancel(3, 0);
    expect(p.task.triggered).toEqual([5]);
    expect(p.task.abortedIds()).toEqual([3]);
    expect(p.handler.isCheckpointPending()).toBe(false);
  });

  test('testNoFastPathWithChannelFinishedDuringCheckpointsCancel: a marker for a pending id '
    + 'takes the general path', () => {
    const p = tracker(2);
    p.barrier(1, 0);
    p.endOfPartition(0);
    p.cancel(1, 1);
    expect(p.task.abortedIds()).toEqual([1]);
    expect(p.handler.isCheckpointPending()).toBe(false);
  });

  test('getLatestCheckpointId is the newest pending id, -1 when nothing is pending', () => {
    const p = tracker(2);
    expect(p.handler.getLatestCheckpointId()).toBe(-1);
    p.barrier(3, 0);
    p.barrier(4, 0);
    expect(p.handler.getLatestCheckpointId()).toBe(4);
    p.barrier(4, 1);
    // 4 completed and dropped 3: nothing is pending.
    expect(p.task.triggered).toEqual([4]);
    expect(p.handler.getLatestCheckpointId()).toBe(-1);
    p.cancel(5, 0);
    expect(p.handler.getLatestCheckpointId()).toBe(5);
    p.cancel(5, 1);
    expect(p.handler.getLatestCheckpointId()).toBe(-1);
    // A single channel's fast path never queues anything.
    const q = tracker(1);
    barriers(q, [[1, 0], [2, 0]]);
    expect(q.handler.getLatestCheckpointId()).toBe(-1);
  });

  test('testInterleavedCancellationBarriers: each id is aborted once', () => {
    const p = tracker(3);
    p.barrier(1, 0);
    p.cancel(2, 0);
    expect(p.task.aborted).toEqual([{ id: 1, reason: CANCELLED }, { id: 2, reason: CANCELLED }]);
    p.cancel(1, 1);
    p.cancel(2, 1);
    p.cancel(1, 2);
    p.cancel(2, 2);
    expect(p.task.abortedIds()).toEqual([1, 2]);
    expect(p.task.triggered).toEqual([]);
    expect(p.handler.isCheckpointPending()).toBe(false);
  });

  test('testMultiChannelAbortCheckpoint: markers abort older and own ids, counted', () => {
    const p = tracker(3);
    barriers(p, [[1, 0], [1, 1], [1, 2]]);
    // A marker for a pending id aborts it once; its remaining barriers still count.
    p.barrier(2, 0);
    p.cancel(2, 1);
    expect(p.task.abortedIds()).toEqual([2]);
    p.barrier(2, 2);
    expect(p.handler.isCheckpointPending()).toBe(false);
    // A marker newer than everything aborts and leaves an aborted marker until complete.
    p.cancel(3, 1);
    expect((p.handler as CheckpointBarrierTracker).getPendingCheckpointIds()).toEqual([3]);
    p.cancel(3, 0);
    p.barrier(3, 2);
    expect(p.handler.isCheckpointPending()).toBe(false);
    barriers(p, [[4, 2], [4, 0], [4, 1]]);
    // A marker for 6 aborts the pending 5 too, each with a notification.
    barriers(p, [[5, 0], [5, 1]]);
    p.cancel(6, 2);
    barriers(p, [[6, 0], [6, 1]]);
    expect(p.task.triggered).toEqual([1, 4]);
    expect(p.task.abortedIds()).toEqual([2, 3, 5, 6]);
    expect(p.handler.isCheckpointPending()).toBe(false);
  });

  test('testAbortCheckpointsAfterEndOfPartitionReceived: EOP aborts, trailing do nothing', () => {
    const p = tracker(3, { afterFinish: false });
    barriers(p, [[1, 0], [2, 0], [2, 1]]);
    p.cancel(2, 2);
    expect(p.task.abortedIds()).toEqual([1, 2]);
    barriers(p, [[3, 0], [3, 1]]);
    p.endOfPartition(2);
    expect(p.task.aborted.at(-1))
      .toEqual({ id: 3, reason: 'CHECKPOINT_DECLINED_INPUT_END_OF_STREAM' });
    expect(p.handler.isCheckpointPending()).toBe(false);
    p.cancel(3, 0);
    p.barrier(3, 1);
    expect(p.task.abortedIds()).toEqual([1, 2, 3]);
    // Later checkpoints only need the two open channels.
    barriers(p, [[4, 0], [4, 1]]);
    expect(p.task.triggered).toEqual([4]);
  });

  test('testCompleteAndRemoveAbortedCheckpointWithEndOfPartition', () => {
    const p = tracker(3);
    p.barrier(1, 0);
    p.cancel(1, 1);
    expect(p.task.abortedIds()).toEqual([1]);
    p.endOfPartition(2);
    expect(p.handler.isCheckpointPending()).toBe(false);
    expect(p.task.triggered).toEqual([]);
    barriers(p, [[2, 0], [2, 1]]);
    expect(p.task.triggered).toEqual([2]);
  });

  test('EOP completes the newest entry it completes, dropping older ones silently', () => {
    const p = tracker(3);
    barriers(p, [[1, 0], [2, 0], [2, 1]]);
    p.endOfPartition(2);
    expect(p.task.triggered).toEqual([2]);
    expect(p.task.aborted).toEqual([]);
    expect(p.handler.isCheckpointPending()).toBe(false);
    // With one channel open, the fast path takes over.
    p.endOfPartition(1);
    p.barrier(3, 0);
    expect(p.task.triggered).toEqual([2, 3]);
  });

  test('the fast path leaves older entries, which a later EndOfPartition can still trigger (as Flink)', () => {
    const p = tracker(2);
    p.barrier(2, 1);
    p.barrier(1, 0);
    p.endOfPartition(1);
    // Channel 0 is the only open one: barrier 3 takes the fast path; entry 2 stays pending.
    p.barrier(3, 0);
    expect(p.handler.isCheckpointPending()).toBe(true);
    p.endOfPartition(0);
    // The task's SubtaskCheckpointCoordinator skips 2 as out of order.
    expect(p.task.triggered).toEqual([3, 2]);
    expect(p.task.aborted).toEqual([]);
  });

  test('an EOP that completes nothing only counts the channel', () => {
    const p = tracker(3);
    barriers(p, [[1, 0]]);
    p.endOfPartition(2);
    expect(p.task.triggered).toEqual([]);
    barriers(p, [[1, 1]]);
    expect(p.task.triggered).toEqual([1]);
  });

  test(`tracks at most ${MAX_CHECKPOINTS_TO_TRACK} checkpoints, dropping the oldest`, () => {
    const p = tracker(2);
    for (let id = 1; id <= MAX_CHECKPOINTS_TO_TRACK + 1; id++) p.barrier(id, 0);
    const h = p.handler as CheckpointBarrierTracker;
    expect(h.getPendingCheckpointIds()).toHaveLength(MAX_CHECKPOINTS_TO_TRACK);
    expect(h.getPendingCheckpointIds()[0]).toBe(2);
    // The dropped checkpoint 1 can no longer complete; 2 still can.
    p.barrier(1, 1);
    p.barrier(2, 1);
    expect(p.task.triggered).toEqual([2]);
  });

  test('RPC-triggered barriers count like any other and never touch the network', () => {
    const p = tracker(2);
    p.rpcBarrier(1, 0);
    p.rpcBarrier(1, 1);
    expect(p.task.triggered).toEqual([1]);
    expect(p.inputs.resumes).toEqual([]);
  });

  test('rejects finished channels, use after close, no channels', () => {
    const p = tracker(2);
    p.endOfPartition(0);
    expect(() => p.handler.processBarrier(barrierOf(1, 'AT_LEAST_ONCE'),
      { gate: 0, channel: 0 }, false)).toThrow(/ended/);
    p.handler.close();
    expect(() => p.handler.processCancellationBarrier(1, { gate: 0, channel: 1 }))
      .toThrow(/after close/);
    expect(() => new CheckpointBarrierTracker({
      task: new TestingCheckpointableTask(), inputs: new TestingCheckpointableInputs([]),
      taskName: 't', tracer: new TestingTracer(), bugs: { has: () => false },
      checkpointsAfterTasksFinish: true,
    })).toThrow(/needs input channels/);
  });
});

describe(`planted bug ${TRACKER_RECREATES_ABORTED} (mutants.md 31)`, () => {
  /** ch0: cancel-3, cancel-4; ch1: cancel-4, cancel-3, interleaved. */
  function interleavedMarkers(bugs: string[]): TestingInputProcessor {
    const p = tracker(2, { bugs });
    p.cancel(3, 0);
    p.cancel(4, 1);
    p.cancel(4, 0);
    p.cancel(3, 1);
    return p;
  }

  test('off: each checkpoint is aborted once', () => {
    const p = interleavedMarkers([]);
    expect(p.task.abortedIds()).toEqual([3, 4]);
    expect(p.handler.isCheckpointPending()).toBe(false);
  });

  test('on: the late cancel-3 re-creates an aborted entry and aborts 3 again', () => {
    const p = interleavedMarkers([TRACKER_RECREATES_ABORTED]);
    expect(p.task.abortedIds()).toEqual([3, 4, 3]);
    expect((p.handler as CheckpointBarrierTracker).getPendingCheckpointIds()).toEqual([3]);
    // Every later stray marker repeats it.
    p.cancel(2, 0);
    expect(p.task.abortedIds()).toEqual([3, 4, 3, 2]);
  });
});
