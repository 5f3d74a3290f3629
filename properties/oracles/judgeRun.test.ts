import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { plantEngineAssertion } from '../../sim/testing/plantEngineAssertion.ts';
import { decisiveEvents } from './decisiveEvents.ts';
import { applicableOracles, judgeRun } from './judgeRun.ts';
import { liveness } from './liveness.ts';
import { requireMarks } from './requireMarks.ts';
import { doctor, event, sampleRun } from './testing/sampleRuns.ts';

describe('judgeRun', () => {
  test('runs the oracles of the mode and passes real runs', () => {
    const expected = {
      aligned: ['consistent-cut', 'end-to-end-exactly-once', 'protocol-invariants', 'failure-handling', 'prompt-abort',
        'storage-invariants', 'liveness', 'attribution'],
      'at-least-once': ['at-least-once', 'protocol-invariants', 'failure-handling', 'prompt-abort', 'storage-invariants', 'liveness',
        'attribution'],
      none: ['at-least-once', 'protocol-invariants', 'storage-invariants', 'liveness', 'attribution'],
    } as const;
    for (const mode of ['aligned', 'at-least-once', 'none'] as const) {
      for (const crash of [false, true]) {
        const verdict = judgeRun(sampleRun(mode, crash));
        expect(verdict.oracles).toEqual(expected[mode]);
        expect(verdict.violations).toEqual([]);
        expect(verdict.configuration).toBe(sampleRun(mode, crash).spec);
      }
    }
  });

  test('other modes, unfinished jobs, expect and skip change the oracles', () => {
    const r = sampleRun('aligned', false);
    const mode = (m: 'unaligned' | 'aligned-timeout'): RunResult =>
      doctor(r, { spec: { ...r.spec, checkpoint: { ...r.spec.checkpoint, mode: m } } });
    expect(applicableOracles(mode('unaligned'))).toEqual(['end-to-end-exactly-once', 'protocol-invariants',
      'failure-handling', 'prompt-abort', 'storage-invariants', 'liveness', 'attribution']);
    expect(applicableOracles(mode('aligned-timeout'))[0]).toBe('end-to-end-exactly-once');
    expect(applicableOracles(doctor(r, { jobStatus: 'FAILED' }))).toEqual(['consistent-cut', 'protocol-invariants',
      'failure-handling', 'prompt-abort', 'storage-invariants', 'liveness', 'attribution']);
    expect(applicableOracles(sampleRun('at-least-once', true),
      { expect: 'exactly-once', skip: ['liveness', 'failure-handling', 'prompt-abort', 'attribution'] }))
      .toEqual(['end-to-end-exactly-once', 'protocol-invariants', 'storage-invariants']);
  });

  test('at-least-once duplicates violate exactly-once when it is expected', () => {
    const r = sampleRun('at-least-once', true);
    const verdict = judgeRun(r, { expect: 'exactly-once' });
    expect(verdict.ok).toBe(false);
    const vs = verdict.violations;
    expect(vs.map((v) => v.property)).toEqual(['end-to-end-exactly-once']);
    expect(vs[0]?.summary).toMatch(/surplus records/);
  });

  test('a counterexample says the property, details, time and the decisive events before it', () => {
    const r = sampleRun('aligned', true);
    const verdict = judgeRun(doctor(r, { committed: r.committed.slice(1), objectStorePaths: [] }),
      { decisiveEvents: 5 });
    const [v, ...rest] = verdict.violations;
    expect(rest).toEqual([]);
    expect(v?.property).toBe('end-to-end-exactly-once');
    expect(v?.timeMs).toBe(r.jobEndMs);
    expect((v?.details as { missingCount: number }).missingCount).toBe(1);
    expect(v?.decisiveEvents).toHaveLength(5);
    expect(v?.decisiveEvents.every((e) => e.timeUs <= (r.jobEndMs ?? 0) * 1000)).toBe(true);
    expect(v?.decisiveEvents.at(-1)?.type).toBe('job.status');
  });
});

describe('judgeRun on a run an engine assertion ended', () => {
  /** Flights 0..300 with a crash, and the engine made to fail an assertion on one late record. */
  function planted(mode: 'aligned' | 'at-least-once'): RunResult {
    const spec: RunSpec = {
      version: RUN_SPEC_VERSION, seed: 'sim-test', job: { kind: 'flights', selection: { from: 0, to: 300 } },
      parallelism: 2, checkpoint: { mode, intervalMs: 20 },
      faults: [{ type: 'crash', host: 'taskmanager-1', when: { atMs: 40 }, downMs: 40 }], healTimeMs: 200,
      budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 }, overrides: [], mutations: [],
    };
    const remove = plantEngineAssertion((r) => r.split === 13 && r.offset === 15, 'planted: split 13 offset 15');
    try {
      return simulate(spec);
    } finally {
      remove();
    }
  }

  test('reports the assertion first, with its location and time, and the decisive events up to it', () => {
    const r = planted('aligned');
    expect(r.checkpoints.completed.length).toBeGreaterThan(0);
    const verdict = judgeRun(r);
    expect(verdict.oracles).toEqual(['engine-assertion', 'consistent-cut']);
    expect(verdict.ok).toBe(false);
    expect(verdict.violations).toHaveLength(1);
    const v = verdict.violations[0];
    expect(v?.property).toBe('engine-assertion');
    expect(v?.summary).toBe('planted: split 13 offset 15');
    expect(v?.details).toEqual({ location: r.engineAssertion?.location, timeMs: r.outcome.timeMs, stack: r.engineAssertion?.stack });
    expect((v?.details as { location: string }).location).toMatch(/^engine\/.+\.ts:\d+$/);
    expect(v?.timeMs).toBe(r.outcome.timeMs);
    expect(v?.decisiveEvents.at(-1)?.type).toBe('engine.assertion');
  });

  test('no other oracle fires on the cut-short run, though liveness would', () => {
    for (const mode of ['aligned', 'at-least-once'] as const) {
      const r = planted(mode);
      expect(judgeRun(r).violations.map((v) => v.property)).toEqual(['engine-assertion']);
      // Not vacuous: judged as if it had ended, the job never did: stuck.
      expect(liveness(r).map((v) => v.summary)).toEqual([expect.stringMatching(/^stuck: /)]);
    }
    expect(applicableOracles(planted('at-least-once'))).toEqual(['engine-assertion']);
    expect(applicableOracles(planted('aligned'), { skip: ['engine-assertion'] })).toEqual(['consistent-cut']);
  });
});

describe('judgeRun says whether the keyed state was judged', () => {
  test('oracle 3 judges it; oracle 4 says when it cannot; an unfinished or skipped output oracle does not', () => {
    expect(judgeRun(sampleRun('aligned', true)).keyedState).toEqual({ judged: true });
    // The sample's sink sits behind a rebalance after the keyed state.
    expect(judgeRun(sampleRun('at-least-once', true)).keyedState).toMatchObject({
      judged: false, reason: 'duplicates-after-keyed-state',
    });
    const failed = doctor(sampleRun('aligned', false), { jobStatus: 'FAILED' });
    expect(judgeRun(failed).keyedState).toEqual({
      judged: false, reason: 'job-not-finished',
      detail: 'the job was FAILED at the end of the run, not FINISHED: no output oracle ran',
    });
    expect(judgeRun(sampleRun('aligned', false), { skip: ['end-to-end-exactly-once'] }).keyedState)
      .toMatchObject({ judged: false, reason: 'oracle-skipped' });
  });
});

describe('judgeRun on a capped trace', () => {
  // Found while measuring: with traceLimit 20000, a run whose checkpoints were deleted after the
  // cap was judged to retain them with every file missing (a false storage violation).
  test('refuses a result whose trace was not stored whole', () => {
    const spec: RunSpec = {
      version: 8, seed: 's1', job: { kind: 'flights', selection: { from: 0, to: 40 } }, parallelism: 2,
      checkpoint: { mode: 'aligned', intervalMs: 20 }, faults: [], healTimeMs: 100,
      budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
    };
    const capped = simulate(spec, { traceLimit: 50 });
    expect(capped.traceDropped).toBeGreaterThan(0);
    expect(() => judgeRun(capped)).toThrow(/judgeRun needs the whole trace: \d+ event\(s\) were not stored/);
    const whole = simulate(spec);
    expect(whole.traceDropped).toBeUndefined();
    expect(judgeRun(whole).violations).toEqual([]);
  });
});

describe('decisiveEvents', () => {
  test('keeps the last non-noise events at or before the time, oldest first', () => {
    const trace = [
      event(0, 1000, 'checkpoint.triggered', { checkpointId: 1 }),
      event(1, 2000, 'rpc.send', { id: 1 }),
      event(2, 3000, 'io.partition.blocked'),
      event(3, 4000, 'checkpoint.completed', { checkpointId: 1 }),
      event(4, 9000, 'host.crash'),
    ];
    expect(decisiveEvents(trace, 5).map((e) => e.seq)).toEqual([0, 3]);
    expect(decisiveEvents(trace, 9, 1).map((e) => e.seq)).toEqual([4]);
    expect(decisiveEvents(trace, 0)).toEqual([]);
  });

  test('keeps the latest causes (faults, failovers, restores) even when later events crowd them out', () => {
    const trace = [
      event(0, 1000, 'fault', { index: 0, type: 'crash', action: 'crash' }, 'sim'),
      event(1, 2000, 'scheduler.restarting'),
      event(2, 3000, 'checkpoint.restored', { checkpointId: 1 }),
      ...Array.from({ length: 20 }, (_x, i) => event(3 + i, 4000 + i, 'checkpoint.completed', { checkpointId: 2 + i })),
      event(23, 90_000, 'fault', { index: 1, type: 'crash', action: 'crash' }, 'sim'),
    ];
    const d = decisiveEvents(trace, 50, 6);
    // Three causes (half of 6) at or before 50 ms, then the last three other events.
    expect(d.map((e) => e.seq)).toEqual([0, 1, 2, 20, 21, 22]);
    expect(decisiveEvents(trace, 50, 1).map((e) => e.seq)).toEqual([22]);
  });
});

describe('oracle 9: requireMarks', () => {
  test('a targeted mark seen in some run passes; one never seen is vacuous', () => {
    const runs = [sampleRun('aligned', false), sampleRun('aligned', true)];
    expect(runs[1]?.marks['restore-from-checkpoint']).toBeGreaterThan(0);
    expect(requireMarks(runs, ['restore-from-checkpoint', 'crash'])).toEqual([]);
    const [v] = requireMarks(runs, ['crash', 'alignment-aborted']);
    expect(v).toMatchObject({ property: 'sometimes-marks', summary: 'vacuous: mark alignment-aborted never appeared in 2 run(s)' });
    expect(requireMarks([], ['crash'])[0]?.summary).toBe('vacuous: mark crash never appeared in 0 run(s)');
  });
});
