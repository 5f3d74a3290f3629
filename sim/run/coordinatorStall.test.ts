/**
 * The `coordinator-stall` fault: enumerator work that keeps a source's coordinator thread busy
 * for `durationMs`, so that what the coordinator is asked meanwhile (split requests, its part of
 * a checkpoint, notifications) waits, and that ends at the heal time at the latest.
 */
import { describe, expect, test } from 'vitest';
import type { TraceEvent } from '../Trace.ts';
import { SimInputError } from '../SimInputError.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { simulate } from './simulate.ts';
import { validateRunSpec } from './validateRunSpec.ts';

/** Flights 0..300 at parallelism 2, a checkpoint every 20 ms with a 60 ms timeout. */
function spec(faults: Fault[], o: { healTimeMs?: number; tolerableFailures?: number } = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'coordinator-stall',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20, timeoutMs: 60, tolerableFailures: o.tolerableFailures ?? 10 },
    faults,
    healTimeMs: o.healTimeMs ?? 400,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [],
    mutations: [],
  };
}

const ofType = (r: RunResult, type: string): TraceEvent[] => r.trace.filter((e) => e.type === type);
const ms = (e: TraceEvent | undefined): number => (e?.timeUs ?? NaN) / 1000;
const ofCheckpoint = (r: RunResult, type: string, id: number): TraceEvent | undefined =>
  r.trace.find((e) => e.type === type && (e.attrs['checkpointId'] ?? e.attrs['checkpoint']) === id);

describe('coordinator-stall', () => {
  test('a stall at a checkpoint\'s trigger holds its coordinator snapshot past the timeout: the checkpoint expires', () => {
    const r = simulate(spec([
      { type: 'coordinator-stall', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'triggered' } }, durationMs: 100 },
    ]));
    const triggered = ofCheckpoint(r, 'checkpoint.triggered', 2);
    expect(r.faults.map((f) => [f.action, f.timeMs])).toEqual([['stall', ms(triggered)], ['end', ms(triggered) + 100]]);
    expect(r.marks['coordinator-stall']).toBe(1);
    expect(r.unfiredFaults).toEqual([]);
    // The coordinator's snapshot of 2 runs only when the enumerator work is done, after the
    // canceller expired the checkpoint at its 60 ms timeout.
    const aborted = ofCheckpoint(r, 'checkpoint.aborted', 2);
    expect(aborted?.attrs['reason']).toBe('CHECKPOINT_EXPIRED');
    expect(ms(aborted)).toBeCloseTo(ms(triggered) + 60, 6);
    expect(ms(ofCheckpoint(r, 'source.coordinator-checkpoint', 2))).toBeCloseTo(ms(triggered) + 100, 6);
    expect(ofCheckpoint(r, 'checkpoint.coordinatorsSnapshotted', 2)).toBeUndefined();
    // Later checkpoints complete, and the job reads every record once.
    expect(r.checkpoints.completed.some((c) => c.checkpointId > 2)).toBe(true);
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.committed).toHaveLength(300);
  });

  test('a stall from time 0 holds up the first split requests; the split assignments come when it ends', () => {
    const r = simulate(spec([{ type: 'coordinator-stall', operator: 'flights-source', when: { atMs: 0 }, durationMs: 30 }]));
    const assigned = ofType(r, 'source.split-assigned');
    expect(ms(assigned[0])).toBe(30);
    // The readers asked before that.
    expect(ms(ofType(r, 'source.split-requested')[0])).toBeLessThan(30);
    expect(r.committed).toHaveLength(300);
  });

  test('the heal time ends the work if it is still running', () => {
    const r = simulate(spec([
      { type: 'coordinator-stall', when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'triggered' } }, durationMs: 5000 },
    ], { healTimeMs: 150 }));
    expect(r.faults.map((f) => f.action)).toEqual(['stall', 'end']);
    expect(r.faults[1]?.timeMs).toBe(150);
    expect(ms(ofCheckpoint(r, 'source.coordinator-checkpoint', 1))).toBe(150);
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.committed).toHaveLength(300);
  });

  test('a stall whose point never comes never fires', () => {
    const base = simulate(spec([]));
    const r = simulate(spec([
      { type: 'coordinator-stall', when: { at: { kind: 'jobmaster', checkpoint: 90, phase: 'triggered' } }, durationMs: 10 },
    ]));
    expect(r.unfiredFaults).toEqual([0]);
    expect(r.faults).toEqual([]);
    expect(r.traceHash).toBe(base.traceHash);
  });

  test('an expired checkpoint after a stall fails the job over with no tolerable failures; it recovers once the stall ends', () => {
    const r = simulate(spec([
      { type: 'coordinator-stall', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'triggered' } }, durationMs: 100 },
    ], { tolerableFailures: 0 }));
    expect(ofCheckpoint(r, 'checkpoint.aborted', 2)?.attrs['reason']).toBe('CHECKPOINT_EXPIRED');
    expect(r.restores).toBeGreaterThan(0);
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.committed).toHaveLength(300);
  });
});

describe('coordinator-stall validation', () => {
  const refused = (f: unknown): string => {
    try {
      validateRunSpec(spec([f as Fault]));
    } catch (e) {
      expect(e).toBeInstanceOf(SimInputError);
      return (e as Error).message;
    }
    throw new Error('expected a SimInputError');
  };

  test('names a source: an unknown uid and an operator without a coordinator are refused in one line', () => {
    const at = { atMs: 10 };
    expect(refused({ type: 'coordinator-stall', operator: 'nope', when: at, durationMs: 5 }))
      .toBe('faults[0].operator: unknown operator uid "nope" (sources: flights-source)');
    expect(refused({ type: 'coordinator-stall', operator: 'airport-stats', when: at, durationMs: 5 }))
      .toBe('faults[0].operator: "airport-stats" is not a source, so it has no coordinator (sources: flights-source)');
    expect(refused({ type: 'coordinator-stall', when: at }))
      .toBe('faults[0].durationMs: missing');
    expect(refused({ type: 'coordinator-stall', when: { atMs: 500 }, durationMs: 5 }))
      .toMatch(/^faults\[0\]\.when\.atMs: must be before healTimeMs \(400\)/);
    expect(refused({ type: 'coordinator-stall', when: at, durationMs: -1 })).toMatch(/^faults\[0\]\.durationMs: /);
  });
});
