import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { protocolInvariants } from './protocolInvariants.ts';
import { doctor, event, sampleRun } from './testing/sampleRuns.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { regionRestartSpec } from '../plantedBugs/regionRestartSpec.ts';

const invariants = (r: RunResult): string[] =>
  protocolInvariants(r).map((v) => (v.details as { invariant: string }).invariant);

/** `r` with its trace replaced by `f(trace)`. */
const retrace = (r: RunResult, f: (t: TraceEvent[]) => TraceEvent[]): RunResult =>
  doctor(r, { trace: f([...r.trace]) });

const idOf = (e: TraceEvent): number => Number(e.attrs['checkpointId']);

describe('oracle 5: protocol invariants', () => {
  test('hold on real runs in every mode, with and without a crash', () => {
    for (const mode of ['aligned', 'at-least-once', 'none'] as const) {
      for (const crash of [false, true]) expect(protocolInvariants(sampleRun(mode, crash))).toEqual([]);
    }
    expect(sampleRun('aligned', true).trace.some((e) => e.type === 'checkpoint.plan')).toBe(true);
  });

  test('reordered checkpoint ids are caught', () => {
    const r = retrace(sampleRun('aligned', false), (t) => {
      const [a, b] = t.filter((e) => e.type === 'checkpoint.triggered');
      return t.map((e) => (e === a ? { ...e, attrs: { ...e.attrs, checkpointId: idOf(b as TraceEvent) } }
        : e === b ? { ...e, attrs: { ...e.attrs, checkpointId: idOf(a as TraceEvent) } } : e));
    });
    const vs = protocolInvariants(r);
    expect(vs.map((v) => v.summary)).toContain('ids-increase: checkpoint 1 triggered after 2');
  });

  test('a task that aborts one checkpoint twice is caught (FLINK-5285)', () => {
    const decline = (at: number, task: string): TraceEvent => event(1_000_000 + at, 1_000_000 + at, 'checkpoint.declinedByTask',
      { checkpointId: 3, task, reason: 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER' }, 'taskmanager-1');
    const once = retrace(sampleRun('at-least-once', false), (t) => [...t, decline(1, 'v1#0@0'), decline(2, 'v1#1@0')]);
    expect(invariants(once)).toEqual([]);
    const twice = retrace(sampleRun('at-least-once', false), (t) => [...t, decline(1, 'v1#0@0'), decline(2, 'v1#0@0')]);
    expect(protocolInvariants(twice).map((v) => v.summary)).toEqual(['abort-once-per-task: task v1#0@0 aborted checkpoint 3 twice']);
  });

  test('a completion without every planned ack is caught', () => {
    const r = retrace(sampleRun('aligned', false), (t) => {
      const i = t.findIndex((e) => e.type === 'checkpoint.acknowledged' && idOf(e) === 2);
      const gone = t[i] as TraceEvent;
      t.splice(i, 1);
      expect(gone.attrs['task']).toBeDefined();
      return t;
    });
    const [v] = protocolInvariants(r);
    expect(v?.summary).toMatch(/^complete-after-all-acks: checkpoint 2 completed without acks of v\d#\d@0$/);
    expect(v?.property).toBe('protocol-invariants');
  });

  test('a plan that waits for a finished task is caught', () => {
    const r = retrace(sampleRun('aligned', false), (t) => t.map((e) => (e.type === 'checkpoint.plan' && idOf(e) === 1
      ? { ...e, attrs: { ...e.attrs, finished: 'v0#0@0' } } : e)));
    // v0#0@0 was also still running, so the plan counts an unfinished attempt as finished.
    expect(invariants(r)).toEqual(['complete-after-all-acks', 'finished-tasks-finished']);
  });

  test('a plan that counts a FAILED attempt as finished is caught (FLINK-40482); plans with really finished tasks pass', () => {
    // Three pipelined regions: one finishes early, one fails, one runs (regionRestartSpec.ts).
    const on = { at: { kind: 'job', status: 'RESTARTING', nth: 1 } } as const;
    const correct = simulate(regionRestartSpec({ type: 'savepoint', when: on }, []));
    const plans = correct.trace.filter((e) => e.type === 'checkpoint.plan' && e.attrs['finished'] !== '');
    expect(plans.length).toBeGreaterThan(0);
    expect(protocolInvariants(correct)).toEqual([]);
    const buggy = simulate(regionRestartSpec({ type: 'savepoint', when: on }, ['plan-terminal-as-finished']));
    const [v] = protocolInvariants(buggy).filter((x) => (x.details as { invariant: string }).invariant === 'finished-tasks-finished');
    expect(v?.summary).toMatch(/^finished-tasks-finished: checkpoint \d+ counts .*v\d#1@0.* as finished, which had not entered FINISHED when the plan was made$/);
    // The same trace without the attempt's FINISHED: a real finished task is then doubted too.
    const dropped = retrace(correct, (t) => t.filter((e) => e.type !== 'task.finished'));
    expect(invariants(dropped)).toContain('finished-tasks-finished');
  });

  test('too many pending, too short a pause, notifications of unknown checkpoints are caught', () => {
    const base = sampleRun('aligned', false);
    const first = base.trace.find((e) => e.type === 'checkpoint.triggered') as TraceEvent;
    const extra = event(first.seq, first.timeUs, 'checkpoint.triggered', { checkpointId: 0.5, timestampUs: first.timeUs });
    const r = retrace(base, (t) => [...t.slice(0, t.indexOf(first) + 1), extra, ...t.slice(t.indexOf(first) + 1)]);
    // 0.5 after 1: not increasing; it never ends, so from then on two are pending with max 1.
    expect([...new Set(invariants(r))]).toEqual(['ids-increase', 'max-concurrent']);
    const paused = doctor(base, { spec: { ...base.spec, checkpoint: { ...base.spec.checkpoint, minPauseMs: 15 } } });
    const vs = protocolInvariants(paused);
    expect(vs.length).toBeGreaterThan(0);
    expect(vs[0]?.summary).toMatch(/^min-pause: checkpoint \d+ chosen [\d.]+ ms after the last completion, min pause 15 ms$/);
    const notified = retrace(base, (t) => [...t, event(t.length, 1e9, 'checkpoint.taskNotified', { checkpointId: 999, task: 'v0#0@0' })]);
    expect(invariants(notified)).toEqual(['notify-only-completed']);
  });

  test('an ack accepted after disposal, and a late ack whose state is never discarded, are caught', () => {
    const base = sampleRun('aligned', false);
    const end = base.trace.at(-1) as TraceEvent;
    const late = retrace(base, (t) => [...t,
      event(t.length, end.timeUs + 1, 'checkpoint.acknowledged', { checkpointId: 1, task: 'v0#0@0', result: 'SUCCESS' }),
      event(t.length + 1, end.timeUs + 2, 'mark', { name: 'late-ack-discarded', checkpointId: 3 }),
      event(t.length + 2, end.timeUs + 3, 'mark', { name: 'late-ack-discarded', checkpointId: 4 }),
      event(t.length + 3, end.timeUs + 4, 'checkpoint.subtaskStateDiscarded', { checkpointId: 4, files: 1 }),
    ]);
    const vs = protocolInvariants(late);
    expect(vs.map((v) => v.summary)).toEqual([
      'late-ack-discarded: checkpoint 1 accepted an ack after it was disposed',
      'late-ack-discarded: the state of a late ack for checkpoint 3 was never discarded',
    ]);
    expect(protocolInvariants(late, { maxPerInvariant: 1 })).toHaveLength(1);
  });
});
