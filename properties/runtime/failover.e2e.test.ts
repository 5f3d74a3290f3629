/**
 * Failover on the simulated cluster (reference 1.2, 5.1): every failover, regional or global,
 * goes through RESTARTING, which stops periodic checkpoints at failure time, and the restart
 * strategies decide whether and when to restart.
 */
import { describe, expect, test } from 'vitest';
import { twoPhaseCommitSink, type RestartStrategy } from '../../engine/index.ts';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import { flightsJob } from '../../sim/workloads/flights.ts';
import { checkpointedFlights, ofType } from './checkpointTrace.ts';
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

  test('a region failover moves the job RUNNING -> RESTARTING when its vertices become restart-pending '
    + 'and back to RUNNING once none waits (DefaultScheduler.addVerticesToRestartPending, '
    + 'removeVerticesFromRestartPending)', () => {
    const { cluster, result } = runJob(graph, { world: { seed: 'region' } }, (c) => crashAndRestart(c, 100_000));
    const restarting = ofType(cluster, 'scheduler.restarting');
    expect(restarting.length).toBeGreaterThan(0);
    expect(restarting.every((e) => e.attrs['global'] === false)).toBe(true);
    // One round in these runs: the restart waits for the crashed TaskManager's attempts, which end
    // when it is declared lost and its slots leave the pool, so nothing is deployed to it. The
    // check loops over rounds, so a schedule with a second failure during the restart still fits.
    expect(statuses(cluster).join(' ')).toMatch(/^RUNNING (RESTARTING RUNNING )+FINISHED$/);
    const changes = ofType(cluster, 'job.status');
    for (let i = 1; i + 1 < changes.length; i += 2) {
      const [toRestarting, toRunning] = [changes[i], changes[i + 1]];
      // RESTARTING at a failure; RUNNING when the region restarts, after the backoff and before
      // its new attempts are deployed (the deploys wait for slots).
      const first = restarting.find((e) => e.seq > (changes[i - 1]?.seq ?? 0));
      expect(first?.timeUs).toBe(toRestarting?.timeUs);
      const last = restarting.filter((e) => e.seq < (toRunning?.seq ?? 0)).pop();
      expect(toRunning?.timeUs).toBeGreaterThanOrEqual((last?.timeUs ?? 0) + Number(last?.attrs['delayUs']));
      const deploys = ofType(cluster, 'scheduler.deploy');
      expect(deploys.some((e) => e.seq > (toRestarting?.seq ?? 0) && e.seq < (toRunning?.seq ?? 0))).toBe(false);
      expect(deploys.some((e) => e.seq > (toRunning?.seq ?? 0))).toBe(true);
    }
    expect(judgeExactlyOnce(graph, result).ok).toBe(true);
  });

  test('a failure that arrives while RESTARTING keeps the job RESTARTING: it goes RUNNING only once '
    + 'no vertex waits for its restart (DefaultScheduler.removeVerticesFromRestartPending)', () => {
    const slow: RestartStrategy = { kind: 'fixed-delay', attempts: 10, delayUs: 50_000 };
    const { cluster, result } = runJob(graph, { world: { seed: 'while-restarting' }, config: { restartStrategy: slow } }, (c) => {
      crashAndRestart(c, 100_000);
      c.world.at(120_000, 'fail globally', () => c.jobManagerProcess.jobMaster.failGlobal('test'));
    });
    const global = ofType(cluster, 'scheduler.globalFailure');
    expect(global).toHaveLength(1);
    const [, toRestarting, toRunning] = ofType(cluster, 'job.status');
    expect(toRestarting?.timeUs).toBeLessThan(global[0]?.timeUs ?? 0);
    expect(toRunning?.timeUs).toBeGreaterThanOrEqual((global[0]?.timeUs ?? 0) + 50_000);
    expect(statuses(cluster)).toEqual(['RUNNING', 'RESTARTING', 'RUNNING', 'FINISHED']);
    expect(judgeExactlyOnce(graph, result).ok).toBe(true);
  });

  test('a region failover stops periodic checkpoints at failure time: the pending checkpoint is aborted '
    + 'with CHECKPOINT_COORDINATOR_SUSPEND when the job goes RESTARTING, none is triggered until it is '
    + 'RUNNING again (CheckpointCoordinatorDeActivator, CheckpointCoordinator.stopCheckpointScheduler)', () => {
    const cpGraph = checkpointedFlights({ parallelism: 4 });
    const { cluster, result } = runJob(cpGraph, { world: { seed: 'suspend' } }, (c) => {
      c.world.onTrace((e) => e.type === 'checkpoint.acknowledged' && e.attrs['checkpointId'] === 2, () => {
        c.world.crash('taskmanager-1');
        c.world.at(c.world.nowUs + 100_000, 'restart taskmanager-1', () => c.world.restart('taskmanager-1'));
      }, { once: true });
    });
    expect(ofType(cluster, 'scheduler.restarting').every((e) => e.attrs['global'] === false)).toBe(true);
    const [, toRestarting, toRunning] = ofType(cluster, 'job.status');
    expect(toRestarting?.attrs['status']).toBe('RESTARTING');
    const aborted = ofType(cluster, 'checkpoint.aborted', 2);
    expect(aborted.map((e) => e.attrs['reason'])).toEqual(['CHECKPOINT_COORDINATOR_SUSPEND']);
    expect(aborted[0]?.timeUs).toBe(toRestarting?.timeUs);
    const triggered = ofType(cluster, 'checkpoint.triggered');
    expect(triggered.filter((e) => e.seq > (toRestarting?.seq ?? 0) && e.seq < (toRunning?.seq ?? 0))).toEqual([]);
    expect(triggered.some((e) => e.seq > (toRunning?.seq ?? 0))).toBe(true);
    expect(result.jobStatus).toBe('FINISHED');
    expect(judgeExactlyOnce(cpGraph, result).ok).toBe(true);
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

  test('a job whose restarts run out while a restart is pending stays FAILED: the pending restart deploys nothing', () => {
    const once: RestartStrategy = { kind: 'fixed-delay', attempts: 1, delayUs: 50_000 };
    const { cluster, result } = runJob(graph, { world: { seed: 'out-while-pending' }, config: { restartStrategy: once } }, (c) => {
      c.world.at(30_000, 'fail globally', () => c.jobManagerProcess.jobMaster.failGlobal('first'));
      c.world.at(40_000, 'fail globally again', () => c.jobManagerProcess.jobMaster.failGlobal('second'));
    });
    expect(result.jobStatus).toBe('FAILED');
    expect(statuses(cluster)).toEqual(['RUNNING', 'RESTARTING', 'FAILED']);
    const failed = ofType(cluster, 'job.status').find((e) => e.attrs['status'] === 'FAILED');
    expect(ofType(cluster, 'scheduler.deploy').filter((e) => e.seq > (failed?.seq ?? Infinity))).toEqual([]);
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
