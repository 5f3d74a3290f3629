/**
 * Checkpoint failures end to end: lost completion notifications (reference 5.5), declines from a
 * failing asynchronous part (2.4, 1.7, 1.11) and expiry (1.8). Each fault lasts until the heal
 * time; the job must then complete checkpoints, finish, and still meet oracle 3.
 */
import { describe, expect, test } from 'vitest';
import type { DelayDistribution } from '../../engine/api/index.ts';
import {
  checkpointIdOf, checkpointedFlights, jobStatuses, marksNamed, ofType, rpcMessages,
} from './checkpointTrace.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

const RPC_LATENCY: DelayDistribution = { minUs: 100, medianUs: 500, maxUs: 2_000 };
const STORE_LATENCY: DelayDistribution = { minUs: 500, medianUs: 2_000, maxUs: 10_000 };

describe('lost completion notifications (reference 5.5, 5.4, 5.7)', () => {
  test.each([
    ['before the sources end', 500_000],
    ['after the sources end', 1_000_000],
  ])('given every notifyComplete lost until a heal %s, when the job runs, then the sinks commit on '
    + 'a later notification, tasks finish only after the heal, and it meets oracle 3', (_when, healUs) => {
    const graph = checkpointedFlights();
    const { cluster, result } = runJob(graph, {
      world: {
        seed: `lost-notify-${healUs}`, healTimeUs: healUs,
        rpc: { defaultLatency: RPC_LATENCY, lossByKind: { notifyComplete: 1 } },
      },
    });
    expect(result.jobStatus).toBe('FINISHED');
    // Completions kept happening while every notification was lost.
    const before = ofType(cluster, 'checkpoint.completed').filter((e) => e.timeUs < healUs);
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(ofType(cluster, 'checkpoint.taskNotified').every((e) => e.timeUs >= healUs)).toBe(true);
    // Nothing was committed before the heal; the first notification after it commits every
    // pending transaction up to its id (reference 5.4 notifyCheckpointComplete).
    const commits = ofType(cluster, 'sink.committed');
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.every((e) => e.timeUs >= healUs)).toBe(true);
    expect(commits.some((e) => Number(e.attrs['checkpoint']) < Number(e.attrs['notified']))).toBe(true);
    // A task saw a newer completion without the older ones (the mark the task side sets).
    expect(marksNamed(cluster, 'notify-complete-skipped').length).toBeGreaterThan(0);
    // No task finished before its final checkpoint was notified, so none before the heal.
    expect(ofType(cluster, 'task.finished').every((e) => e.timeUs >= healUs)).toBe(true);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('given every notifyComplete lost for the whole run and a flaky store, when checkpoints '
    + 'complete and others abort, then the abort notifications catch the tasks up on the lost '
    + 'completions (reference 2.2), the sinks commit and the job finishes and meets oracle 3', () => {
    const healUs = 3_000_000;
    const graph = checkpointedFlights({ checkpointing: { tolerableFailures: 1000 } });
    const { cluster, result } = runJob(graph, {
      world: {
        seed: 'catch-up', healTimeUs: healUs,
        objectStore: { latency: STORE_LATENCY, failProbability: 0.1 },
        rpc: { defaultLatency: RPC_LATENCY, lossByKind: { notifyComplete: 1 } },
      },
    });
    expect(result.jobStatus).toBe('FINISHED');
    expect(result.jobEndUs).toBeLessThan(healUs);
    expect(rpcMessages(cluster, 'notifyComplete').every((m) => m.deliver === undefined)).toBe(true);
    expect(rpcMessages(cluster, 'notifyAborted').some((m) => m.deliver !== undefined)).toBe(true);
    expect(marksNamed(cluster, 'checkpoint-declined').length).toBeGreaterThan(0);
    // Each task learned of completions only from the latest completed id an abort carried.
    expect(ofType(cluster, 'checkpoint.taskNotified').length).toBeGreaterThan(0);
    expect(ofType(cluster, 'sink.committed').length).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});

describe('a failing asynchronous part (reference 2.4, 1.7, 1.11, 5.1)', () => {
  test('given object store writes failing until the heal and no tolerable failures, when the job '
    + 'runs, then checkpoints are declined, the job fails over globally, and after the heal it '
    + 'completes checkpoints and meets oracle 3', () => {
    const healUs = 400_000;
    const graph = checkpointedFlights({ checkpointing: { tolerableFailures: 0 } });
    const { cluster, result } = runJob(graph, {
      world: {
        seed: 'async-fail', healTimeUs: healUs,
        objectStore: { latency: STORE_LATENCY, failProbability: 1 },
      },
    });
    expect(result.jobStatus).toBe('FINISHED');
    const declines = marksNamed(cluster, 'checkpoint-declined');
    expect(declines.length).toBeGreaterThan(0);
    const reasons = new Set(ofType(cluster, 'checkpoint.declined').map((d) => d.attrs['reason']));
    expect(reasons).toContain('CHECKPOINT_ASYNC_EXCEPTION');
    // The decline is counted; with 0 tolerable failures the first one fails the job over.
    expect(ofType(cluster, 'checkpoint.tolerableFailuresExceeded').length).toBeGreaterThan(0);
    expect(jobStatuses(cluster)).toContain('RESTARTING');
    expect(ofType(cluster, 'scheduler.restarting').some((e) => e.attrs['global'] === true)).toBe(true);
    // Nothing completed while the store failed; checkpoints complete after the heal.
    expect(result.completedCheckpoints.every((c) => c.completionTimestampUs >= healUs)).toBe(true);
    expect(result.completedCheckpoints.length).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});

describe('checkpoint timeout (reference 1.8, 1.11)', () => {
  test('given a very slow object store until the heal and tolerated failures, when the job runs, '
    + 'then pending checkpoints expire without a failover, and after the heal checkpoints complete '
    + 'and the job meets oracle 3', () => {
    const healUs = 600_000;
    const graph = checkpointedFlights({ checkpointing: { timeoutMs: 200, tolerableFailures: 100 } });
    const { cluster, result } = runJob(graph, {
      world: {
        seed: 'expire', healTimeUs: healUs, objectStore: { latency: STORE_LATENCY, slowFactor: 500 },
      },
    });
    expect(result.jobStatus).toBe('FINISHED');
    const expired = marksNamed(cluster, 'checkpoint-expired');
    expect(expired.length).toBeGreaterThanOrEqual(1);
    for (const m of expired) {
      const aborted = ofType(cluster, 'checkpoint.aborted', checkpointIdOf(m));
      expect(aborted.map((e) => e.attrs['reason'])).toEqual(['CHECKPOINT_EXPIRED']);
    }
    // Expiry counts (reference 1.11), but below the tolerable number nothing fails over.
    expect(ofType(cluster, 'checkpoint.failureCounted').length).toBe(expired.length);
    expect(jobStatuses(cluster)).toEqual(['RUNNING', 'FINISHED']);
    expect(result.completedCheckpoints.length).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('given a very slow object store and no tolerable failures, when a checkpoint expires, then '
    + 'the job fails over globally and still meets oracle 3', () => {
    const healUs = 600_000;
    const graph = checkpointedFlights({ checkpointing: { timeoutMs: 200 } });
    const { cluster, result } = runJob(graph, {
      world: {
        seed: 'expire-failover', healTimeUs: healUs,
        objectStore: { latency: STORE_LATENCY, slowFactor: 500 },
      },
    });
    expect(result.jobStatus).toBe('FINISHED');
    expect(marksNamed(cluster, 'checkpoint-expired').length).toBeGreaterThanOrEqual(1);
    expect(jobStatuses(cluster)).toContain('RESTARTING');
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});

describe('a TaskManager that misses heartbeats while alive (reference 5.1)', () => {
  // A regression test: a short partition between the JobManager host and a live TaskManager
  // times out both heartbeats. The TaskExecutor must learn it was disconnected (Flink's
  // disconnectJobManager / disconnectResourceManager), free its slots, register and offer them
  // again; before that it kept running its old tasks and the restart waited for slots forever.
  test('given a 40 ms partition between the JobManager and a TaskManager, when the job runs, '
    + 'then it fails over, gets the slots back and finishes', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 2000 } });
    const { result } = runJob(graph, { world: { seed: 'hb', budgets: { maxTimeUs: 5_000_000 } } }, (c) => {
      c.world.at(100_000, 'cut', () => c.world.partition('jobmanager', 'taskmanager-1'));
      c.world.at(140_000, 'heal', () => c.world.healPartition('jobmanager', 'taskmanager-1'));
    });
    expect(result.jobStatus).toBe('FINISHED');
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});
