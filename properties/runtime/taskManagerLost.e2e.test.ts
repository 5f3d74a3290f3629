/**
 * A TaskManager the JobMaster declares lost takes its slots with it (Flink's
 * JobMaster.disconnectTaskManager -> DeclarativeSlotPoolService.releaseTaskManager ->
 * DefaultDeclarativeSlotPool.releaseSlots: the slots leave the pool before their payload is
 * released), and restarted executions allocate from the pool (SlotSharingExecutionSlotAllocator):
 * so no attempt is deployed to a lost TaskManager, not even by the restart that runs the moment
 * the heartbeat timeout makes the lost TaskManager's old attempts terminal. With a fixed-delay
 * strategy of one attempt, one crash therefore costs one restart, and the job finishes on a spare
 * TaskManager or on the crashed one once it is back.
 */
import { describe, expect, test } from 'vitest';
import type { RestartStrategy } from '../../engine/index.ts';
import type { MiniCluster } from '../../sim/MiniCluster.ts';
import { checkpointedFlights, marksNamed, ofType } from './checkpointTrace.ts';
import { judgeExactlyOnce, runJob } from './harness.ts';

// The scenario defaults (scenarios/scenarioDefaults.ts): 2,000 flights at parallelism 2, one slot
// per TaskManager, a checkpoint every 20 ms.
const graph = checkpointedFlights({ selection: { from: 0, to: 2000 }, checkpointing: { intervalMs: 20 } });
const once: RestartStrategy = { kind: 'fixed-delay', attempts: 1, delayUs: 10_000 };

/** Crashes taskmanager-1 at 70 ms (after a few checkpoints); brings it back after `downUs`, if given. */
function crashTaskManager1(taskManagers: number, downUs: number | undefined, seed: string) {
  return runJob(graph, {
    world: { seed }, taskManagers, config: { slotsPerTaskManager: 1, restartStrategy: once },
  }, (c) => {
    c.world.at(70_000, 'crash taskmanager-1', () => c.world.crash('taskmanager-1'));
    if (downUs !== undefined) c.world.at(70_000 + downUs, 'restart taskmanager-1', () => c.world.restart('taskmanager-1'));
  });
}

/** Deployments to a TaskExecutor after the JobMaster declared it lost (its address names its incarnation). */
function deploysToLostTaskManagers(cluster: MiniCluster): string[] {
  const lost = marksNamed(cluster, 'taskmanager-lost');
  return ofType(cluster, 'scheduler.deploy')
    .filter((d) => lost.some((l) => l.seq < d.seq && l.attrs['taskExecutor'] === d.attrs['taskExecutor']))
    .map((d) => `${String(d.attrs['task'])} -> ${String(d.attrs['taskExecutor'])} at ${d.timeUs} µs`);
}

describe('a lost TaskManager\'s slots are released before any restart (DefaultDeclarativeSlotPool.releaseSlots)', () => {
  test.each([
    ['the crashed TaskManager back after three heartbeat timeouts', 2, 75_000],
    ['a spare TaskManager', 3, undefined],
  ] as const)('no attempt is deployed to a lost TaskManager, and with one restart allowed the job finishes on %s',
    (_what, taskManagers, downUs) => {
      const { cluster, result } = crashTaskManager1(taskManagers, downUs, `tm-lost-${taskManagers}`);
      const lost = marksNamed(cluster, 'taskmanager-lost');
      expect(lost.map((m) => [m.attrs['taskExecutor'], m.attrs['cause']])).toEqual([
        ['taskexecutor@taskmanager-1/0', 'heartbeat timeout'],
      ]);
      // The race this guards: the region failed over at once (a peer's connection broke), and
      // its backoff ran out before the heartbeat timeout, so the restart waits only for the lost
      // TaskManager's attempts, which become terminal when it is declared lost.
      const restarting = ofType(cluster, 'scheduler.restarting');
      expect(restarting).toHaveLength(1);
      const lostAt = lost[0]?.timeUs ?? 0;
      expect((restarting[0]?.timeUs ?? 0) + Number(restarting[0]?.attrs['delayUs'])).toBeLessThan(lostAt);
      expect(deploysToLostTaskManagers(cluster)).toEqual([]);
      expect(ofType(cluster, 'scheduler.noMoreRestarts')).toEqual([]);
      expect(result.jobStatus).toBe('FINISHED');
      expect(judgeExactlyOnce(graph, result).ok).toBe(true);
      // The subtasks that ran on taskmanager-1 ran again on the new TaskManager.
      const newHost = downUs === undefined ? 'taskmanager-3' : 'taskmanager-1';
      const redeployed = ofType(cluster, 'scheduler.deploy').filter((d) => d.timeUs > lostAt);
      expect(redeployed.some((d) => String(d.attrs['taskExecutor']).startsWith(`taskexecutor@${newHost}/`))).toBe(true);
    });
});
