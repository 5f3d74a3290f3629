import { describe, expect, test } from 'vitest';
import { AlignmentTimer } from './AlignmentTimer.ts';

describe('AlignmentTimer', () => {
  test('start delay from the trigger, alignment first to last barrier, bytes only while aligning', () => {
    let now = 1_000;
    const t = new AlignmentTimer({ nowUs: () => now });
    t.addProcessedBytes(64); // before the first barrier: not counted
    t.markAlignmentStart(3, 400);
    t.addProcessedBytes(100);
    now = 1_250;
    t.addProcessedBytes(28);
    t.markAlignmentEnd();
    t.addProcessedBytes(999); // after the last barrier: not counted
    expect(t.metrics(3)).toEqual({ checkpointStartDelayUs: 600, alignmentDurationUs: 250, bytesProcessedDuringAlignment: 128 });
  });

  test('a checkpoint other than the one timed last reports zeros (Flink notifyCheckpoint)', () => {
    const t = new AlignmentTimer({ nowUs: () => 50 });
    t.markAlignmentStartAndEnd(5, 10);
    expect(t.metrics(5).checkpointStartDelayUs).toBe(40);
    expect(t.metrics(4)).toEqual({ checkpointStartDelayUs: 0, alignmentDurationUs: 0, bytesProcessedDuringAlignment: 0 });
  });
});
