/**
 * Issue 14's "durations consistent": over explore-style runs, every subtask of every completed
 * checkpoint measured start delay + alignment + sync + async within the checkpoint's end-to-end
 * duration (virtual µs), and checkpoints of jobs with state report their bytes. The statistics
 * are no oracle; this checks that the task side measures what Flink's names say.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { simulate } from '../sim/run/simulate.ts';
import type { CheckpointStatsResult } from '../sim/run/RunResult.ts';
import { runSpecArbitrary, type ExploreJob } from './arbitraries/runSpecArbitrary.ts';
import type { RunMode } from '../sim/run/RunSpec.ts';

/** ms at the edge back to the engine's integer µs. */
const us = (ms: number): number => Math.round(ms * 1000);

/** The first inconsistency in `stats`, or undefined; counts what it checked. */
interface Seen { subtasks: number; aligned: number; completed: number; processed: number }

function inconsistency(stats: CheckpointStatsResult, seen: Seen): string | undefined {
  for (const c of stats.checkpoints) {
    if (c.status !== 'COMPLETED') continue;
    seen.completed++;
    if (c.endToEndMs === undefined) return `checkpoint ${c.id}: completed without an end-to-end duration`;
    if (c.acknowledged !== c.total) return `checkpoint ${c.id}: completed with ${c.acknowledged}/${c.total} acks`;
    const e2e = us(c.endToEndMs);
    for (const s of c.subtasks) {
      seen.subtasks++;
      if (s.alignmentMs > 0) seen.aligned++;
      if (s.processedDataBytes > 0) seen.processed++;
      if (s.processedDataBytes > 0 && s.alignmentMs === 0) return `checkpoint ${c.id} ${s.task}: bytes processed without an alignment`;
      const sum = us(s.startDelayMs) + us(s.alignmentMs) + us(s.syncMs) + us(s.asyncMs);
      if (sum > e2e) return `checkpoint ${c.id} ${s.task}: delay+alignment+sync+async ${sum} µs > end-to-end ${e2e} µs`;
      if (us(s.endToEndMs) > e2e) return `checkpoint ${c.id} ${s.task}: subtask end-to-end beyond the checkpoint's`;
    }
    // Every job the arbitrary draws keeps keyed or sink state in some operator.
    if (c.checkpointedSizeBytes <= 0 || c.fullSizeBytes !== c.checkpointedSizeBytes) {
      return `checkpoint ${c.id}: checkpointed ${c.checkpointedSizeBytes} B, full ${c.fullSizeBytes} B`;
    }
  }
  return undefined;
}

describe('checkpoint statistics over explore runs', () => {
  const cases: readonly (readonly [ExploreJob, RunMode])[] = [
    ['flights', 'aligned'], ['wordcount', 'at-least-once'], ['generated', 'aligned'],
  ];
  test.each(cases)('%s %s: start delay + alignment + sync + async <= end-to-end; sizes > 0', (job, mode) => {
    const seen: Seen = { subtasks: 0, aligned: 0, completed: 0, processed: 0 };
    fc.assert(fc.property(runSpecArbitrary({ job, mode, maxRecords: 60 }), (spec) => {
      const r = simulate(spec);
      const bad = inconsistency(r.checkpointStats, seen);
      if (bad !== undefined) throw new Error(`seed ${spec.seed}: ${bad}`);
      // The counts agree with the history and the RunResult's own checkpoint list.
      expect(r.checkpointStats.counts.completed).toBe(r.checkpointStats.checkpoints.filter((c) => c.status === 'COMPLETED').length);
      // checkpointStats are the latest job run's (a rescale starts another): its triggers only.
      const latest = r.jobRuns.length;
      const triggered = r.trace.filter((e) => e.type === 'checkpoint.triggered' && (e.attrs['jobRun'] ?? 1) === latest).length;
      expect(r.checkpointStats.checkpoints.length).toBe(triggered);
    }), { seed: 14, numRuns: 20 });
    // The property must have had something to check.
    expect(seen.completed).toBeGreaterThan(0);
    expect(seen.subtasks).toBeGreaterThan(seen.completed);
    expect(seen.aligned).toBeGreaterThan(0);
    // Unblocked channels keep delivering while others wait for their barrier (seed 14: 13 and 177
    // subtasks; the drawn generated jobs happen to have none).
    if (job !== 'generated') expect(seen.processed).toBeGreaterThan(0);
  });

  test('the check fails on a subtask whose parts exceed the end-to-end duration', () => {
    const sub = {
      task: 'v1#0@0', ackTimeMs: 5, endToEndMs: 4, syncMs: 0, asyncMs: 2, alignmentMs: 1, startDelayMs: 1.001,
      checkpointedSizeBytes: 1, fullSizeBytes: 1, processedDataBytes: 0, persistedDataBytes: 0,
    };
    const stats: CheckpointStatsResult = {
      checkpoints: [{
        id: 1, type: 'CHECKPOINT', status: 'COMPLETED', triggerTimeMs: 1, latestAckTimeMs: 5, acknowledged: 1, total: 1,
        endToEndMs: 4, checkpointedSizeBytes: 1, fullSizeBytes: 1, processedDataBytes: 0, persistedDataBytes: 0, subtasks: [sub],
      }],
      counts: { inProgress: 0, completed: 1, failed: 0 },
      restores: [],
    };
    expect(inconsistency(stats, { subtasks: 0, aligned: 0, completed: 0, processed: 0 })).toMatch(/4001 µs > end-to-end 4000 µs/);
  });
});
