import { describe, expect, test } from 'vitest';
import { CompletableFuture } from '../util/CompletableFuture.ts';
import { SubtaskEventValve } from './SubtaskEventValve.ts';

function valve() {
  const sent: { event: unknown; ack: CompletableFuture<void> }[] = [];
  const held: number[] = [];
  const v = new SubtaskEventValve(0, (event) => {
    const ack = new CompletableFuture<void>();
    sent.push({ event, ack });
    return ack;
  }, (id) => held.push(id));
  return { v, sent, held, events: () => sent.map((s) => s.event) };
}

describe('SubtaskEventValve (reference 1.6, the event valve)', () => {
  test('events after the coordinator snapshot are held until the subtask acknowledges the checkpoint', () => {
    const { v, events, held } = valve();
    v.sendEvent('before');
    v.markForCheckpoint(1);
    v.sendEvent('marked-but-open');
    v.tryCloseGateway(1);
    v.sendEvent('after-1');
    v.sendEvent('after-2');
    expect(events()).toEqual(['before', 'marked-but-open']);
    expect(held).toEqual([1, 1]);
    v.openGatewayAndUnmarkCheckpoint(1);
    expect(events()).toEqual(['before', 'marked-but-open', 'after-1', 'after-2']);
  });

  test('overlapping checkpoints: events held under a later id wait for an earlier closed one', () => {
    const { v, events } = valve();
    v.markForCheckpoint(1);
    v.tryCloseGateway(1);
    v.sendEvent('after-1');
    v.markForCheckpoint(2);
    v.tryCloseGateway(2);
    v.sendEvent('after-2');
    v.openGatewayAndUnmarkCheckpoint(2);
    expect(events()).toEqual([]);
    v.openGatewayAndUnmarkCheckpoint(1);
    expect(events()).toEqual(['after-1', 'after-2']);
  });

  test('regressing ids throw; unknown ids are ignored; an id above every marked one throws', () => {
    const { v } = valve();
    v.markForCheckpoint(3);
    expect(() => v.markForCheckpoint(2)).toThrow(/Regressing checkpoint IDs/);
    expect(() => v.openGatewayAndUnmarkCheckpoint(1)).not.toThrow();
    expect(() => v.openGatewayAndUnmarkCheckpoint(4)).toThrow(/above the latest marked/);
    expect(v.tryCloseGateway(7)).toBe(false);
  });

  test('events in flight: done only when every sent event was accepted, failed if one was lost', () => {
    const { v, sent } = valve();
    v.sendEvent('a');
    v.sendEvent('b');
    const done = v.eventsInFlightDone();
    expect(done.isDone()).toBe(false);
    sent[0]?.ack.complete(undefined);
    sent[1]?.ack.completeExceptionally(new Error('lost'));
    expect(done.isCompletedExceptionally()).toBe(true);
  });

  test('openLatest reopens the most recent marked checkpoint; reset drops held events', () => {
    const { v, events } = valve();
    v.markForCheckpoint(5);
    v.tryCloseGateway(5);
    const r = v.sendEvent('x');
    v.openLatest();
    expect(events()).toEqual(['x']);
    v.markForCheckpoint(6);
    v.tryCloseGateway(6);
    const dropped = v.sendEvent('y');
    expect(v.heldCount).toBe(1);
    v.reset();
    expect(dropped.isCompletedExceptionally()).toBe(true);
    expect(v.heldCount).toBe(0);
    expect(r.isDone()).toBe(false);
    v.checkInvariants();
  });

  test('overlapping checkpoints: checkpoint c waits for events held under c-1 (sent before its snapshot)', () => {
    const { v, sent } = valve();
    v.markForCheckpoint(5);
    v.tryCloseGateway(5);
    v.sendEvent('assigned-between-5-and-6');
    v.markForCheckpoint(6);
    v.tryCloseGateway(6);
    const done6 = v.eventsInFlightDone();
    expect(done6.isDone()).toBe(false);
    v.openGatewayAndUnmarkCheckpoint(5);
    sent[0]?.ack.complete(undefined);
    expect(done6.isDone()).toBe(true);
    expect(done6.isCompletedExceptionally()).toBe(false);
  });
});
