/**
 * The flights job end to end on the simulated cluster, without checkpointing: it completes at
 * parallelism 1, 2, 4 and 8 and its committed output and final state meet oracle 3; a
 * TaskManager crash before any commit fails the job over (peers see broken connections at once,
 * slots go at the heartbeat timeout), the TaskManager comes back and the job restarts from the
 * beginning; the aborted transactions leave no output.
 */
import { describe, expect, test } from 'vitest';
import { twoPhaseCommitSink } from '../../engine/index.ts';
import { ALL_FLIGHTS, flightsJob } from '../../sim/workloads/flights.ts';
import { wordcountJob } from '../../sim/workloads/wordcount.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

const sink = twoPhaseCommitSink('flights');

describe('flights job without checkpointing', () => {
  test.each([1, 2, 4, 8])('completes at parallelism %i and meets oracle 3', (p) => {
    const graph = flightsJob({ selection: ALL_FLIGHTS, parallelism: p, sink });
    const { result } = runJob(graph, { world: { seed: `flights-p${p}`, checkInvariants: p === 2 } });
    expect(result.jobStatus).toBe('FINISHED');
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
    expect(result.committed).toHaveLength(20_000);
    if (p === 4) {
      // The cost model: at parallelism 4 the whole file takes about 2 virtual seconds.
      expect(result.jobEndUs).toBeGreaterThan(1_500_000);
      expect(result.jobEndUs).toBeLessThan(3_000_000);
    }
  });

  test('a TaskManager crash before any commit fails over, restarts from the beginning and completes', () => {
    const graph = flightsJob({ selection: { from: 0, to: 4000 }, parallelism: 4, sink });
    const crashAtUs = 150_000;
    const { cluster, result } = runJob(graph, { world: { seed: 'crash-1' } }, (c) => {
      c.world.at(crashAtUs, 'crash tm-1', () => c.world.crash('taskmanager-1'));
      c.world.at(crashAtUs + 100_000, 'restart tm-1', () => c.world.restart('taskmanager-1'));
    });
    expect(result.jobStatus).toBe('FINISHED');
    const events = cluster.world.trace.events;
    const firstFailure = events.find((e) => e.type === 'scheduler.taskFailed');
    const lost = events.find((e) => e.type === 'jm.taskManagerLost');
    expect(firstFailure).toBeDefined();
    expect(lost).toBeDefined();
    // Peers see the broken connections at once: a task fails long before the heartbeat timeout.
    expect((firstFailure?.timeUs ?? 0) - crashAtUs).toBeLessThan(cluster.config.heartbeatTimeoutUs);
    expect(lost?.timeUs).toBeGreaterThanOrEqual(crashAtUs + cluster.config.heartbeatTimeoutUs);
    // The restarted TaskManager registered again and the job was redeployed with new attempts.
    expect(events.filter((e) => e.type === 'te.registered' && e.host === 'taskmanager-1').length).toBe(2);
    expect(events.some((e) => e.type === 'scheduler.deploy' && String(e.attrs['task']).endsWith('@1'))).toBe(true);
    // Without checkpoints nothing was committed before the crash, and the aborted transactions
    // of the dead attempts leave no output: exactly-once still holds.
    expect(cluster.world.transactionalStore.allTransactions().some((t) => t.status === 'aborted')).toBe(true);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('the same seed gives the same trace hash; another seed another interleaving', () => {
    const graph = flightsJob({ selection: { from: 0, to: 2000 }, parallelism: 2, sink });
    const a = runJob(graph, { world: { seed: 'same' } }).result;
    const b = runJob(graph, { world: { seed: 'same' } }).result;
    const c = runJob(graph, { world: { seed: 'other' } }).result;
    expect(a.traceHash).toBe(b.traceHash);
    expect(c.traceHash).not.toBe(a.traceHash);
  });
});

describe('wordcount job (flatMap, keyBy, running counts)', () => {
  test('completes at parallelism 2 and meets oracle 3', () => {
    const graph = wordcountJob({ sink: twoPhaseCommitSink('words'), parallelism: 2 });
    const { result } = runJob(graph, { world: { seed: 'wc' } });
    expect(result.jobStatus).toBe('FINISHED');
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});
