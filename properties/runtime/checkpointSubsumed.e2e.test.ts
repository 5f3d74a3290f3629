/**
 * notifyCheckpointSubsumed end to end (reference 2.1, 2.2): the JobMaster's confirmCheckpoint
 * carries the id of the checkpoint the completion subsumed, and the TaskExecutor hands the task
 * the completion and then the subsumption (TaskExecutor.confirmCheckpoint), each a mail, which
 * the StreamTask forwards to its operators without comparing the id with the latest completed
 * one (StreamTask.notifyCheckpointSubsumedAsync).
 */
import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../../sim/Trace.ts';
import { checkpointedFlights, checkpointIdOf, ofType } from './checkpointTrace.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

const NOTIFIED = 'checkpoint.taskNotified';
const SUBSUMED = 'checkpoint.taskSubsumed';

describe('notifyCheckpointSubsumed reaches the tasks (TaskExecutor.confirmCheckpoint)', () => {
  test('given a crash and a restore, when checkpoints complete, then every task takes the '
    + 'subsumption of the previous completed checkpoint right after the completion, also of the '
    + 'restored one, which a completion of it would no longer reach', () => {
    const graph = checkpointedFlights({ selection: { from: 0, to: 4000 }, parallelism: 4 });
    const { cluster, result } = runJob(graph, { world: { seed: 'aligned-crash' } }, (c) => {
      c.world.at(350_000, 'crash', () => c.world.crash('taskmanager-1'));
      c.world.at(450_000, 'restart', () => c.world.restart('taskmanager-1'));
    });
    expect(result.jobStatus).toBe('FINISHED');
    const restored = ofType(cluster, 'checkpoint.restored').map(checkpointIdOf);
    expect(restored.length).toBeGreaterThan(0);
    // The checkpoint each completion subsumed: the one completed (or restored) before it.
    const subsumedBy = new Map<number, number>();
    let previous = -1;
    for (const e of cluster.world.trace.events) {
      if (e.type === 'checkpoint.restored') previous = checkpointIdOf(e);
      if (e.type === 'checkpoint.completed') {
        subsumedBy.set(checkpointIdOf(e), previous);
        previous = checkpointIdOf(e);
      }
    }
    const byTask = new Map<string, TraceEvent[]>();
    for (const e of [...ofType(cluster, NOTIFIED), ...ofType(cluster, SUBSUMED)].sort((a, b) => a.seq - b.seq)) {
      const task = String(e.attrs['task']);
      byTask.set(task, [...(byTask.get(task) ?? []), e]);
    }
    let subsumptions = 0;
    for (const [task, events] of byTask) {
      events.forEach((e, i) => {
        if (e.type !== SUBSUMED) return;
        subsumptions++;
        const before = events[i - 1];
        expect(before?.type, `${task}: a subsumption without a completion before it`).toBe(NOTIFIED);
        expect(checkpointIdOf(e), task).toBe(subsumedBy.get(checkpointIdOf(before as TraceEvent)));
      });
    }
    expect(subsumptions).toBeGreaterThan(ofType(cluster, NOTIFIED).length / 2);
    // The restored tasks took the subsumption of the checkpoint they restored from.
    expect(ofType(cluster, SUBSUMED).some((e) => restored.includes(checkpointIdOf(e))
      && !String(e.attrs['task']).endsWith('@0'))).toBe(true);
    const verdict = judgeExactlyOnce(graph, result);
    expect(verdict.ok, verdict.summary).toBe(true);
  });
});
