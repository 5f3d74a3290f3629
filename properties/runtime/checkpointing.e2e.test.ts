/**
 * The checkpoint protocol end to end on the simulated cluster (issue 4, "Done when"): the flights
 * job with checkpoints every 100 ms virtual, aligned and at-least-once, with and without a
 * TaskManager crash; one checkpoint's trace shows every hop in order; and runs stay
 * deterministic with checkpointing on. Faults of the protocol itself (lost notifications,
 * declines, timeouts) are in checkpointFailures.e2e.test.ts; sources and sinks in
 * checkpointSources.e2e.test.ts and checkpointTwoPhaseCommit.e2e.test.ts.
 */
import { describe, expect, test } from 'vitest';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import {
  acknowledgedTasks, checkpointIdOf, checkpointedFlights, jobStatuses, latestCompletedBefore, marksNamed,
  ofType, rpcMessages, taskEvent,
} from './checkpointTrace.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

/** NO_CHECKPOINT, as `checkpoint.restored` reports a restore from nothing. */
const NO_CHECKPOINT = -1;

function crashAndRestart(c: MiniCluster, atUs: number, host = 'taskmanager-1'): void {
  c.world.at(atUs, `crash ${host}`, () => c.world.crash(host));
  c.world.at(atUs + 100_000, `restart ${host}`, () => c.world.restart(host));
}

/**
 * Every restore used the latest checkpoint completed before it (reference 5.1
 * `restoreLatestCheckpointedStateInternal`), and the restarted tasks restored from it (mark
 * `restore-from-checkpoint` with a task). Returns the restored ids.
 */
function expectRestoredFromLatest(cluster: MiniCluster): number[] {
  const restores = ofType(cluster, 'checkpoint.restored');
  expect(restores.length).toBeGreaterThan(0);
  for (const r of restores) {
    expect(checkpointIdOf(r)).not.toBe(NO_CHECKPOINT);
    expect(checkpointIdOf(r), `restore at ${r.timeUs}us`).toBe(latestCompletedBefore(cluster, r.seq));
  }
  const ids = restores.map(checkpointIdOf);
  const taskMarks = marksNamed(cluster, 'restore-from-checkpoint')
    .filter((m) => m.attrs['task'] !== undefined);
  expect(taskMarks.length).toBeGreaterThan(0);
  for (const m of taskMarks) expect(ids).toContain(checkpointIdOf(m));
  return ids;
}

describe('the flights job with aligned checkpoints every 100 ms (reference 2.1-2.5, 3.2, 5.4)', () => {
  test('given no faults, when it runs, then it completes checkpoints, finishes and meets oracle 3', () => {
    const graph = checkpointedFlights();
    const { cluster, result } = runJob(graph, { world: { seed: 'aligned', checkInvariants: true } });
    expect(result.jobStatus).toBe('FINISHED');
    expect(result.completedCheckpoints.length).toBeGreaterThanOrEqual(3);
    expect(ofType(cluster, 'checkpoint.restored')).toHaveLength(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
    // Every commit came from a checkpoint: nothing was committed at the end of input.
    expect(ofType(cluster, 'sink.committed-at-end-of-input')).toHaveLength(0);
  });

  test('given a TaskManager crash after checkpoints completed, when it runs, then it restores '
    + 'from the latest completed checkpoint, finishes and meets oracle 3 (reference 5.1, 5.2)', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 4000 }, parallelism: 4 });
    const { cluster, result } = runJob(graph, { world: { seed: 'aligned-crash' } },
      (c) => crashAndRestart(c, 350_000));
    expect(result.jobStatus).toBe('FINISHED');
    const restored = expectRestoredFromLatest(cluster);
    expect(Math.min(...restored)).toBeGreaterThanOrEqual(1);
    // The restored sinks commit what the restored checkpoint pre-committed (reference 5.4).
    expect(ofType(cluster, 'sink.recover-and-commit').length).toBeGreaterThan(0);
    // Checkpoints keep completing after the restore.
    const lastRestore = ofType(cluster, 'checkpoint.restored').at(-1) as TraceEvent;
    expect(ofType(cluster, 'checkpoint.completed').some((e) => e.seq > lastRestore.seq)).toBe(true);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});

describe('the flights job in at-least-once mode (reference 3.5)', () => {
  test('given no faults, when it runs with the barrier tracker, then it completes checkpoints and '
    + 'is exactly-once', () => {
    const graph = checkpointedFlights({ checkpointing: { mode: 'AT_LEAST_ONCE' } });
    const { cluster, result } = runJob(graph, { world: { seed: 'alo' } });
    expect(result.jobStatus).toBe('FINISHED');
    expect(result.completedCheckpoints.length).toBeGreaterThanOrEqual(3);
    expect(ofType(cluster, 'checkpoint.aligned').length).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('given a TaskManager crash, when it runs, then it restores from the latest completed '
    + 'checkpoint, finishes and loses no record', () => {
    const graph = checkpointedFlights({
      selection: { from: 0, to: 4000 }, parallelism: 4, checkpointing: { mode: 'AT_LEAST_ONCE' },
    });
    const { cluster, result } = runJob(graph, { world: { seed: 'alo-crash' } },
      (c) => crashAndRestart(c, 350_000));
    expect(result.jobStatus).toBe('FINISHED');
    expectRestoredFromLatest(cluster);
    // Duplicates are allowed in this mode (oracle 4 judges them); losses are not.
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.details.missingCount, verdict.summary).toBe(0);
  });
});

describe('a trace of one checkpoint (issue 4; reference 1.4, 1.7, 1.9, 2.1-2.4)', () => {
  test('given a run without faults, when checkpoint 2 is read from the trace, then every hop is '
    + 'there, in order, with its RPC messages in between', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 2000 } });
    const { cluster, result } = runJob(graph, { world: { seed: 'hops' } });
    expect(result.jobStatus).toBe('FINISHED');
    const id = 2;
    const one = (type: string): TraceEvent => {
      const found = ofType(cluster, type, id);
      expect(found, type).toHaveLength(1);
      return found[0] as TraceEvent;
    };
    const triggered = one('checkpoint.triggered');
    const snapshotted = one('checkpoint.coordinatorsSnapshotted');
    const completed = one('checkpoint.completed');
    const notified = one('checkpoint.notifiedComplete');
    expect(triggered.host).toBe('jobmanager');
    expect(triggered.seq).toBeLessThan(snapshotted.seq);

    // JM -> TM: triggerSent, then the 'trigger' RPC, delivered before the task is triggered.
    const triggerSends = ofType(cluster, 'checkpoint.triggerSent', id);
    expect(triggerSends).toHaveLength(2);
    const triggerRpcs = rpcMessages(cluster, 'trigger');
    for (const sent of triggerSends) {
      expect(sent.seq).toBeGreaterThan(snapshotted.seq);
      const task = String(sent.attrs['task']);
      const rpc = triggerRpcs.find((m) => m.send.seq > sent.seq);
      expect(rpc?.method).toBe('triggerCheckpoint');
      expect(rpc?.deliver).toBeDefined();
      const taskTriggered = taskEvent(cluster, 'checkpoint.taskTriggered', id, task);
      expect(rpc?.deliver?.seq).toBeLessThan(taskTriggered.seq);
      expect(taskTriggered.seq).toBeLessThan(taskEvent(cluster, 'checkpoint.barrierSent', id, task).seq);
    }

    // Every task: barrier, sync part, async part, the 'ack' RPC, acknowledged at the JM.
    const tasks = acknowledgedTasks(cluster, id);
    expect(tasks).toHaveLength(4);
    const ackRpcs = rpcMessages(cluster, 'ack');
    for (const task of tasks) {
      const hops = ['checkpoint.barrierSent', 'checkpoint.syncDone', 'checkpoint.asyncDone',
        'checkpoint.acked', 'checkpoint.acknowledged'].map((type) => taskEvent(cluster, type, id, task));
      const seqs = hops.map((e) => e.seq);
      expect(seqs, task).toEqual([...seqs].sort((a, b) => a - b));
      const [asyncDone, acked, acknowledged] = hops.slice(2) as [TraceEvent, TraceEvent, TraceEvent];
      const ack = ackRpcs.find((m) => m.send.seq > asyncDone.seq && m.send.seq < acked.seq);
      expect(ack?.method, task).toBe('acknowledgeCheckpoint');
      expect(ack?.deliver?.seq).toBeLessThan(acknowledged.seq);
      expect(acknowledged.seq).toBeLessThan(completed.seq);
      expect(acknowledged.host).toBe('jobmanager');
    }

    // JM -> TM: completed, the 'notifyComplete' RPCs, notifiedComplete, then every task notified.
    expect(completed.seq).toBeLessThan(notified.seq);
    const notifyRpcs = rpcMessages(cluster, 'notifyComplete')
      .filter((m) => m.send.seq > completed.seq && m.send.seq < notified.seq);
    expect(notifyRpcs).toHaveLength(tasks.length);
    expect(notifyRpcs.every((m) => m.method === 'confirmCheckpoint' && m.deliver !== undefined)).toBe(true);
    const firstDelivery = Math.min(...notifyRpcs.map((m) => m.deliver?.seq ?? Infinity));
    for (const task of tasks) {
      expect(taskEvent(cluster, 'checkpoint.taskNotified', id, task).seq).toBeGreaterThan(firstDelivery);
    }
  });
});

describe('determinism with checkpointing on', () => {
  test('given the same seed and a crash, when the job runs twice, then the trace hashes are equal', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 2000 } });
    const run = (seed: string): { hash: string; completed: number[]; statuses: string[] } => {
      const { cluster, result } = runJob(graph, { world: { seed } }, (c) => crashAndRestart(c, 250_000));
      return {
        hash: result.traceHash,
        completed: result.completedCheckpoints.map((c) => c.checkpointId),
        statuses: jobStatuses(cluster),
      };
    };
    const a = run('same');
    const b = run('same');
    expect(a.completed.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(run('other').hash).not.toBe(a.hash);
  });
});
