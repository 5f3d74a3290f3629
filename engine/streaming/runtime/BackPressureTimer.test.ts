import { describe, expect, test } from 'vitest';
import { TestingMetricGroups } from '../../testing/TestingMetricGroups.ts';
import { BackPressureTimer } from './BackPressureTimer.ts';

function timer(): { t: BackPressureTimer; group: ReturnType<TestingMetricGroups['taskIO']> } {
  const group = new TestingMetricGroups().taskIO('v0#0@0');
  return { t: new BackPressureTimer(group), group };
}

describe('BackPressureTimer', () => {
  test('a wait runs from the record that found no buffer to the moment a buffer came back', () => {
    const { t, group } = timer();
    t.start(100);
    expect(t.waiting).toBe(true);
    t.start(150); // found no buffer again: the same wait goes on
    t.bufferAvailable(400);
    expect(t.waiting).toBe(false);
    expect(group.waits).toEqual([[100, 400]]);
  });

  test('a listener of an earlier wait, telling of a moment before the open wait, does not end it', () => {
    const { t, group } = timer();
    t.start(100);
    t.bufferAvailable(400);
    t.start(500);
    t.bufferAvailable(400);
    expect(t.waiting).toBe(true);
    t.bufferAvailable(650);
    expect(group.waits).toEqual([[100, 400], [500, 650]]);
  });

  test('stopping the task ends the open wait; with none open, stop and bufferAvailable do nothing', () => {
    const { t, group } = timer();
    t.stop(50);
    t.bufferAvailable(60);
    expect(group.waits).toEqual([]);
    t.start(100);
    t.stop(90); // never before its start
    expect(group.waits).toEqual([[100, 100]]);
    t.start(200);
    t.stop(260);
    expect(group.waits).toEqual([[100, 100], [200, 260]]);
    expect(group.openWaitSinceUs).toBeUndefined();
  });
});
