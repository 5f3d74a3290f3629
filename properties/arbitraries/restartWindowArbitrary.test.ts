/**
 * The targeted strategy's restart window (restartWindowArbitrary.ts): how often it is drawn, what
 * it puts in a run, that only the targeted strategy draws it, and that it reaches its window (a
 * job RESTARTING with a task FINISHED and the request asked for there).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Action, Fault, RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { validateRunSpec } from '../../sim/run/validateRunSpec.ts';
import { restartWindowArbitrary, restartWindowPlan } from './restartWindowArbitrary.ts';
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
    expect(shrunk).toEqual({ nth: 1, extraMs: 5, request: 'savepoint' });
  });

  test('pauses every TaskManager of the first run past the heartbeat timeout at a task FINISHED; asks at RESTARTING', () => {
    const w = { nth: 2, extraMs: 40, request: 'stop-drain' } as const;
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
      expect(hosts).toEqual(Array.from({ length: hosts.length }, (_x, i) => `taskmanager-${i + 1}`));
    }
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
});
