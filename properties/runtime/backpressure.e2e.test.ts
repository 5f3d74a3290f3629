/**
 * Back pressure through the whole runtime: a slow sink slows the sources (credit-based flow
 * control and bounded buffer pools), while the network buffers stay bounded (the io invariants,
 * checked after every event, assert that no channel holds more than its credit and no pool
 * exceeds its size).
 */
import { expect, test } from 'vitest';
import { twoPhaseCommitSink } from '../../engine/index.ts';
import { flightsJob } from '../../sim/workloads/flights.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

function sourcesFinishUs(sinkCostUs: number): { sourcesDoneUs: number; ok: boolean } {
  const graph = flightsJob({
    selection: { from: 0, to: 1500 },
    parallelism: 2,
    sink: twoPhaseCommitSink('bp'),
    costs: { sourceCostUs: 100, statsCostUs: 10, sinkCostUs },
  });
  const { cluster, result } = runJob(graph, { world: { seed: 'bp', checkInvariants: true } });
  expect(result.jobStatus).toBe('FINISHED');
  const finished = cluster.world.trace.events
    .filter((e) => e.type === 'task.finished' && String(e.attrs['task']).startsWith('v0#'))
    .map((e) => e.timeUs);
  expect(finished).toHaveLength(2);
  return { sourcesDoneUs: Math.max(...finished), ok: judgeExactlyOnce(graph, result).ok };
}

test('a slow sink slows the sources while buffers stay bounded', () => {
  const fast = sourcesFinishUs(10);
  const slow = sourcesFinishUs(2_000);
  expect(fast.ok && slow.ok).toBe(true);
  // 750 records per sink subtask at 2 ms each take 1.5 s; the sources, which alone need about
  // 75 ms, cannot finish much earlier than the sink than the buffers in flight allow.
  expect(fast.sourcesDoneUs).toBeLessThan(200_000);
  expect(slow.sourcesDoneUs).toBeGreaterThan(1_000_000);
});
