import { describe, expect, test } from 'vitest';
import { TestingTracer } from '../../testing/TestingTracer.ts';
import {
  ALIGNED_RESUME_IMMEDIATELY, SingleCheckpointBarrierHandler,
} from './SingleCheckpointBarrierHandler.ts';
import { TestingCheckpointableInputs } from './testing/TestingCheckpointableInputs.ts';
import { TestingCheckpointableTask } from './testing/TestingCheckpointableTask.ts';
import { barrierOf, TestingInputProcessor } from './testing/TestingInputProcessor.ts';

function aligned(channels: number, options: { afterFinish?: boolean; bugs?: string[] } = {}) {
  return new TestingInputProcessor('EXACTLY_ONCE', {
    gateSizes: [channels], checkpointsAfterTasksFinish: options.afterFinish ?? true,
    bugs: options.bugs ?? [],
  });
}

describe('SingleCheckpointBarrierHandler (aligned), reference section 7', () => {
  test('testMultiChannelWithBarriers: triggers at the last barrier, blocks until then', () => {
    // Given 3 channels.
    const p = aligned(3);
    p.data(0); p.data(1); p.data(2);
    // When barrier 1 arrives on channels 1 and 2 while data keeps arriving on channel 0,
    p.barrier(1, 1);
    p.data(0);
    p.barrier(1, 2);
    p.data(0);
    expect(p.task.triggered).toEqual([]);
    expect(p.inputs.blockedChannels()).toEqual(['0:1', '0:2']);
    expect(() => p.data(1)).toThrow(/blocked/);
    expect(p.handler.isCheckpointPending()).toBe(true);
    // then barrier 1 on channel 0:
    p.barrier(1, 0);
    // Then the checkpoint triggers exactly at the third barrier and nothing stays blocked.
    expect(p.task.triggered).toEqual([1]);
    expect(p.inputs.blockedChannels()).toEqual([]);
    expect(p.handler.isCheckpointPending()).toBe(false);

    // Barriers back to back: 2 and 3 on every channel, in varying order.
    for (const ch of [0, 1, 2]) p.barrier(2, ch);
    for (const ch of [2, 0, 1]) p.barrier(3, ch);
    // Data on one channel only between the barriers of checkpoint 4.
    p.barrier(4, 0);
    p.data(1); p.data(1);
    p.barrier(4, 1);
    p.data(2);
    p.barrier(4, 2);
    expect(p.task.triggered).toEqual([1, 2, 3, 4]);
    expect(p.task.aborted).toEqual([]);
    expect(p.inputs.blockedChannels()).toEqual([]);
    expect(p.handler.getLatestCheckpointId()).toBe(4);
  });

  test('triggers the checkpoint first, then resumes the channels in blocking order', () => {
    const p = aligned(3);
    p.task.onTrigger = () => {
      // Inside the trigger, every channel of the alignment is still blocked.
      expect(p.inputs.blockedChannels()).toEqual(['0:0', '0:1', '0:2']);
    };
    p.barrier(7, 2);
    p.barrier(7, 0);
    p.barrier(7, 1);
    expect(p.log).toEqual(['trigger 7', 'resume 0:2', 'resume 0:0', 'resume 0:1']);
  });

  test('a single channel triggers on its only barrier', () => {
    const p = aligned(1);
    p.barrier(1, 0);
    expect(p.log).toEqual(['trigger 1', 'resume 0:0']);
    expect(p.tracer.eventsOf('checkpoint.firstBarrier').map((e) => e.attrs.checkpointId))
      .toEqual([1]);
    expect(p.tracer.eventsOf('checkpoint.aligned')).toEqual([
      { type: 'checkpoint.aligned', attrs: { task: 'map (1/1)#0', checkpointId: 1 } },
    ]);
  });

  test('testMultiChannelJumpingOverCheckpoint: a newer barrier subsumes the alignment', () => {
    const p = aligned(3);
    p.barrier(1, 0); p.barrier(1, 1); p.barrier(1, 2);
    // Given checkpoint 2 aligning, with channels 0 and 1 blocked,
    p.barrier(2, 0);
    p.barrier(2, 1);
    expect(p.inputs.blockedChannels()).toEqual(['0:0', '0:1']);
    p.log.length = 0;
    // when barrier 3 arrives on channel 2,
    p.barrier(3, 2);
    // then 2 is aborted, channels 0 and 1 released, and 3 starts with channel 2 blocked.
    expect(p.task.aborted).toEqual([{ id: 2, reason: 'CHECKPOINT_DECLINED_SUBSUMED' }]);
    expect(p.log).toEqual([
      'resume 0:0', 'resume 0:1', 'abort 2 CHECKPOINT_DECLINED_SUBSUMED',
    ]);
    expect(p.inputs.blockedChannels()).toEqual(['0:2']);
    expect(p.handler.getLatestCheckpointId()).toBe(3);
    expect(p.tracer.hasMark('barrier-during-alignment')).toBe(true);
    expect(p.tracer.marks.find((m) => m.type === 'alignment-aborted')?.attrs)
      .toEqual({ task: 'map (1/1)#0', checkpointId: 2, reason: 'CHECKPOINT_DECLINED_SUBSUMED' });
    // Likewise barrier 4 on channel 1 aborts 3 while channels 0 and 2 are blocked.
    p.barrier(3, 0);
    expect(p.inputs.blockedChannels()).toEqual(['0:0', '0:2']);
    p.barrier(4, 1);
    expect(p.task.abortedIds()).toEqual([2, 3]);
    expect(p.inputs.blockedChannels()).toEqual(['0:1']);
    // The stale barrier 2 still queued on channel 2 is ignored, and its channel resumed.
    p.barrier(2, 2);
    expect(p.inputs.blockedChannels()).toEqual(['0:1']);
    p.barrier(4, 0);
    p.barrier(4, 2);
    expect(p.task.triggered).toEqual([1, 4]);
    expect(p.inputs.blockedChannels()).toEqual([]);
  });

  test('testAbortOnCanceledBarriers: a cancellation aborts; a late barrier is resumed', () => {
    const p = aligned(3);
    // Given barrier 1 on channel 1,
    p.barrier(1, 1);
    // when cancel(1) arrives on channel 0,
    p.cancel(1, 0);
    // then 1 is aborted on the cancellation barrier and all channels unblock.
    expect(p.task.aborted)
      .toEqual([{ id: 1, reason: 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER' }]);
    expect(p.inputs.blockedChannels()).toEqual([]);
    expect(p.tracer.hasMark('alignment-aborted')).toBe(true);
    // Later markers and barriers of 1 do nothing, except that the barrier's channel resumes.
    p.cancel(1, 2);
    p.barrier(1, 0);
    expect(p.inputs.blockedChannels()).toEqual([]);
    // When checkpoint 2 starts (channel 1 blocked) and the stale barrier 1 arrives on 2,
    p.barrier(2, 1);
    p.barrier(1, 2);
    // then that barrier is ignored and channel 2 not left blocked,
    expect(p.inputs.blockedChannels()).toEqual(['0:1']);
    expect(p.tracer.hasMark('obsolete-barrier-ignored')).toBe(true);
    p.barrier(2, 0);
    p.barrier(2, 2);
    // and 2 completes normally: 1 trigger, 1 abort overall.
    expect(p.task.triggered).toEqual([2]);
    expect(p.task.abortedIds()).toEqual([1]);
  });

  test('a cancel marker for an id never seen declines it; one for a done id is ignored', () => {
    const p = aligned(2);
    p.cancel(5, 0);
    expect(p.task.aborted)
      .toEqual([{ id: 5, reason: 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER' }]);
    expect(p.tracer.hasMark('alignment-aborted')).toBe(false);
    p.cancel(5, 1);
    p.barrier(6, 0); p.barrier(6, 1);
    p.cancel(6, 0);
    p.cancel(4, 1);
    expect(p.task.abortedIds()).toEqual([5]);
    expect(p.task.triggered).toEqual([6]);
  });

  test('a newer cancel marker during an alignment aborts only the marker id (as Flink)', () => {
    const p = aligned(2);
    p.barrier(1, 0);
    p.cancel(2, 1);
    expect(p.task.abortedIds()).toEqual([2]);
    expect(p.inputs.blockedChannels()).toEqual([]);
    // Barrier 1 on channel 1 is now obsolete.
    p.barrier(1, 1);
    expect(p.handler.isCheckpointPending()).toBe(false);
  });

  test('testTriggerCheckpointsWithEndOfPartition: EOP completes the alignment', () => {
    const p = aligned(3);
    p.barrier(1, 0);
    p.barrier(1, 1);
    p.endOfPartition(2);
    expect(p.task.triggered).toEqual([1]);
    expect(p.task.aborted).toEqual([]);
    expect(p.log).toEqual(['trigger 1', 'resume 0:0', 'resume 0:1']);
  });

  test('testDeduplicateChannelsWithBothBarrierAndEndOfPartition', () => {
    const p = aligned(3);
    p.barrier(2, 0);
    // Channel 1's barrier was made up on a trigger RPC (never blocked), so its EOP can follow.
    p.rpcBarrier(2, 1);
    p.endOfPartition(1);
    expect(p.task.triggered).toEqual([]);
    p.barrier(2, 2);
    expect(p.task.triggered).toEqual([2]);
    expect(p.inputs.blockedChannels()).toEqual([]);
  });

  test('an ended channel is dropped from the blocked record and never resumed', () => {
    // Flink's test feeds EOP on a channel that delivered its barrier; the network here could
    // not, so the handler is called directly.
    const p = aligned(3);
    p.barrier(2, 0);
    p.barrier(2, 1);
    p.handler.processEndOfPartition({ gate: 0, channel: 1 });
    expect(p.task.triggered).toEqual([]);
    p.barrier(2, 2);
    expect(p.task.triggered).toEqual([2]);
    expect(p.log).toEqual(['trigger 2', 'resume 0:0', 'resume 0:2']);
  });

  test('testTriggerCheckpointsAfterReceivedEndOfPartition: later checkpoints skip it', () => {
    const p = aligned(3);
    p.endOfPartition(2);
    expect(p.task.aborted).toEqual([]);
    p.barrier(1, 0);
    p.barrier(1, 1);
    expect(p.task.triggered).toEqual([1]);
    p.endOfPartition(0);
    p.barrier(2, 1);
    expect(p.task.triggered).toEqual([1, 2]);
  });

  test('EOP aborts the pending checkpoint when checkpoints after finish are off', () => {
    const p = aligned(3, { afterFinish: false });
    p.barrier(1, 0);
    p.endOfPartition(2);
    expect(p.task.aborted).toEqual([{ id: 1, reason: 'CHECKPOINT_DECLINED_INPUT_END_OF_STREAM' }]);
    expect(p.inputs.blockedChannels()).toEqual([]);
    p.barrier(1, 1);
    p.endOfPartition(1);
    expect(p.task.abortedIds()).toEqual([1]);
    p.barrier(2, 0);
    expect(p.task.triggered).toEqual([2]);
  });

  test('RPC-triggered barriers align without blocking and trigger when all are in', () => {
    const p = aligned(3);
    p.endOfPartition(0);
    p.task.onTrigger = () => expect(p.inputs.blockedChannels()).toEqual([]);
    p.rpcBarrier(3, 1);
    expect(p.handler.isCheckpointPending()).toBe(true);
    p.rpcBarrier(3, 2);
    expect(p.log).toEqual(['trigger 3']);
    // A network barrier of the same id after completion is obsolete and is resumed; a stale
    // RPC barrier is ignored without touching the network.
    p.barrier(3, 1);
    p.rpcBarrier(2, 2);
    expect(p.log).toEqual(['trigger 3', 'resume 0:1']);
  });

  test('channels of several gates are told apart', () => {
    const p = new TestingInputProcessor('EXACTLY_ONCE', { gateSizes: [1, 2] });
    p.barrier(1, 0, 0);
    p.barrier(1, 0, 1);
    expect(p.inputs.blockedChannels()).toEqual(['0:0', '1:0']);
    p.barrier(1, 1, 1);
    expect(p.task.triggered).toEqual([1]);
    expect(p.log.slice(1)).toEqual(['resume 0:0', 'resume 1:0', 'resume 1:1']);
  });

  test('the state machine moves between WaitingForFirstBarrier and CollectingBarriers', () => {
    const task = new TestingCheckpointableTask();
    const inputs = new TestingCheckpointableInputs([2]);
    const h = new SingleCheckpointBarrierHandler({
      task, inputs, taskName: 't', tracer: new TestingTracer(), bugs: { has: () => false },
      checkpointsAfterTasksFinish: true,
    });
    expect(h.getStateName()).toBe('WaitingForFirstBarrier');
    expect(h.getLatestCheckpointId()).toBe(-1);
    inputs.deliverBarrier({ gate: 0, channel: 0 }, true);
    h.processBarrier(barrierOf(1), { gate: 0, channel: 0 }, false);
    expect(h.getStateName()).toBe('CollectingBarriers');
    expect(h.getBlockedChannels()).toEqual([{ gate: 0, channel: 0 }]);
    h.checkInvariants();
    inputs.deliverBarrier({ gate: 0, channel: 1 }, true);
    h.processBarrier(barrierOf(1), { gate: 0, channel: 1 }, false);
    expect(h.getStateName()).toBe('WaitingForFirstBarrier');
    expect(h.getBlockedChannels()).toEqual([]);
  });

  test('rejects unaligned barriers, finished channels, use after close, no channels', () => {
    const p = aligned(2);
    expect(() => p.handler.processBarrier(barrierOf(1, 'UNALIGNED'), { gate: 0, channel: 0 },
      false)).toThrow(/UNALIGNED barrier 1/);
    const q = aligned(2);
    q.endOfPartition(0);
    expect(() => q.handler.processEndOfPartition({ gate: 0, channel: 0 })).toThrow(/ended/);
    q.handler.close();
    q.handler.close();
    expect(() => q.handler.processCancellationBarrier(1, { gate: 0, channel: 1 }))
      .toThrow(/after close/);
    expect(() => new SingleCheckpointBarrierHandler({
      task: new TestingCheckpointableTask(), inputs: new TestingCheckpointableInputs([]),
      taskName: 't', tracer: new TestingTracer(), bugs: { has: () => false },
      checkpointsAfterTasksFinish: true,
    })).toThrow(/needs input channels/);
  });

  test('checkInvariants notices a channel the network no longer blocks', () => {
    const p = aligned(2);
    p.barrier(1, 0);
    // Someone else resumed the channel behind the handler's back.
    p.inputs.resumeConsumption({ gate: 0, channel: 0 });
    expect(() => p.handler.checkInvariants()).toThrow(/network does not block it/);
  });
});

describe(`planted bug ${ALIGNED_RESUME_IMMEDIATELY}`, () => {
  test('resumes each channel right after its barrier, so alignment never blocks', () => {
    const p = aligned(3, { bugs: [ALIGNED_RESUME_IMMEDIATELY] });
    p.barrier(1, 0);
    expect(p.log).toEqual(['resume 0:0']);
    expect(p.inputs.blockedChannels()).toEqual([]);
    // Records behind the barrier now reach the task before the snapshot.
    p.data(0);
    p.barrier(1, 1);
    p.barrier(1, 2);
    expect(p.log).toEqual(['resume 0:0', 'resume 0:1', 'resume 0:2', 'trigger 1']);
  });

  test('without the bug the same sequence blocks channel 0', () => {
    const p = aligned(3);
    p.barrier(1, 0);
    expect(() => p.data(0)).toThrow(/blocked/);
  });
});
