/**
 * Sources under checkpointing, end to end: source subtasks that run out of splits at different
 * times finish through a final checkpoint while later checkpoints keep completing (reference
 * 5.7, 1.5), and split assignments sent after the SourceCoordinator's snapshot are held by the
 * event valve until the reader's own snapshot (reference 1.6, 5.3; section 7 item 38).
 */
import { describe, expect, test } from 'vitest';
import type { DelayDistribution } from '../../engine/api/index.ts';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { checkpointIdOf, checkpointedFlights, events, marksNamed, ofType } from './checkpointTrace.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

const RPC_LATENCY: DelayDistribution = { minUs: 100, medianUs: 500, maxUs: 2_000 };
/**
 * Slower trigger RPCs widen the window between the coordinator's snapshot and the reader's: a
 * source takes the trigger between two records, so the window is little more than the trigger's
 * latency (kept, with its answer, within the 20 ms RPC timeout).
 */
const SLOW_TRIGGER: DelayDistribution = { minUs: 4_000, medianUs: 8_000, maxUs: 12_000 };

/** The first event after `seq` that `p` accepts. */
function firstAfter(
  cluster: MiniCluster, seq: number, p: (e: TraceEvent) => boolean,
): TraceEvent | undefined {
  return events(cluster).find((e) => e.seq > seq && p(e));
}

describe('finishing with checkpoints on (reference 5.7, 1.5)', () => {
  test('given 3 splits over 2 source subtasks, when one subtask runs out of splits first, then '
    + 'checkpoints keep completing with it finished, and every task finishes only after a '
    + 'checkpoint triggered after its end of input completed and was notified to it', () => {
    const graph = checkpointedFlights({ splits: 3 });
    const { cluster, result } = runJob(graph, { world: { seed: 'finishing', checkInvariants: true } });
    expect(result.jobStatus).toBe('FINISHED');
    const withFinished = result.completedCheckpoints.filter((c) => c.finishedTasks.length > 0);
    expect(withFinished.length).toBeGreaterThanOrEqual(2);

    const finished = ofType(cluster, 'task.finished');
    expect(finished).toHaveLength(4);
    for (const f of finished) {
      const task = String(f.attrs['task']);
      const end = ofType(cluster, 'task.endOfInput').find((e) => e.attrs['task'] === task);
      expect(end, task).toBeDefined();
      const endSeq = (end as TraceEvent).seq;
      const next = firstAfter(cluster, endSeq, (e) => e.type === 'checkpoint.triggered');
      expect(next, `a checkpoint after ${task}'s end of input`).toBeDefined();
      const first = checkpointIdOf(next as TraceEvent);
      const completed = ofType(cluster, 'checkpoint.completed')
        .filter((e) => e.seq > endSeq && e.seq < f.seq && checkpointIdOf(e) >= first);
      expect(completed.length, task).toBeGreaterThan(0);
      const notified = ofType(cluster, 'checkpoint.taskNotified')
        .filter((e) => e.attrs['task'] === task && e.seq > endSeq && e.seq < f.seq)
        .filter((e) => checkpointIdOf(e) >= first);
      expect(notified.length, task).toBeGreaterThan(0);
      // A finished task leaves later plans: no trigger is sent to it after it finished.
      const laterTriggers = ofType(cluster, 'checkpoint.triggerSent')
        .filter((e) => e.attrs['task'] === task && e.seq > f.seq);
      expect(laterTriggers).toHaveLength(0);
    }
    // The source subtask that finished early is recorded as finished in the later checkpoints.
    const early = finished[0] as TraceEvent;
    const earlyRef = String(early.attrs['task']).split('@')[0] as string;
    const after = result.completedCheckpoints.filter((c) => c.triggerTimestampUs > early.timeUs);
    expect(after.length).toBeGreaterThan(0);
    for (const c of after) expect(c.finishedTasks).toContain(earlyRef);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});

describe('the coordinator event valve (reference 1.6, 5.3; section 7 item 38)', () => {
  /** Checks each held split assignment reached its reader only after the reader's snapshot. */
  function expectHeldUntilReaderSnapshot(cluster: MiniCluster): number {
    let checked = 0;
    for (const held of marksNamed(cluster, 'event-valve-held')) {
      const id = checkpointIdOf(held);
      const subtask = held.attrs['subtask'];
      const assigned = events(cluster).filter((e) => e.seq < held.seq && e.type === 'source.split-assigned'
        && e.attrs['subtask'] === subtask).at(-1);
      expect(assigned, `the assignment held at ${held.seq}`).toBeDefined();
      const split = String(assigned?.attrs['split']);
      const added = firstAfter(cluster, held.seq, (e) => e.type === 'source.splits-added'
        && String(e.attrs['splits']).split(',').includes(split));
      if (added === undefined) continue; // the reader failed before it arrived
      const reader = String(added.attrs['task']);
      const sync = ofType(cluster, 'checkpoint.syncDone', id)
        .find((e) => String(e.attrs['task']).startsWith(`${reader}@`));
      if (sync === undefined) continue; // released by the checkpoint's abort instead
      expect(sync.seq, `split ${split} to ${reader} in checkpoint ${id}`).toBeLessThan(added.seq);
      checked++;
    }
    return checked;
  }

  test('given many small splits and slow trigger RPCs, when readers request splits while a '
    + 'checkpoint is being triggered, then the valve holds the assignments until the reader\'s '
    + 'snapshot and the job meets oracle 3', () => {
    const graph = checkpointedFlights({ splits: 64 });
    const { cluster, result } = runJob(graph, {
      world: { seed: 'valve', rpc: { defaultLatency: RPC_LATENCY, latencyByKind: { trigger: SLOW_TRIGGER } } },
    });
    expect(result.jobStatus).toBe('FINISHED');
    expect(marksNamed(cluster, 'event-valve-held').length).toBeGreaterThan(0);
    expect(expectHeldUntilReaderSnapshot(cluster)).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  test('given held assignments and a TaskManager crash, when the readers fail over, then the '
    + 'splits assigned after the restored checkpoint go back and the job meets oracle 3', () => {
    const graph = checkpointedFlights({ splits: 64, parallelism: 4, selection: { from: 0, to: 4000 } });
    const { cluster, result } = runJob(graph, {
      world: {
        seed: 'valve-crash', rpc: { defaultLatency: RPC_LATENCY, latencyByKind: { trigger: SLOW_TRIGGER } },
      },
    }, (c) => {
      c.world.at(350_000, 'crash', () => c.world.crash('taskmanager-1'));
      c.world.at(450_000, 'restart', () => c.world.restart('taskmanager-1'));
    });
    expect(result.jobStatus).toBe('FINISHED');
    expect(marksNamed(cluster, 'event-valve-held').length).toBeGreaterThan(0);
    expect(marksNamed(cluster, 'splits-returned').length).toBeGreaterThan(0);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});
