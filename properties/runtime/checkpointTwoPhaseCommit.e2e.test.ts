/**
 * The two-phase-commit sink under checkpointing, end to end (reference 5.4, 5.2; section 7 items
 * 40 and 41): committed output grows only when a completed checkpoint is notified to the sink,
 * and a failure between a completion and its notification is recovered by committing the
 * restored pre-committed transactions.
 */
import { describe, expect, test } from 'vitest';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { checkpointIdOf, checkpointedFlights, events, ofType, rpcMessages } from './checkpointTrace.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

/**
 * Every commit at the transactional store (`txn.commit`) is made by the sink right then, either on
 * a completion notification for a checkpoint that completed earlier (`sink.committed`, only
 * transactions pre-committed for checkpoints up to the notified id) or on restore from a
 * checkpoint that completed earlier (`sink.recover-and-commit`). Returns the two counts.
 */
function expectCommitsFollowCompletions(
  cluster: MiniCluster,
): { notified: number; recovered: number } {
  const all = events(cluster);
  const completedAt = new Map<number, number>();
  for (const e of ofType(cluster, 'checkpoint.completed')) completedAt.set(checkpointIdOf(e), e.seq);
  const lastNotified = new Map<string, number>();
  let notified = 0;
  let recovered = 0;
  for (const [i, e] of all.entries()) {
    if (e.type === 'checkpoint.taskNotified') {
      lastNotified.set(`${e.host} ${String(e.attrs['checkpointId'])}`, e.seq);
    }
    if (e.type !== 'txn.commit') continue;
    const by = all[i + 1] as TraceEvent;
    if (by.type === 'sink.committed') {
      const n = Number(by.attrs['notified']);
      expect(Number(by.attrs['checkpoint'])).toBeLessThanOrEqual(n);
      expect(completedAt.get(n), `checkpoint ${n} completed before the commit at ${e.seq}`)
        .toBeLessThan(e.seq);
      expect(lastNotified.has(`${by.host} ${n}`), `the notification of ${n} behind the commit at ${e.seq}`)
        .toBe(true);
      notified++;
    } else {
      expect(by.type, `what made the commit at ${e.seq}`).toBe('sink.recover-and-commit');
      const c = Number(by.attrs['checkpoint']);
      expect(completedAt.get(c)).toBeLessThan(e.seq);
      recovered++;
    }
  }
  return { notified, recovered };
}

describe('two-phase commit with checkpoints (reference 5.4)', () => {
  test('given a run without faults, when checkpoints complete, then committed output grows only '
    + 'at completion notifications, and commits cover every pending transaction up to the id', () => {
    const graph = checkpointedFlights();
    const { cluster, result } = runJob(graph, { world: { seed: '2pc' } });
    expect(result.jobStatus).toBe('FINISHED');
    const { notified, recovered } = expectCommitsFollowCompletions(cluster);
    expect(notified).toBeGreaterThan(0);
    expect(recovered).toBe(0);
    // Each transaction was pre-committed by the snapshot of the checkpoint that commits it.
    for (const c of ofType(cluster, 'sink.committed')) {
      const pre = ofType(cluster, 'sink.pre-committed').find((p) => p.attrs['task'] === c.attrs['task']
        && p.attrs['epoch'] === c.attrs['epoch'] && p.attrs['attempt'] === c.attrs['attempt']);
      expect(pre?.attrs['checkpoint']).toBe(c.attrs['checkpoint']);
      expect(pre?.seq).toBeLessThan(c.seq);
    }
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('given a TaskManager crash right after a checkpoint completed, before its notifications '
    + 'arrive, when the job recovers, then the restored sinks commit that checkpoint\'s '
    + 'pre-committed transactions and the job meets oracle 3 (section 7 item 41)', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 4000 }, parallelism: 4 });
    const crashed = 3;
    const { cluster, result } = runJob(graph, { world: { seed: '2pc-crash' } }, (c) => {
      c.world.onTrace((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === crashed, () => {
        c.world.crash('taskmanager-1');
        c.world.at(c.world.nowUs + 100_000, 'restart', () => c.world.restart('taskmanager-1'));
      }, { once: true });
    });
    expect(result.jobStatus).toBe('FINISHED');
    // The notifications of `crashed` to taskmanager-1 were sent but never delivered.
    const completed = ofType(cluster, 'checkpoint.completed', crashed)[0] as TraceEvent;
    const sent = ofType(cluster, 'checkpoint.notifiedComplete', crashed)[0] as TraceEvent;
    const notify = rpcMessages(cluster, 'notifyComplete').filter((m) => m.send.seq > completed.seq
      && m.send.seq < sent.seq && String(m.send.attrs['to']).startsWith('taskexecutor@taskmanager-1'));
    expect(notify.length).toBeGreaterThan(0);
    expect(notify.every((m) => m.deliver === undefined)).toBe(true);
    // The job restored from that checkpoint, and its sinks committed what it pre-committed.
    const restored = ofType(cluster, 'checkpoint.restored');
    expect(restored.length).toBeGreaterThan(0);
    expect(restored.every((e) => checkpointIdOf(e) === crashed)).toBe(true);
    const recoveredSubtasks = new Set(ofType(cluster, 'sink.recover-and-commit')
      .filter((e) => e.attrs['checkpoint'] === crashed).map((e) => e.attrs['subtask']));
    expect(recoveredSubtasks.size).toBe(4);
    const { recovered } = expectCommitsFollowCompletions(cluster);
    expect(recovered).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('given every notification lost and a TaskManager crash, when the job recovers, then the '
    + 'restored sinks commit every transaction pre-committed up to the restored checkpoint, and the '
    + 'job meets oracle 3 (reference 5.2, 5.5)', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 4000 }, parallelism: 4 });
    const healUs = 600_000;
    const { cluster, result } = runJob(graph, {
      world: {
        seed: '2pc-lost', healTimeUs: healUs,
        rpc: { defaultLatency: { minUs: 100, medianUs: 500, maxUs: 2_000 }, lossByKind: { notifyComplete: 1 } },
      },
    }, (c) => {
      c.world.at(350_000, 'crash', () => c.world.crash('taskmanager-1'));
      c.world.at(450_000, 'restart', () => c.world.restart('taskmanager-1'));
    });
    expect(result.jobStatus).toBe('FINISHED');
    const restored = ofType(cluster, 'checkpoint.restored');
    expect(restored.length).toBeGreaterThan(0);
    const restoredId = checkpointIdOf(restored[0] as TraceEvent);
    expect(restoredId).toBeGreaterThanOrEqual(2);
    for (const subtask of [0, 1, 2, 3]) {
      const preCommitted = ofType(cluster, 'sink.pre-committed')
        .filter((e) => e.attrs['subtask'] === subtask && e.seq < (restored[0] as TraceEvent).seq
          && Number(e.attrs['checkpoint']) <= restoredId)
        .map((e) => e.attrs['checkpoint']);
      const recovered = ofType(cluster, 'sink.recover-and-commit')
        .filter((e) => e.attrs['subtask'] === subtask).map((e) => e.attrs['checkpoint']);
      expect(preCommitted.length, `sink ${subtask}`).toBeGreaterThanOrEqual(2);
      expect(new Set(recovered), `sink ${subtask}`).toEqual(new Set(preCommitted));
    }
    expect(ofType(cluster, 'sink.committed').every((e) => e.timeUs >= healUs)).toBe(true);
    expectCommitsFollowCompletions(cluster);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});
