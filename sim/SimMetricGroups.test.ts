import { describe, expect, test } from 'vitest';
import { SimMetricGroups } from './SimMetricGroups.ts';

describe('SimMetricGroups', () => {
  test('a read is found as the latest read of its split and offset at or before a time', () => {
    const m = new SimMetricGroups();
    const first = m.forHost('taskmanager-1').taskIO('v0#0@0');
    first.markRecordRead(3, 0, 100);
    first.markRecordRead(3, 1, 110);
    first.markRecordRead(4, 0, 120);
    first.markRecordRead(3, 2, 130); // back to split 3: consecutive again, same run of reads
    // A restore reads split 3 again from offset 1, on another attempt.
    const again = m.forHost('taskmanager-2').taskIO('v0#1@1');
    again.markRecordRead(3, 1, 900);
    again.markRecordRead(3, 2, 910);
    expect(m.readTimeUs(3, 1, 500)).toBe(110);
    expect(m.readTimeUs(3, 1, 905)).toBe(900);
    expect(m.readTimeUs(3, 2, 905)).toBe(130);
    expect(m.readTimeUs(3, 2, 10_000)).toBe(910);
    expect(m.readTimeUs(3, 0, 99)).toBeUndefined();
    expect(m.readTimeUs(3, 5, 10_000)).toBeUndefined();
    expect(m.readTimeUs(-1, 0, 10_000)).toBeUndefined();
    expect(m.firstReadUs()).toBe(100);
    expect(new SimMetricGroups().firstReadUs()).toBeUndefined();
  });

  test('back-pressured time per task sums attempts; a crash ends its host\'s waits, the run end the rest', () => {
    const m = new SimMetricGroups();
    const a0 = m.forHost('taskmanager-1').taskIO('v0#0@0');
    const b0 = m.forHost('taskmanager-2').taskIO('v1#0@0');
    expect(m.forHost('taskmanager-1').taskIO('v0#0@0')).toBe(a0);
    a0.markBackPressureStart(100);
    a0.markBackPressureStart(150); // already waiting: ignored
    a0.markBackPressureEnd(300);
    a0.markBackPressureEnd(400); // no open wait: ignored
    a0.markBackPressureStart(500);
    b0.markBackPressureStart(520);
    m.hostCrashed('taskmanager-1', 800);
    const a1 = m.forHost('taskmanager-2').taskIO('v0#0@1');
    a1.markBackPressureStart(1000);
    a1.markBackPressureEnd(1050);
    expect([...m.backPressuredUsByTask(2000)]).toEqual([
      ['v0#0', 200 + 300 + 50],
      ['v1#0', 2000 - 520],
    ]);
  });
});
