/**
 * The targeted strategy's restart window (restartWindowArbitrary.ts): how often it is drawn, what
 * it puts in a run, that only the targeted strategy draws it, and that it reaches its window (a
 * job RESTARTING with a task FINISHED and the request asked for there).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Action, Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { forwardRegionsJob, RESTART_WINDOW_REGIONS, restartWindowArbitrary, restartWindowPlan } from './restartWindowArbitrary.ts';
import { runSpecArbitrary } from './runSpecArbitrary.ts';

const isWindowPause = (f: Fault): boolean => f.type === 'pause' && 'at' in f.when && f.when.at.kind === 'execution';
const isWindowAction = (a: Action): boolean =>
  a.when !== undefined && 'at' in a.when && a.when.at.kind === 'job' && a.when.at.status === 'RESTARTING' && a.when.at.jobRun === 1;

describe('restart window', () => {
  test('drawn in about one run in four; shrinks toward none', () => {
    const drawn = fc.sample(restartWindowArbitrary(), { seed: 1, numRuns: 800 });
    const on = drawn.filter((w) => w !== undefined).length / drawn.length;
    expect(on).toBeGreaterThan(0.2);
    expect(on).toBeLessThan(0.3);
    const shrunk = fc.check(fc.property(restartWindowArbitrary(), (w) => w === undefined), { seed: 1 }).counterexample?.[0];
    expect(shrunk).toEqual({ nth: 1, extraMs: 5, request: 'savepoint', lose: 'one', host: 1, restartDelayMs: 100 });
    const windows = drawn.filter((w) => w !== undefined);
    const one = windows.filter((w) => w.lose === 'one').length / windows.length;
    expect(one).toBeGreaterThan(0.55);
    expect(one).toBeLessThan(0.8);
  });

  test('losing one TaskManager pauses only it (modulo the run\'s count)', () => {
    const w = { nth: 1, extraMs: 10, request: 'savepoint', lose: 'one', host: 2, restartDelayMs: 1000 } as const;
    expect(restartWindowPlan(w, 2, [], true).faults.map((f) => (f as { host: string }).host)).toEqual(['taskmanager-2']);
    expect(restartWindowPlan(w, 1, [], true).faults.map((f) => (f as { host: string }).host)).toEqual(['taskmanager-1']);
  });

  test('forwardRegionsJob: keyed and union-state stages dropped, every other stage forward at one parallelism', () => {
    const job = forwardRegionsJob({
      records: [[1, 2], [3]],
      stages: [
        { kind: 'map', fn: 1, parallelism: 1, rebalance: true },
        { kind: 'keyed', key: 0, fn: 0, parallelism: 2 },
        { kind: 'splitOwners', parallelism: 2 },
        { kind: 'splitLog', parallelism: 1, rebalance: true },
      ],
      sourceParallelism: 1, sinkParallelism: 2, maxParallelism: 8,
    }, 4);
    expect(job).toEqual({
      records: [[1, 2], [3]],
      stages: [{ kind: 'map', fn: 1, parallelism: 4, rebalance: false }, { kind: 'splitLog', parallelism: 4, rebalance: false }],
      sourceParallelism: 4, sinkParallelism: 4, maxParallelism: 8,
    });
  });

  test('pauses every TaskManager of the first run past the heartbeat timeout at a task FINISHED; asks at RESTARTING', () => {
    const w = { nth: 2, extraMs: 40, request: 'stop-drain', lose: 'all', host: 1, restartDelayMs: 100 } as const;
    const plan = restartWindowPlan(w, 2, [], true);
    expect(plan.faults).toEqual(['taskmanager-1', 'taskmanager-2'].map((host) => ({
      type: 'pause', host, durationMs: 65, when: { at: { kind: 'execution', state: 'FINISHED', nth: 2, jobRun: 1 } },
    })));
    expect(plan.actions).toEqual([{ type: 'stop-with-savepoint', drain: true, when: { at: { kind: 'job', status: 'RESTARTING', nth: 1, jobRun: 1 } } }]);
    // A run has one stop at most: with one already, the window asks for a savepoint.
    const stop: Action = { type: 'stop-with-savepoint', drain: false, when: { atMs: 100 } };
    expect(restartWindowPlan(w, 1, [stop], true).actions.map((a) => a.type)).toEqual(['savepoint']);
    expect(restartWindowPlan(w, 1, [], false).actions).toEqual([]);
  });

  test('only targeted runs have it, in about a quarter of them, valid, with one stop at most; without savepoints, no action', () => {
    for (const strategy of ['swarm', 'uniform', 'pct'] as const) {
      const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', strategy, maxRecords: 100 }), { seed: 2, numRuns: 150 });
      expect(specs.some((s) => s.faults.some(isWindowPause)), strategy).toBe(false);
    }
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', strategy: 'targeted', maxRecords: 100 }), { seed: 2, numRuns: 300 });
    const windowed = specs.filter((s) => s.faults.some(isWindowPause));
    expect(windowed.length / specs.length).toBeGreaterThan(0.17);
    expect(windowed.length / specs.length).toBeLessThan(0.33);
    for (const s of windowed) {
      expect(() => validateRunSpec(s)).not.toThrow();
      expect((s.actions ?? []).filter(isWindowAction)).toHaveLength(1);
      expect((s.actions ?? []).filter((a) => a.type === 'stop-with-savepoint').length).toBeLessThanOrEqual(1);
      const hosts = s.faults.filter(isWindowPause).map((f) => (f as { host: string }).host);
      const job = s.job.kind === 'generated' ? s.job.spec : undefined;
      const regions = job !== undefined && job.sourceParallelism === RESTART_WINDOW_REGIONS
        && job.stages.every((st) => st.kind !== 'keyed' && st.kind !== 'splitOwners' && !st.rebalance && st.parallelism === RESTART_WINDOW_REGIONS);
      if (regions) {
        // Lost one: the job runs as four forward regions (drawn jobs have parallelism 2 at most),
        // at its own parallelism, and one of its two TaskManagers pauses.
        expect(hosts).toHaveLength(1);
        expect(s.parallelism).toEqual({});
      } else {
        expect(hosts).toEqual(Array.from({ length: hosts.length }, (_x, i) => `taskmanager-${i + 1}`));
      }
      expect(s.restartStrategy).toMatchObject({ kind: 'fixed-delay' });
      expect([100, 1000]).toContain((s.restartStrategy as { delayMs: number }).delayMs);
      expect(s.healTimeMs).toBeGreaterThanOrEqual(3000);
    }
    // Both shapes are drawn.
    expect(windowed.some((s) => s.job.kind === 'generated' && s.job.spec.sourceParallelism === RESTART_WINDOW_REGIONS)).toBe(true);
    expect(windowed.some((s) => s.faults.filter(isWindowPause).length === s.taskManagers && s.taskManagers > 1)).toBe(true);
    const without = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', strategy: 'targeted', maxRecords: 100, savepoints: false }),
      { seed: 2, numRuns: 300 });
    expect(without.filter((s) => s.faults.some(isWindowPause)).length).toBe(windowed.length);
    expect(without.some((s) => (s.actions ?? []).some(isWindowAction))).toBe(false);
  });

  test('reaches its window: in over a third of windowed runs the job first goes RESTARTING after a task FINISHED, and the request fires there', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', strategy: 'targeted', maxRecords: 200, rescales: false }),
      { seed: 3, numRuns: 200 }).filter((s) => s.faults.some(isWindowPause)).slice(0, 20);
    expect(specs.length).toBeGreaterThanOrEqual(15);
    let reached = 0;
    for (const spec of specs) {
      const r = simulate(spec as RunSpec);
      const finished = r.trace.findIndex((e) => e.type === 'task.finished');
      const restarting = r.trace.findIndex((e) => e.type === 'job.status' && e.attrs['status'] === 'RESTARTING');
      const index = (spec.actions ?? []).findIndex(isWindowAction);
      const fired = r.actions.some((a) => a.action === index && a.event === 'fired');
      if (finished >= 0 && restarting > finished && fired) reached++;
    }
    // The misses: a targeted fault failed the job over before any task finished (the request fires
    // at that first RESTARTING), or no task finished before the heal time (the pauses never fire).
    expect(reached / specs.length).toBeGreaterThan(0.35);
  });

  test('losing one TaskManager reaches FLINK-40482\'s shape: with the planted bug a plan at RESTARTING counts a FAILED attempt as finished and a property catches it; without it every such request is refused and nothing fails', () => {
    const specs = fc.sample(runSpecArbitrary({ job: 'generated', mode: 'aligned', strategy: 'targeted', maxRecords: 200, rescales: false }),
      { seed: 4, numRuns: 400 })
      .filter((s) => s.job.kind === 'generated' && s.job.spec.sourceParallelism === RESTART_WINDOW_REGIONS)
      .slice(0, 12);
    expect(specs.length).toBe(12);
    let caught = 0;
    for (const spec of specs) {
      const index = (spec.actions ?? []).findIndex(isWindowAction);
      const correct = simulate(spec);
      // The request at RESTARTING never gets a savepoint: a task to wait for does not run.
      expect(correct.actions.some((a) => a.action === index && a.event === 'completed'), spec.seed).toBe(false);
      expect(defaultJudge(correct, expectationOf('aligned')).violations, spec.seed).toEqual([]);
      const buggy = simulate({ ...spec, mutations: ['plan-terminal-as-finished'] });
      if (defaultJudge(buggy, expectationOf('aligned')).violations.some((v) => v.summary.startsWith('finished-tasks-finished'))) caught++;
    }
    // Measured 7 of these 12. The rest: every task but the paused ones had finished too (an empty
    // plan, which PendingCheckpoint refuses), or the paused TaskManager held only finished tasks.
    expect(caught).toBeGreaterThanOrEqual(4);
  });
});
