/**
 * Failover on the simulated cluster (reference 5.1): a global failure goes through RESTARTING,
 * and the restart strategies decide whether and when to restart.
 */
import { describe, expect, test } from 'vitest';
import { twoPhaseCommitSink, type RestartStrategy } from '../../engine/index.ts';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import { flightsJob } from '../../sim/workloads/flights.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

const graph = flightsJob({ selection: { from: 0, to: 3000 }, parallelism: 4, sink: twoPhaseCommitSink('f') });

function statuses(cluster: MiniCluster): string[] {
  return cluster.world.trace.events.filter((e) => e.type === 'job.status').map((e) => String(e.attrs['status']));
}

function crashAndRestart(c: MiniCluster, atUs: number, downUs = 100_000, host = 'taskmanager-1'): void {
  c.world.at(atUs, `crash ${host}`, () => c.world.crash(host));
  c.world.at(atUs + downUs, `restart ${host}`, () => c.world.restart(host));
}

describe('failover', () => {
  test('a global failure goes RUNNING -> RESTARTING -> RUNNING and the job still meets oracle 3', () => {
    const { cluster, result } = runJob(graph, { world: { seed: 'global' } }, (c) => {
      c.world.at(100_000, 'fail globally', () => c.jobManagerProcess.jobMaster.failGlobal('test'));
    });
    expect(statuses(cluster)).toEqual(['RUNNING', 'RESTARTING', 'RUNNING', 'FINISHED']);
    expect(result.jobStatus).toBe('FINISHED');
    expect(judgeExactlyOnce(graph, result).ok).toBe(true);
  });

  test('restart strategy none: the first task failure fails the job', () => {
    const none: RestartStrategy = { kind: 'none' };
    const { cluster, result } = runJob(graph, { world: { seed: 'none' }, config: { restartStrategy: none } },
      (c) => crashAndRestart(c, 100_000));
    expect(result.jobStatus).toBe('FAILED');
    expect(statuses(cluster)).toEqual(['RUNNING', 'FAILED']);
    expect(cluster.world.trace.events.some((e) => e.type === 'scheduler.noMoreRestarts')).toBe(true);
    expect(result.committed).toHaveLength(0);
  });

  test('fixed delay: zero attempts fail at the first failure, enough attempts finish', () => {
    const zero: RestartStrategy = { kind: 'fixed-delay', attempts: 0, delayUs: 10_000 };
    const failed = runJob(graph, { world: { seed: 'fixed' }, config: { restartStrategy: zero } },
      (c) => crashAndRestart(c, 100_000));
    expect(failed.result.jobStatus).toBe('FAILED');
    const ten: RestartStrategy = { kind: 'fixed-delay', attempts: 10, delayUs: 10_000 };
    const ok = runJob(graph, { world: { seed: 'fixed' }, config: { restartStrategy: ten } }, (c) => {
      crashAndRestart(c, 100_000);
      crashAndRestart(c, 400_000, 100_000, 'taskmanager-2');
    });
    expect(ok.result.jobStatus).toBe('FINISHED');
    const restarts = ok.cluster.world.trace.events.filter((e) => e.type === 'scheduler.restarting');
    expect(restarts.length).toBeGreaterThanOrEqual(2);
    expect(restarts.length).toBeLessThanOrEqual(10);
    expect(restarts.every((e) => e.attrs['delayUs'] === 10_000)).toBe(true);
    expect(judgeExactlyOnce(graph, ok.result).ok).toBe(true);
  });

  test('exponential delay grows the backoff between restarts', () => {
    const exp: RestartStrategy = {
      kind: 'exponential-delay', initialDelayUs: 5_000, maxDelayUs: 40_000, multiplier: 2, attempts: Number.POSITIVE_INFINITY,
    };
    const { cluster, result } = runJob(graph, { world: { seed: 'exp' }, config: { restartStrategy: exp } }, (c) => {
      crashAndRestart(c, 100_000, 50_000);
      crashAndRestart(c, 300_000, 50_000, 'taskmanager-2');
      crashAndRestart(c, 500_000, 50_000);
    });
    expect(result.jobStatus).toBe('FINISHED');
    const delays = cluster.world.trace.events.filter((e) => e.type === 'scheduler.restarting').map((e) => Number(e.attrs['delayUs']));
    expect(delays.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] as number);
    expect(delays[delays.length - 1]).toBeGreaterThan(delays[0] as number);
    expect(Math.max(...delays)).toBeLessThanOrEqual(40_000);
  });
});
