/**
 * Savepoint actions end to end on the flights job: a savepoint between two checkpoints is taken
 * by every task into `savepoint-<id>`, stays outside the store, notifies nobody (the sink's
 * savepoint transaction waits for the next checkpoint's notification), leaves its files to the
 * user, and the job's output stays exactly once; the action log says what the client learnt.
 */
import { describe, expect, test } from 'vitest';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { SimInputError } from '../SimInputError.ts';
import type { FlightOutput } from '../workloads/flights.ts';
import { RUN_SPEC_VERSION, type Action, type Fault, type RunMode, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { simulate } from './simulate.ts';

function spec(o: { mode?: RunMode; actions?: Action[]; faults?: Fault[]; maxConcurrent?: number; healTimeMs?: number } = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'savepoint-test',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: o.mode ?? 'aligned', intervalMs: 20, ...(o.maxConcurrent === undefined ? {} : { maxConcurrent: o.maxConcurrent }) },
    faults: o.faults ?? [],
    actions: o.actions ?? [],
    healTimeMs: o.healTimeMs ?? 200,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 20_000 },
    overrides: [],
    mutations: [],
  };
}

const ids = (r: RunResult): number[] => r.committed.map((c) => (c.record as { value: FlightOutput }).value.flightId).sort((a, b) => a - b);
const ALL = [...Array(300).keys()];

describe('savepoint actions', () => {
  test.each<RunMode>(['aligned', 'at-least-once'])('a savepoint at 50 ms in mode %s completes outside the store and '
    + 'the output stays whole', (mode) => {
    const r = simulate(spec({ mode, actions: [{ type: 'savepoint', when: { atMs: 50 } }] }), { checkInvariants: true });
    expect(r.jobStatus).toBe('FINISHED');
    const [fired, done] = r.actions;
    expect(fired).toMatchObject({ action: 0, type: 'savepoint', event: 'fired', timeMs: 50 });
    expect(done?.event).toBe('completed');
    const id = done?.checkpointId as number;
    expect(done?.path).toBe(`savepoint-${id}/_metadata`);
    expect(r.unfiredActions).toEqual([]);
    expect(r.marks['savepoint-completed']).toBe(1);
    // Its state is in its own directory, and stays there after the job FINISHED (the user's).
    const savepoint = r.checkpoints.completed.find((c) => c.checkpointId === id);
    expect(savepoint?.kind).toBe('savepoint');
    const files = r.objectStorePaths.filter((p) => p.startsWith(`savepoint-${id}/`));
    expect(files).toContain(`savepoint-${id}/_metadata`);
    expect(files.length).toBeGreaterThan(1);
    expect(r.objectStorePaths.filter((p) => !p.startsWith('savepoint-'))).toEqual([]);
    // No task was told of it, and none counts that as a lost notification.
    expect(r.trace.some((e) => e.type === 'checkpoint.taskNotified' && e.attrs['checkpointId'] === id)).toBe(false);
    expect(r.marks['notify-complete-skipped']).toBeUndefined();
    expect(r.trace.some((e) => e.type === 'checkpoint.notifiedComplete' && e.attrs['checkpointId'] === id)).toBe(false);
    expect(ids(r)).toEqual(ALL);
    const verdict = defaultJudge(r, mode === 'aligned' ? 'exactly-once' : 'at-least-once');
    expect(verdict.violations).toEqual([]);
  });

  test('the sink pre-commits at the savepoint, and the next checkpoint\'s notification commits that transaction', () => {
    const r = simulate(spec({ actions: [{ type: 'savepoint', when: { atMs: 50 } }] }));
    const id = r.actions.find((a) => a.event === 'completed')?.checkpointId as number;
    const preCommitted = r.trace.filter((e) => e.type === 'sink.pre-committed' && e.attrs['checkpoint'] === id);
    expect(preCommitted.map((e) => e.attrs['subtask']).sort()).toEqual([0, 1]);
    for (const p of preCommitted) {
      const commit = r.trace.find((e) => e.type === 'sink.committed' && e.attrs['subtask'] === p.attrs['subtask']
        && e.attrs['epoch'] === p.attrs['epoch']);
      expect(commit?.attrs['checkpoint']).toBe(id);
      // Committed when a later checkpoint's notification arrived: the savepoint notified nobody.
      expect(Number(commit?.attrs['notified'])).toBeGreaterThan(id);
    }
  });

  test('a world setting aimed at a checkpoint id no operation ever had never acted: it is listed unfired, '
    + 'one aimed at the savepoint\'s id acted', () => {
    const aimed = (checkpoint: number): Fault[] => [
      { type: 'slow-store', factor: 2, checkpoint }, { type: 'async-snapshot-failure', probability: 0.01, checkpoint },
    ];
    const missed = simulate(spec({ actions: [{ type: 'savepoint', when: { atMs: 50 } }], faults: aimed(90) }));
    expect(missed.unfiredFaults).toEqual([0, 1]);
    const id = missed.actions.find((a) => a.event === 'completed')?.checkpointId as number;
    const hit = simulate(spec({ actions: [{ type: 'savepoint', when: { atMs: 50 } }], faults: aimed(id) }));
    expect(hit.unfiredFaults).toEqual([]);
  });

  test('a savepoint at a protocol point fires once, right after it', () => {
    const r = simulate(spec({ actions: [{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }] }));
    const fired = r.actions.find((a) => a.event === 'fired');
    const completedAt = r.trace.find((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === 2);
    expect(fired?.timeMs).toBe((completedAt?.timeUs ?? NaN) / 1000);
    expect(r.actions.filter((a) => a.event === 'fired')).toHaveLength(1);
  });

  test('an action fires after the heal time too (actions are not faults); one whose point never comes is unfired', () => {
    const r = simulate(spec({ healTimeMs: 10, actions: [
      { type: 'savepoint', when: { atMs: 60 } },
      { type: 'savepoint', when: { at: { kind: 'restore' } } },
    ] }));
    expect(r.actions.filter((a) => a.event === 'fired').map((a) => a.action)).toEqual([0]);
    expect(r.actions.find((a) => a.event === 'completed')?.action).toBe(0);
    expect(r.unfiredActions).toEqual([1]);
  });

  test('without checkpointing (mode none) the JobMaster has no coordinator: the savepoint fails and says why', () => {
    const r = simulate(spec({ mode: 'none', actions: [{ type: 'savepoint', when: { atMs: 30 } }] }));
    expect(r.actions.map((a) => [a.event, a.reason])).toEqual([['fired', undefined], ['failed', 'job has no checkpoint coordinator (checkpointing is off)']]);
  });

  test('a savepoint after the job finished fails with the coordinator shut down', () => {
    const r = simulate(spec({ actions: [{ type: 'savepoint', when: { at: { kind: 'job', status: 'FINISHED' } } }] }));
    expect(r.actions.find((a) => a.event === 'failed')?.reason).toBe('CHECKPOINT_COORDINATOR_SHUTDOWN');
  });

  test('bad actions are refused with one line naming the field', () => {
    expect(() => simulate(spec({ actions: [{ type: 'savepoint', when: { at: { kind: 'task', checkpoint: 1, phase: 'acked', task: 'v9#0' } } }] })))
      .toThrow(SimInputError);
    expect(() => simulate(spec({ actions: [{ type: 'savepoint', when: { at: { kind: 'task', checkpoint: 1, phase: 'acked', task: 'v9#0' } } }] })))
      .toThrow(/^actions\[0\]\.when\.at\.task: no task v9#0 in this job/);
    expect(() => simulate({ ...spec(), actions: [{ type: 'stop', when: { atMs: 1 } }] } as unknown as RunSpec))
      .toThrow(/actions\[0\]/);
  });
});
