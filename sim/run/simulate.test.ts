import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../Trace.ts';
import { FLIGHTS_UIDS, type FlightOutput } from '../workloads/flights.ts';
import { RUN_SPEC_VERSION, type Fault, type RunMode, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { SimInputError } from '../SimInputError.ts';
import { plantEngineAssertion } from '../testing/plantEngineAssertion.ts';
import { simulate } from './simulate.ts';

/** Flights 0..300 at parallelism 2 on one TaskManager, a checkpoint every 20 ms. */
function spec(o: { mode?: RunMode; faults?: Fault[]; healTimeMs?: number; seed?: string } = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: o.seed ?? 'sim-test',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: o.mode ?? 'aligned', intervalMs: 20 },
    faults: o.faults ?? [],
    healTimeMs: o.healTimeMs ?? 200,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [],
    mutations: [],
  };
}

/** Committed flight ids, sorted. */
function flightIds(r: RunResult): number[] {
  return r.committed.map((c) => (c.record as { value: FlightOutput }).value.flightId).sort((a, b) => a - b);
}

const ALL_IDS = [...Array(300).keys()];

function faultEvents(r: RunResult): TraceEvent[] {
  return r.trace.filter((e) => e.type === 'fault');
}

describe('simulate', () => {
  test.each<RunMode>(['aligned', 'at-least-once'])('runs flights to the end in mode %s', (mode) => {
    const r = simulate(spec({ mode }), { checkInvariants: true });
    expect(r.outcome.reason).toBe('stopped');
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.checkpoints.triggered).toBeGreaterThan(2);
    expect(r.checkpoints.completed.length).toBeGreaterThan(2);
    expect(r.restores).toBe(0);
    expect(flightIds(r)).toEqual(ALL_IDS);
    expect(r.lingeringTransactions).toEqual([]);
    expect(r.objectStorePaths).toEqual([]);
    expect(Object.keys(r.finalState)).toEqual([FLIGHTS_UIDS.stats]);
    expect(r.spec.checkpoint.timeoutMs).toBe(1000);
    expect(r.graph.checkpointing?.mode).toBe(mode === 'aligned' ? 'EXACTLY_ONCE' : 'AT_LEAST_ONCE');
    expect(r.violations).toEqual([]);
    expect(r.outcome.timeMs).toBeCloseTo((r.jobEndMs ?? 0) + 50, 6);
  });

  test('mode none runs without checkpoints and commits at the end of input', () => {
    const r = simulate(spec({ mode: 'none' }));
    expect(r.graph.checkpointing).toBeUndefined();
    expect(r.checkpoints.triggered).toBe(0);
    expect(flightIds(r)).toEqual(ALL_IDS);
  });

  test('the same spec twice gives the same trace hash; another seed another', () => {
    const faults: Fault[] = [
      { type: 'crash', host: 'taskmanager-1', when: { atMs: 40 }, downMs: 40 },
      { type: 'rpc-loss', kind: 'ack', probability: 0.3 },
    ];
    const a = simulate(spec({ faults }));
    const b = simulate(spec({ faults }));
    expect(b.traceHash).toBe(a.traceHash);
    expect(b.trace.length).toBe(a.trace.length);
    expect(simulate(spec({ faults, seed: 'other' })).traceHash).not.toBe(a.traceHash);
  });

  test('a protocol point naming a task the job does not have is rejected before the run', () => {
    const faults: Fault[] = [{
      type: 'crash', host: 'taskmanager-1', downMs: 40,
      when: { at: { kind: 'task', checkpoint: 2, phase: 'aligned', task: 'v99#7' } },
    }];
    expect(() => simulate(spec({ faults }))).toThrow(SimInputError);
    expect(() => simulate(spec({ faults }))).toThrow(/^faults\[0\]\.when\.at\.task: no task v99#7 in this job \(tasks: v0#0, /);
  });

  // Found by a fresh-eyes pass: `aligned on v0#0` (a source) was accepted and only ever showed
  // as a fault that never fired.
  test.each(['first-barrier', 'aligned'] as const)('a %s point on a source task, which no run reaches, is rejected before the run', (phase) => {
    const faults: Fault[] = [{
      type: 'crash', host: 'taskmanager-1', downMs: 40,
      when: { at: { kind: 'task', checkpoint: 2, phase, task: 'v0#0' } },
    }];
    expect(() => simulate(spec({ faults }))).toThrow(SimInputError);
    expect(() => simulate(spec({ faults }))).toThrow(
      `faults[0].when.at: phase ${phase} never happens on v0#0, a source task (it has no input channels: sources are triggered by RPC)`);
  });

  test('a crash at a protocol point fires right after the point, and the job recovers', () => {
    const faults: Fault[] = [{
      type: 'crash', host: 'taskmanager-1', downMs: 40,
      when: { at: { kind: 'task', checkpoint: 2, phase: 'aligned', task: 'v1#1' } },
    }];
    const r = simulate(spec({ faults }), { checkInvariants: true });
    const point = r.trace.findIndex((e) => e.type === 'checkpoint.aligned' && e.attrs['checkpointId'] === 2
      && String(e.attrs['task']).startsWith('v1#1@'));
    const crash = r.trace.findIndex((e) => e.type === 'host.crash');
    expect(point).toBeGreaterThan(0);
    expect(crash).toBeGreaterThan(point);
    const between = r.trace.slice(point, crash);
    // Only the rest of the task that reached the point (on its host and the stores it called)
    // and the fault's own record come between: no other event ran.
    const sameTask = new Set([r.trace[point]?.host, 'txn-store', 'store']);
    expect(between.every((e) => sameTask.has(e.host) || (e.host === 'sim' && e.type === 'fault'))).toBe(true);
    expect(between.at(-1)?.type).toBe('fault');
    expect(r.trace[crash]?.timeUs).toBe(r.trace[point]?.timeUs);
    expect(r.faults.map((f) => f.action)).toEqual(['crash', 'restart']);
    expect((r.faults[1]?.timeMs ?? 0) - (r.faults[0]?.timeMs ?? 0)).toBeCloseTo(40, 6);
    expect(r.marks['crash']).toBe(1);
    expect(r.restores).toBeGreaterThan(0);
    expect(r.jobStatus).toBe('FINISHED');
    expect(flightIds(r)).toEqual(ALL_IDS);
  });

  test('jobmaster and sink points fire once each', () => {
    const faults: Fault[] = [
      { type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'completed' } } },
      { type: 'pause', host: 'taskmanager-1', durationMs: 5, when: { at: { kind: 'sink', phase: 'pre-committed', nth: 2 } } },
    ];
    const r = simulate(spec({ faults }));
    const global = faultEvents(r).find((e) => e.attrs['action'] === 'global-failure');
    const completed3 = r.trace.find((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === 3);
    expect(global?.timeUs).toBe(completed3?.timeUs);
    const preCommits = r.trace.filter((e) => e.type === 'txn.preCommit');
    const pause = faultEvents(r).find((e) => e.attrs['action'] === 'pause');
    expect(pause?.timeUs).toBe(preCommits[1]?.timeUs);
    const actions = r.faults.map((f) => `${f.fault}:${f.action}`);
    expect([...actions].sort()).toEqual(['0:global-failure', '1:pause', '1:resume']);
    expect(r.marks['global-failure']).toBe(1);
    expect(r.marks['pause']).toBe(1);
    expect(r.restores).toBeGreaterThan(0);
    expect(flightIds(r)).toEqual(ALL_IDS);
    expect(r.unfiredFaults).toEqual([]);
  });

  test('a point never reached is reported as unfired', () => {
    const faults: Fault[] = [{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 500, phase: 'triggered' } } }];
    const r = simulate(spec({ faults }));
    expect(r.unfiredFaults).toEqual([0]);
    expect(r.faults).toEqual([]);
  });

  test('the heal time brings crashed hosts back and heals partitions and pauses', () => {
    const faults: Fault[] = [
      { type: 'crash', host: 'taskmanager-1', when: { atMs: 30 } },
      { type: 'partition', a: 'jobmanager', b: 'taskmanager-1', when: { atMs: 50 }, durationMs: 10_000 },
    ];
    const r = simulate(spec({ faults, healTimeMs: 120 }));
    const boots = r.trace.filter((e) => e.type === 'host.boot' && e.host === 'taskmanager-1');
    expect(boots.map((e) => e.timeUs)).toEqual([0, 120_000]);
    expect(r.trace.some((e) => e.type === 'net.heal' && e.timeUs === 120_000)).toBe(true);
    expect(r.faults.map((f) => [f.action, f.timeMs])).toEqual([['crash', 30], ['partition', 50], ['restart', 120], ['heal', 120]]);
    expect(r.jobStatus).toBe('FINISHED');
    expect(flightIds(r)).toEqual(ALL_IDS);
  });

  test('a protocol point reached after the heal time fires nothing, and the fault counts as unfired', () => {
    const faults: Fault[] = [{ type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'sink', phase: 'committed', nth: 6 } } }];
    const r = simulate(spec({ faults, healTimeMs: 10 }));
    expect(r.faults.map((f) => f.action)).toEqual(['skipped']);
    expect(r.marks['crash']).toBeUndefined();
    expect(r.unfiredFaults).toEqual([0]);
  });

  test('world-setting faults start at 0, end at the heal time and mark what they did', () => {
    const faults: Fault[] = [
      { type: 'async-snapshot-failure', probability: 0.5 },
      { type: 'rpc-delay', kind: 'notifyComplete', latency: { minMs: 5, medianMs: 10, maxMs: 20 } },
      { type: 'slow-store', factor: 3 },
    ];
    const r = simulate(spec({ faults, healTimeMs: 150 }));
    expect(r.faults.map((f) => [f.fault, f.action, f.timeMs])).toEqual([
      [0, 'start', 0], [1, 'start', 0], [2, 'start', 0], [0, 'end', 150], [1, 'end', 150], [2, 'end', 150],
    ]);
    expect(r.marks['async-snapshot-failed']).toBeGreaterThan(0);
    expect(r.marks['rpc-delay']).toBe(1);
    expect(r.marks['slow-store']).toBe(1);
    expect(r.checkpoints.aborted['CHECKPOINT_ASYNC_EXCEPTION']).toBeGreaterThan(0);
    // Only tasks' snapshot writes failed: the failures name chk-<n>/<attempt>/<uid> paths.
    const failed = r.trace.filter((e) => e.type === 'mark' && e.attrs['name'] === 'async-snapshot-failed');
    expect(failed.every((e) => /^chk-\d+\/v\d+#\d+@\d+\//.test(String(e.attrs['path'])))).toBe(true);
    // The store decides a fault when an operation starts (before the heal time) and marks it
    // when the operation ends, which under the slow-store factor can be a little later.
    const starts = new Map(r.trace.filter((e) => e.type === 'store.begin').map((e) => [String(e.attrs['path']), e.timeUs]));
    expect(failed.every((e) => (starts.get(String(e.attrs['path'])) ?? 0) < 150_000)).toBe(true);
    expect(r.jobStatus).toBe('FINISHED');
  });

  test('at-least-once under a crash loses nothing (duplicates allowed)', () => {
    const faults: Fault[] = [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 45 }, downMs: 30 }];
    const r = simulate(spec({ mode: 'at-least-once', faults }), { checkInvariants: true });
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.restores).toBeGreaterThan(0);
    expect([...new Set(flightIds(r))]).toEqual(ALL_IDS);
    expect(r.committed.length).toBeGreaterThanOrEqual(300);
  });

  test('an RPC delay applies to its kind before the heal time only', () => {
    const faults: Fault[] = [{ type: 'rpc-delay', kind: 'heartbeat', latency: { minMs: 5, medianMs: 6, maxMs: 8 } }];
    const r = simulate(spec({ faults, healTimeMs: 60 }));
    const sent = new Map<unknown, TraceEvent>();
    const latencies: [number, number][] = [];
    for (const e of r.trace) {
      if (e.type === 'rpc.send' && e.attrs['kind'] === 'heartbeat') sent.set(e.attrs['id'], e);
      const s = e.type === 'rpc.deliver' ? sent.get(e.attrs['id']) : undefined;
      if (s !== undefined) latencies.push([s.timeUs, e.timeUs - s.timeUs]);
    }
    // A message slowed before the heal arrives by the heal time plus a normal maximum latency
    // (RpcNetwork), so judge those sent at least the injected maximum (8 ms) before it.
    const before = latencies.filter(([t]) => t < 52_000).map(([, l]) => l);
    // Links are FIFO: a message sent just after the heal may wait behind a slow one, so judge
    // the messages sent once the slow ones (at most 8 ms) have arrived.
    const after = latencies.filter(([t]) => t >= 70_000).map(([, l]) => l);
    expect(before.length).toBeGreaterThan(3);
    expect(after.length).toBeGreaterThan(3);
    expect(Math.min(...before)).toBeGreaterThanOrEqual(5_000);
    expect(Math.max(...after)).toBeLessThanOrEqual(2_000);
  });

  test('a slow task slows the job down while it lasts', () => {
    const plain = simulate(spec());
    const slow = simulate(spec({
      faults: [{ type: 'slow-task', operator: FLIGHTS_UIDS.source, factor: 4, when: { atMs: 0 }, durationMs: 50 }],
    }));
    expect(slow.marks['slow-task']).toBe(1);
    expect(slow.faults.map((f) => [f.action, f.timeMs])).toEqual([['slow', 0], ['end', 50]]);
    // The sources read 4 times slower for 50 ms: about 3/4 of 50 ms of reading is lost, less
    // the time they wait for splits. (The job's end, after a final checkpoint every 20 ms,
    // moves by a multiple of the interval.)
    const sourcesEndMs = (r: RunResult): number => Math.max(...r.trace
      .filter((e) => e.type === 'task.endOfInput' && String(e.attrs['task']).startsWith('v0#'))
      .map((e) => e.timeUs / 1000));
    expect(sourcesEndMs(slow)).toBeGreaterThan(sourcesEndMs(plain) + 20);
  });

  // Found by a fresh-eyes pass: one sink step committed several epochs, every commit past nth
  // queued the fault's action, and the slow task fired four times (100^4, three never ended).
  test('a protocol-point fault fires once even when one step reaches the point several times', () => {
    const r = simulate({"version": 8, "seed": "s520657982", "job": {"kind": "generated", "spec": {"records": [[0, 0, 0], [0, 0, 0], [0, 0, 0, 0, 0]], "stages": [{"kind": "keyed", "key": 0, "fn": 0, "parallelism": 1}], "sourceParallelism": 2, "sinkParallelism": 2, "maxParallelism": 128}}, "parallelism": {}, "taskManagers": 1, "checkpoint": {"mode": "at-least-once", "intervalMs": 100, "maxConcurrent": 1, "tolerableFailures": 10}, "restartStrategy": {"kind": "fixed-delay", "attempts": "unlimited", "delayMs": 10}, "faults": [{"type": "pause", "host": "taskmanager-1", "when": {"atMs": 367}, "durationMs": 37}, {"type": "async-snapshot-failure", "probability": 0.2}, {"type": "slow-task", "operator": "gen-0-keyed-rem4-count", "factor": 100, "when": {"at": {"kind": "sink", "phase": "committed", "nth": 5}}, "durationMs": 1}], "healTimeMs": 600, "budgets": {"maxEvents": 5000000, "maxTimeMs": 30000}, "overrides": [], "mutations": [], "network": {"recordsPerBuffer": 1}, "costsMs": {"gen-source": 50, "gen-0-keyed-rem4-count": 2.5, "gen-sink": 2.5}} as RunSpec);
    expect(r.faults.filter((f) => f.fault === 2 && f.action === 'slow')).toHaveLength(1);
    expect(r.jobStatus).toBe('FINISHED');
  });

  test('runs wordcount and generated jobs into their two-phase-commit sinks', () => {
    const wordcount = simulate({ ...spec(), job: { kind: 'wordcount', lines: 8 }, parallelism: 2 });
    expect(wordcount.jobStatus).toBe('FINISHED');
    expect(wordcount.committed.length).toBeGreaterThan(50);
    expect(wordcount.committed.every((c) => c.txn.sink === 'wordcount-sink')).toBe(true);
    const generated = simulate({
      ...spec({ mode: 'at-least-once' }), parallelism: { 'gen-sink': 1 },
      job: { kind: 'generated', spec: {
        records: [[1, 2, 3, 4], [5, 6, 7]], stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 2 }],
        sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 8,
      } },
    });
    expect(generated.jobStatus).toBe('FINISHED');
    expect(generated.graph.nodes.map((n) => [n.uid, n.parallelism])).toEqual([
      ['gen-source', 2], [generated.graph.nodes[1]?.uid, 2], ['gen-sink', 1],
    ]);
    expect(generated.committed.length).toBe(7);
    expect(generated.committed.every((c) => c.txn.sink === 'gen-sink')).toBe(true);
  });

  test('bad input is refused before anything runs', () => {
    expect(() => simulate({ ...spec(), checkpoint: { mode: 'unaligned', intervalMs: 20 } }))
      .toThrow('checkpoint.mode: mode unaligned is not available yet (available: aligned, at-least-once, none)');
  });

  test('traceLimit caps the stored trace but not the hash or the statistics', () => {
    const full = simulate(spec());
    const capped = simulate(spec(), { traceLimit: 10 });
    expect(capped.trace).toHaveLength(10);
    expect(capped.traceHash).toBe(full.traceHash);
    expect(capped.checkpoints.triggered).toBe(full.checkpoints.triggered);
  });

  test('traceTasks adds the executor tasks to the trace and changes nothing else', () => {
    const plain = simulate(spec());
    const tasks = simulate(spec(), { traceTasks: true });
    expect(tasks.traceHash).toBe(plain.traceHash);
    expect(plain.trace.some((e) => e.type === 'task')).toBe(false);
    expect(tasks.trace.filter((e) => e.type === 'task').length).toBeGreaterThan(plain.trace.length / 4);
    expect(tasks.trace.filter((e) => e.type !== 'task')).toEqual(plain.trace);
  });
});

describe('simulate: an engine assertion', () => {
  // The real engine, made to fail its own `assert` in the flights stats operator on one record
  // that comes after a crash, a restore and commits (sim/testing/plantEngineAssertion.ts).
  const faults: Fault[] = [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 40 }, downMs: 40 }];
  const planted = (): RunResult => {
    const remove = plantEngineAssertion((r) => r.split === 13 && r.offset === 15, 'planted: split 13 offset 15');
    try {
      return simulate(spec({ faults }));
    } finally {
      remove();
    }
  };

  test('ends the run with a result that says what, where and when, holding what the run produced', () => {
    const r = planted();
    expect(r.outcome.reason).toBe('engine-assertion');
    const a = r.engineAssertion;
    expect(a?.message).toBe('planted: split 13 offset 15');
    expect(a?.location).toMatch(/^engine\/streaming\/runtime\/StreamTask\.ts:\d+$/);
    expect(a?.stack.some((f) => f.includes('sim/testing/plantEngineAssertion.ts'))).toBe(true);
    expect(a?.timeMs).toBe(r.outcome.timeMs);
    expect(r.outcome.message).toBe(`engine assertion at ${a?.location}: planted: split 13 offset 15`);
    expect(r.jobStatus).toBe('RUNNING');
    expect(r.jobEndMs).toBeUndefined();
    // Everything up to the assertion: the fault and its restart, the restore, checkpoints,
    // committed output (not all of it), the trace ending with the assertion.
    expect(r.faults.map((f) => f.action)).toEqual(['crash', 'restart']);
    expect(r.restores).toBe(1);
    expect(r.checkpoints.completed.length).toBeGreaterThan(0);
    expect(r.committed.length).toBeGreaterThan(0);
    expect(flightIds(r).length).toBeLessThan(ALL_IDS.length);
    expect(r.trace.at(-1)).toMatchObject({ type: 'engine.assertion', attrs: { message: a?.message } });
  });

  test('gives the same trace hash every time, and a run without it another', () => {
    const a = planted();
    expect(a.outcome.reason).toBe('engine-assertion');
    const b = planted();
    expect(b.traceHash).toBe(a.traceHash);
    expect(b.outcome).toEqual(a.outcome);
    expect(b.engineAssertion).toEqual(a.engineAssertion);
    const clean = simulate(spec({ faults }));
    expect(clean.outcome.reason).toBe('stopped');
    expect(clean.engineAssertion).toBeUndefined();
    expect(clean.traceHash).not.toBe(a.traceHash);
  });
});

describe('keyed input evidence', () => {
  const generated = (mode: RunMode, rebalance: boolean): RunSpec => ({
    version: RUN_SPEC_VERSION, seed: 's4',
    job: { kind: 'generated', spec: {
      records: [[1, 2, 3, 4, 5, 6], [7, 8, 9]],
      stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 2 }, { kind: 'map', fn: 0, parallelism: 2, rebalance }],
      sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 128,
    } },
    parallelism: 2, checkpoint: { mode, intervalMs: 10 }, faults: [], healTimeMs: 100,
    budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
  });
  const evidence = (r: RunResult): TraceEvent[] => r.trace.filter((e) => e.type === 'keyed.inputs');

  test('only at-least-once runs with a non-forward edge after a keyed stage trace what it read', () => {
    const traced = simulate(generated('at-least-once', true));
    const finals = evidence(traced).filter((e) => e.attrs['checkpoint'] === -1);
    expect(finals.map((e) => e.attrs['task']).sort()).toEqual(['v1#0@0', 'v1#1@0']);
    // Every record the keyed stage read is in some event of the attempt: 9 in all.
    const items = evidence(traced).flatMap((e) => String(e.attrs['records']).split(',').filter((x) => x !== ''));
    const count = items.reduce((n, x) => {
      const m = /^\d+:(\d+)-(\d+)$/.exec(x);
      return n + (m === null ? 1 : Number(m[2]) - Number(m[1]) + 1);
    }, 0);
    expect(count).toBe(9);
    expect(evidence(simulate(generated('aligned', true)))).toEqual([]);
    expect(evidence(simulate(generated('at-least-once', false)))).toEqual([]);
  });
});
