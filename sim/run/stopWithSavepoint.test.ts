/**
 * Stop-with-savepoint end to end on the flights job (reference 5.6), each outcome of Flink 1.20:
 * a stop that finishes (both variants) with its output cut at the savepoint; a stop whose
 * savepoint expires or is declined, after which the job fails over and keeps running; a stop
 * whose job fails after the savepoint exists (StopWithSavepointStoppingException); and a stop
 * whose confirmation or abort is lost, which can never end. The oracles judge each.
 */
import { describe, expect, test } from 'vitest';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { replaySpec } from '../../properties/explore/replay.ts';
import { endToEndExactlyOnce } from '../../properties/oracles/endToEndExactlyOnce.ts';
import type { CommittedRecord } from '../../properties/oracles/compareOutputs.ts';
import { sharedReferenceFold } from '../../properties/sharedReferenceFold.ts';
import { cutAtSavepoint, stopOutcome } from '../../properties/oracles/stopWithSavepoint.ts';
import { SimInputError } from '../SimInputError.ts';
import { RUN_SPEC_VERSION, type Action, type Fault, type RunMode, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { simulate } from './simulate.ts';

function spec(o: { mode?: RunMode; drain?: boolean; faults?: Fault[]; actions?: Action[] } = {}): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'stop-test',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: o.mode ?? 'aligned', intervalMs: 20, timeoutMs: 100 },
    faults: o.faults ?? [],
    actions: o.actions ?? [{ type: 'stop-with-savepoint', drain: o.drain ?? false, when: { atMs: 50 } }],
    healTimeMs: 400,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 5_000 },
    overrides: [],
    mutations: [],
  };
}

const events = (r: RunResult, type: string, id?: number): RunResult['trace'][number][] =>
  r.trace.filter((e) => e.type === type && (id === undefined || e.attrs['checkpointId'] === id));

/** The sync savepoint's id: the stop's action log says it (checkpoint 3 at 50 ms with these settings). */
const SAVEPOINT = 3;

describe('stop-with-savepoint', () => {
  test.each([false, true])('drain %s: the sources stop, every task performs the synchronous savepoint, is notified of it and '
    + 'finishes; the job is FINISHED with the output of the input up to the savepoint, the rest never read', (drain) => {
    const r = simulate(spec({ drain }), { checkInvariants: true });
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.actions.map((a) => [a.event, a.checkpointId])).toEqual([['fired', undefined], ['completed', SAVEPOINT]]);
    expect(r.marks['stop-with-savepoint-finished']).toBe(1);
    const stops = events(r, 'task.stopSourceForSavepoint', SAVEPOINT);
    expect(stops.map((e) => e.attrs['mode'])).toEqual([drain ? 'DRAIN' : 'NO_DRAIN', drain ? 'DRAIN' : 'NO_DRAIN']);
    // Drain ends the operators' input (endInput, finish); without, their data only stops.
    const ends = events(r, 'task.endOfInput');
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.every((e) => e.attrs['stopMode'] === (drain ? undefined : 'NO_DRAIN'))).toBe(true);
    // Periodic checkpoints stopped: nothing after the savepoint was triggered.
    expect(events(r, 'checkpoint.triggered').every((e) => Number(e.attrs['checkpointId']) <= SAVEPOINT)).toBe(true);
    // Every task was notified of it (a synchronous savepoint notifies), then finished.
    const tasks = new Set(events(r, 'checkpoint.taskNotified', SAVEPOINT).map((e) => String(e.attrs['task'])));
    expect(tasks.size).toBe(events(r, 'scheduler.deploy').length);
    // The savepoint's files stay (the user's); the store holds nothing else.
    expect(r.objectStorePaths).toContain(`savepoint-${SAVEPOINT}/_metadata`);
    expect(r.objectStorePaths.every((p) => p.startsWith(`savepoint-${SAVEPOINT}/`))).toBe(true);
    // Judged against F(prefixes(savepoint)): fewer records than the whole input, and they pass.
    const stop = stopOutcome(r);
    expect(stop?.kind).toBe('finished');
    const cut = sharedReferenceFold(cutAtSavepoint(r.graph, stop?.savepoint as NonNullable<typeof stop>['savepoint'] & object)).outputs;
    expect(cut.length).toBe(r.committed.length);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThan(300);
    expect(defaultJudge(r, 'exactly-once').violations).toEqual([]);
    // Judged against the whole input instead, the same output is short: the cut is what passes it.
    const whole = endToEndExactlyOnce({
      graph: r.graph, committed: r.committed.map((c) => c.record as CommittedRecord), finalState: r.finalState as never,
    });
    expect(whole.details.missingCount).toBe(300 - cut.length);
  });

  test('in at-least-once mode a finished stop is judged at the savepoint too', () => {
    const r = simulate(spec({ mode: 'at-least-once' }));
    expect(r.marks['stop-with-savepoint-finished']).toBe(1);
    expect(defaultJudge(r, 'at-least-once').violations).toEqual([]);
  });

  test('the synchronous savepoint expires: the stop fails, the waiting tasks fail with "Stop-with-savepoint failed." '
    + 'on its abort, the job fails over, checkpoints start again and the job reads all of its input', () => {
    const r = simulate(spec({ faults: [{ type: 'slow-store', factor: 1000, checkpoint: SAVEPOINT }] }), { checkInvariants: true });
    expect(r.actions.map((a) => [a.event, a.reason])).toEqual([['fired', undefined], ['failed', 'CHECKPOINT_EXPIRED']]);
    expect(r.marks['stop-with-savepoint-failed']).toBe(1);
    expect(events(r, 'scheduler.taskFailed').some((e) => e.attrs['cause'] === 'Stop-with-savepoint failed.')).toBe(true);
    expect(events(r, 'checkpoint.completed').some((e) => Number(e.attrs['checkpointId']) > SAVEPOINT)).toBe(true);
    expect(r.jobStatus).toBe('FINISHED');
    expect(r.committed.length).toBe(300);
    expect(defaultJudge(r, 'exactly-once').violations).toEqual([]);
  });

  test('a task declines the synchronous savepoint (its state write fails): the failure manager fails the job over '
    + 'at once (failJob), the stop fails, the job keeps running', () => {
    const r = simulate(spec({ faults: [{ type: 'async-snapshot-failure', probability: 1, checkpoint: SAVEPOINT }] }), { checkInvariants: true });
    expect(r.actions.map((a) => [a.event, a.reason])).toEqual([['fired', undefined], ['failed', 'CHECKPOINT_ASYNC_EXCEPTION']]);
    expect(r.marks['stop-with-savepoint-failed']).toBe(1);
    expect(events(r, 'scheduler.globalFailure').length).toBeGreaterThan(0);
    expect(r.jobStatus).toBe('FINISHED');
    expect(defaultJudge(r, 'exactly-once').violations).toEqual([]);
  });

  test('the savepoint exists, then a TaskManager crashes before its tasks finish: the job ends FAILED '
    + '(StopWithSavepointStoppingException, unrecoverable), its output is the committed plus what the savepoint '
    + 'holds pre-committed, and that equals F(prefixes(savepoint))', () => {
    const r = simulate(spec({ faults: [{ type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'jobmaster', checkpoint: SAVEPOINT, phase: 'completed' } } }] }),
      { checkInvariants: true });
    expect(r.jobStatus).toBe('FAILED');
    expect(r.actions.map((a) => [a.event, a.reason, a.checkpointId])).toEqual([
      ['fired', undefined, undefined], ['failed', 'StopWithSavepointStoppingException', SAVEPOINT]]);
    expect(r.marks['stop-with-savepoint-job-failed']).toBe(1);
    expect(events(r, 'scheduler.unrecoverableFailure')).toHaveLength(1);
    expect(r.restores).toBe(0);
    expect(r.preCommitted.length).toBeGreaterThan(0);
    const verdict = defaultJudge(r, 'exactly-once');
    expect(verdict.violations).toEqual([]);
    expect(verdict.keyedState).toMatchObject({ judged: false, reason: 'job-not-finished' });
    // Without the savepoint's pre-committed records the committed output is short of the cut.
    const stop = stopOutcome(r);
    const cut = cutAtSavepoint(r.graph, stop?.savepoint as NonNullable<typeof stop>['savepoint'] & object);
    const committedOnly = endToEndExactlyOnce({
      graph: cut, committed: r.committed.map((c) => c.record as CommittedRecord), finalState: {}, judgeState: false,
    });
    expect(committedOnly.details.missingCount).toBe(r.preCommitted.length);
  });

  test('a rescale\'s stop fired while the first stop\'s tasks are still finishing fails; the job FAILED by the first '
    + '(StopWithSavepointStoppingException) is judged as that stop\'s outcome, not as a liveness violation', () => {
    const atSavepoint = { at: { kind: 'jobmaster', checkpoint: SAVEPOINT, phase: 'completed' } } as const;
    const r = simulate(spec({
      faults: [{ type: 'crash', host: 'taskmanager-1', when: atSavepoint }],
      actions: [{ type: 'stop-with-savepoint', drain: false, when: { atMs: 50 } }, { type: 'rescale', parallelism: 1, when: atSavepoint }],
    }));
    expect(r.jobStatus).toBe('FAILED');
    expect(r.actions.filter((a) => a.event !== 'fired').map((a) => [a.action, a.reason])).toEqual([
      [1, 'TRIGGER_CHECKPOINT_FAILURE'], [0, 'StopWithSavepointStoppingException']]);
    expect(stopOutcome(r)).toMatchObject({ kind: 'job-failed', action: 0, savepoint: { checkpointId: SAVEPOINT } });
    const verdict = defaultJudge(r, 'exactly-once');
    expect(verdict.violations).toEqual([]);
    expect(verdict.keyedState).toMatchObject({ judged: false, reason: 'job-not-finished' });
    expect(verdict.keyedState.judged === false && verdict.keyedState.detail).toMatch(/judged at the savepoint/);
  });

  test('a lost confirmation of the synchronous savepoint: its task waits forever (nothing resends it), marked '
    + 'stop-with-savepoint-stuck, a known outcome liveness counts and does not pass', () => {
    const r = simulate(spec({ faults: [{ type: 'message', action: 'lose', method: 'confirmCheckpoint', checkpoint: SAVEPOINT }] }));
    expect(r.outcome.reason).toBe('max-time');
    expect(r.jobStatus).toBe('RUNNING');
    expect(r.marks['stop-with-savepoint-stuck']).toBe(1);
    expect(r.stuckStop).toMatchObject({ action: 0, checkpointId: SAVEPOINT, savepoint: 'completed' });
    expect(r.stuckStop?.tasks.length).toBeGreaterThan(0);
    const verdict = defaultJudge(r, 'exactly-once');
    expect(verdict.violations).toEqual([]);
    expect(verdict.knownStuck).toBe(true);
    // Its output is judged at the savepoint (the waiting sink's transaction is pre-committed in it).
    expect(verdict.keyedState).toMatchObject({ judged: false, reason: 'job-not-finished' });
    // replay carries the same judgement, so it can say what was not judged.
    const replayed = replaySpec(r.spec, 'exactly-once', { simulate: (s) => simulate(s), judge: defaultJudge });
    expect(replayed.judgement.knownStuck).toBe(true);
  });

  test('a failed synchronous savepoint whose abort never reaches the tasks: they wait forever too, stuck '
    + 'after a failed savepoint', () => {
    const lose = [1, 2, 3, 4].map((nth): Fault => ({ type: 'message', action: 'lose', method: 'abortCheckpoint', checkpoint: SAVEPOINT, nth }));
    const r = simulate(spec({ faults: [{ type: 'slow-store', factor: 1000, checkpoint: SAVEPOINT }, ...lose] }));
    expect(r.marks['stop-with-savepoint-failed']).toBe(1);
    expect(r.stuckStop).toMatchObject({ checkpointId: SAVEPOINT, savepoint: 'failed' });
    expect(defaultJudge(r, 'exactly-once').knownStuck).toBe(true);
  });

  test('without checkpointing the stop fails at once and says why; two stops in one run are refused', () => {
    const r = simulate(spec({ mode: 'none' }));
    expect(r.actions.map((a) => a.reason)).toEqual([undefined, 'job has no checkpoint coordinator (checkpointing is off)']);
    const two: Action[] = [{ type: 'stop-with-savepoint', when: { atMs: 10 } }, { type: 'stop-with-savepoint', drain: true, when: { atMs: 20 } }];
    expect(() => simulate(spec({ actions: two }))).toThrow(SimInputError);
    expect(() => simulate(spec({ actions: two }))).toThrow(/^actions\[1\]: a run has at most one stop-with-savepoint/);
  });
});
