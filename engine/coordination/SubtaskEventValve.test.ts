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

  test('markForCheckpoint: an id not above every marked one is "Regressing checkpoint IDs"; '
    + 'an open for an id never marked is refused, one no longer marked ignored', () => {
    const { v } = valve();
    // A fresh gateway has seen no checkpoint: Flink throws "Trying to open gateway for unseen checkpoint".
    expect(v.openGatewayAndUnmarkCheckpoint(1)).toBe(false);
    v.markForCheckpoint(3);
    expect(() => v.markForCheckpoint(2)).toThrow(/Regressing checkpoint IDs/);
    expect(() => v.markForCheckpoint(3)).toThrow(/Regressing checkpoint IDs/);
    expect(v.openGatewayAndUnmarkCheckpoint(1)).toBe(true);
    expect(v.openGatewayAndUnmarkCheckpoint(4)).toBe(false);
    expect(v.tryCloseGateway(7)).toBe(false);
    // Once opened, 3 is no longer marked: it cannot close again, and opening it again is ignored.
    expect(v.openGatewayAndUnmarkCheckpoint(3)).toBe(true);
    expect(v.tryCloseGateway(3)).toBe(false);
    expect(v.openGatewayAndUnmarkCheckpoint(3)).toBe(true);
    v.checkInvariants();
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

  test('openGatewayAndUnmarkLastCheckpointIfAny reopens the most recent marked checkpoint', () => {
    const { v, events } = valve();
    v.openGatewayAndUnmarkLastCheckpointIfAny();
    v.markForCheckpoint(5);
    v.tryCloseGateway(5);
    v.sendEvent('x');
    v.openGatewayAndUnmarkLastCheckpointIfAny();
    expect(events()).toEqual(['x']);
    v.checkInvariants();
  });

  test('openGatewayAndUnmarkAllCheckpoint sends every held event, by checkpoint then in order, '
    + 'and unmarks everything; the latest attempted id stays', () => {
    const { v, events } = valve();
    v.markForCheckpoint(5);
    v.tryCloseGateway(5);
    v.sendEvent('after-5');
    v.markForCheckpoint(6);
    v.tryCloseGateway(6);
    v.sendEvent('after-6a');
    v.sendEvent('after-6b');
    v.markForCheckpoint(7);
    v.openGatewayAndUnmarkAllCheckpoint();
    expect(events()).toEqual(['after-5', 'after-6a', 'after-6b']);
    expect(v.heldCount).toBe(0);
    v.sendEvent('open');
    expect(events().at(-1)).toBe('open');
    expect(v.tryCloseGateway(7)).toBe(false);
    expect(v.latestAttemptedCheckpointId).toBe(7);
    expect(() => v.markForCheckpoint(7)).toThrow(/Regressing/);
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
