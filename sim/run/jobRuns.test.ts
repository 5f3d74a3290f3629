/**
 * Histories of several job runs on the flights job: a restore into a new job run (a `rescale`
 * action at the same parallelism), through stop-with-savepoint or cancel with a retained
 * checkpoint, in each claim mode; the retention policies on cancel; each run's JobMaster fenced
 * from the others'. The oracles judge each history (ORACLES.md "Across job runs").
 */
import { describe, expect, test } from 'vitest';
import { defaultJudge } from '../../properties/explore/defaultJudge.ts';
import { SimInputError } from '../SimInputError.ts';
import { RUN_SPEC_VERSION, type Action, type CheckpointSpec, type Fault, type RunSpec } from './RunSpec.ts';
import type { RunResult } from './RunResult.ts';
import { simulate } from './simulate.ts';

function spec(actions: Action[], checkpoint: Partial<CheckpointSpec> = {}, faults: Fault[] = []): RunSpec {
  return {
    version: RUN_SPEC_VERSION,
    seed: 'job-runs',
    job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20, timeoutMs: 100, ...checkpoint },
    faults,
    actions,
    healTimeMs: 400,
    budgets: { maxEvents: 2_000_000, maxTimeMs: 5_000 },
    overrides: [],
    mutations: [],
  };
}

const rescale = (o: Partial<Extract<Action, { type: 'rescale' }>> = {}): Action =>
  ({ type: 'rescale', when: { atMs: 50 }, parallelism: 2, ...o }) as Action;

const ofRun = (r: RunResult, run: number, type: string): RunResult['trace'][number][] =>
  r.trace.filter((e) => e.type === type && (e.attrs['jobRun'] ?? 1) === run);

function judged(r: RunResult): string[] {
  return defaultJudge(r, 'exactly-once').violations.map((v) => `${v.property}: ${v.summary}`);
}

describe('a restore into a new job run (rescale at the same parallelism)', () => {
  test('via stop-with-savepoint: the next run has its own JobMaster, ids after the savepoint, attempts above the '
    + 'first run\'s, its own checkpoint directory, and the history commits every record exactly once', () => {
    const r = simulate(spec([rescale()]), { checkInvariants: true });
    expect(r.jobRuns.map((run) => [run.index, run.status])).toEqual([[1, 'FINISHED'], [2, 'FINISHED']]);
    const restored = r.jobRuns[1]?.restoredFrom;
    expect(restored).toMatchObject({ jobRun: 1, claimMode: 'NO_CLAIM', savepoint: true });
    const savepointId = restored?.checkpointId ?? -1;
    expect(restored?.path).toBe(`savepoint-${savepointId}/_metadata`);
    // Run 2's ids continue after the savepoint it was restored from (restoreSavepoint).
    const ids = ofRun(r, 2, 'checkpoint.triggered').map((e) => Number(e.attrs['checkpointId']));
    expect(ids.length).toBeGreaterThan(0);
    expect(Math.min(...ids)).toBe(savepointId + 1);
    // Its checkpoints live under run-2/ and its RPCs go to jobmaster-2.
    expect(r.checkpoints.completed.filter((c) => c.jobRun === 2).every((c) => c.metadataPath.startsWith('run-2/chk-'))).toBe(true);
    expect(r.trace.some((e) => e.type === 'rpc.send' && e.attrs['to'] === 'jobmaster-2')).toBe(true);
    // Attempt numbers keep growing: every attempt of run 2 is numbered above run 1's.
    const attempt = (e: RunResult['trace'][number]): number => Number(/@(\d+)$/.exec(String(e.attrs['task']))?.[1]);
    const first = Math.max(...ofRun(r, 1, 'scheduler.deploy').map(attempt));
    expect(Math.min(...ofRun(r, 2, 'scheduler.deploy').map(attempt))).toBeGreaterThan(first);
    expect(r.marks['restored-from-savepoint']).toBe(1);
    expect(r.marks['restored-no-claim']).toBe(1);
    expect(r.committed.length).toBe(300);
    expect(judged(r)).toEqual([]);
  });

  test('NO_CLAIM: the first checkpoint after the restore is FULL, the savepoint\'s files stay; CLAIM: no forced full '
    + 'checkpoint, the savepoint joins the store and is deleted once subsumed; LEGACY: kept, not forced full', () => {
    const fullIds = (r: RunResult): number[] => ofRun(r, 2, 'checkpoint.fullSnapshot').map((e) => Number(e.attrs['checkpointId']));
    const noClaim = simulate(spec([rescale()]));
    const savepoint = noClaim.jobRuns[1]?.restoredFrom?.checkpointId ?? -1;
    expect(fullIds(noClaim)).toEqual([savepoint + 1]);
    expect(noClaim.objectStorePaths.some((p) => p.startsWith(`savepoint-${savepoint}/`))).toBe(true);

    const claim = simulate(spec([rescale({ claimMode: 'CLAIM' })]));
    expect(fullIds(claim)).toEqual([]);
    expect(claim.marks['restored-no-claim']).toBeUndefined();
    const claimed = claim.jobRuns[1]?.restoredFrom?.checkpointId ?? -1;
    expect(claim.objectStorePaths.some((p) => p.startsWith(`savepoint-${claimed}/`))).toBe(false);
    expect(claim.trace.some((e) => e.type === 'store.begin' && e.attrs['op'] === 'deleteDirectory'
      && e.attrs['path'] === `savepoint-${claimed}`)).toBe(true);

    const legacy = simulate(spec([rescale({ claimMode: 'LEGACY' })]));
    expect(fullIds(legacy)).toEqual([]);
    const kept = legacy.jobRuns[1]?.restoredFrom?.checkpointId ?? -1;
    expect(legacy.objectStorePaths.some((p) => p.startsWith(`savepoint-${kept}/`))).toBe(true);
    for (const r of [noClaim, claim, legacy]) {
      expect(r.committed.length).toBe(300);
      expect(judged(r)).toEqual([]);
    }
  });

  test('via cancel: the first run is CANCELED with its latest checkpoint retained (RETAIN_ON_CANCELLATION), and the '
    + 'next run restores it and commits the rest exactly once', () => {
    const r = simulate(spec([rescale({ via: 'cancel' })], { retention: 'RETAIN_ON_CANCELLATION' }), { checkInvariants: true });
    expect(r.jobRuns.map((run) => run.status)).toEqual(['CANCELED', 'FINISHED']);
    const from = r.jobRuns[1]?.restoredFrom;
    expect(from).toMatchObject({ jobRun: 1, savepoint: false });
    expect(from?.path).toMatch(/^chk-\d+\/_metadata$/);
    expect(r.committed.length).toBe(300);
    expect(judged(r)).toEqual([]);
  });

  test('via cancel after a stop\'s synchronous savepoint completed: the next run restores that savepoint, whose '
    + 'notification committed the sinks\' transactions, not the older checkpoint (found by explore, flights seed 54)', () => {
    // (A savepoint and the stop fire together; the first one is cut short by the cancel.)
    // The stop's savepoint 8 completes and its notification commits the sink's open transaction;
    // the cancel lands before the tasks end (the stop fails with StopWithSavepointStoppingException).
    // Restoring checkpoint 6 would emit that transaction's record again.
    const found: RunSpec = {
      ...spec([
        { type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 6, phase: 'completed' } } },
        { type: 'stop-with-savepoint', drain: false, when: { at: { kind: 'jobmaster', checkpoint: 6, phase: 'completed' } } },
        { type: 'rescale', when: { atMs: 308 }, parallelism: 1, via: 'cancel' },
      ], { intervalMs: 50, maxConcurrent: 2, tolerableFailures: 0, retention: 'RETAIN_ON_CANCELLATION' },
      [{ type: 'slow-store', factor: 20000, checkpoint: 7 }]),
      seed: 's764185821', job: { kind: 'flights', selection: { from: 0, to: 50 } }, parallelism: 1, taskManagers: 1,
      restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 }, healTimeMs: 1150,
      budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, network: { recordsPerBuffer: 1 },
      costsMs: { 'flights-source': 20, 'airport-stats': 1, 'flights-sink': 1 },
    };
    const r = simulate(found, { checkInvariants: true });
    expect(r.actions.filter((a) => a.event !== 'fired').map((a) => [a.type, a.event, a.reason, a.checkpointId]))
      .toEqual([['savepoint', 'failed', 'CHECKPOINT_COORDINATOR_SUSPEND', undefined],
        ['rescale', 'completed', undefined, 8],
        ['stop-with-savepoint', 'failed', 'StopWithSavepointStoppingException', 8]]);
    expect(r.jobRuns.map((run) => run.status)).toEqual(['CANCELED', 'FINISHED']);
    expect(r.jobRuns[1]?.restoredFrom).toMatchObject({ jobRun: 1, savepoint: true, path: 'savepoint-8/_metadata' });
    expect(r.committed.length).toBe(50);
    expect(judged(r)).toEqual([]);
  });

  test('via cancel before the run completed any checkpoint: the user does not cancel a job it cannot restore, and '
    + 'the run goes on to finish', () => {
    const r = simulate(spec([rescale({ via: 'cancel', when: { atMs: 1 } })], { retention: 'RETAIN_ON_CANCELLATION' }));
    expect(r.trace.some((e) => e.type === 'checkpoint.completed' && e.timeUs <= 1000)).toBe(false);
    expect(r.actions.map((a) => [a.event, a.timeMs, a.reason])).toEqual([
      ['fired', 1, undefined], ['failed', 1, 'no retained checkpoint to restore from (none completed)']]);
    expect(r.trace.some((e) => e.type === 'job.status' && e.attrs['status'] === 'CANCELLING')).toBe(false);
    expect(r.jobRuns.map((run) => run.status)).toEqual(['FINISHED']);
    expect(r.committed.length).toBe(300);
    expect(judged(r)).toEqual([]);
  });

  test('an action at "job RUNNING in run 2" waits for run 2: the RUNNING run 1 booted into is not it', () => {
    const second: Action = { type: 'rescale', when: { at: { kind: 'job', status: 'RUNNING', jobRun: 2 } }, parallelism: 1 };
    const r = simulate(spec([rescale(), second]));
    expect(r.jobRuns.map((run) => [run.index, run.action, run.status])).toEqual([[1, undefined, 'FINISHED'], [2, 0, 'FINISHED']]);
    // It fired once, when run 2 entered RUNNING (not at 0 ms in run 1), and its stop failed as
    // Flink's does while run 2's tasks still deploy (DefaultCheckpointPlanCalculator.checkTasksStarted).
    const run2Running = r.trace.find((e) => e.type === 'job.status' && e.attrs['jobRun'] === 2 && e.attrs['status'] === 'RUNNING');
    expect(r.actions.filter((a) => a.action === 1).map((a) => [a.event, a.timeMs, a.reason])).toEqual([
      ['fired', (run2Running?.timeUs ?? -1) / 1000, undefined], ['failed', (run2Running?.timeUs ?? -1) / 1000, 'NOT_ALL_REQUIRED_TASKS_RUNNING']]);
    expect(r.committed.length).toBe(300);
    expect(judged(r)).toEqual([]);
  });
});

describe('cancel and checkpoint retention', () => {
  const cancel: Action = { type: 'cancel', when: { atMs: 50 } };
  const chkFiles = (r: RunResult): string[] => r.objectStorePaths.filter((p) => p.startsWith('chk-'));

  test.each([
    ['NO_EXTERNALIZED_CHECKPOINTS', false],
    ['DELETE_ON_CANCELLATION', false],
    ['RETAIN_ON_CANCELLATION', true],
  ] as const)('%s: a cancelled job run keeps its checkpoints: %s', (retention, kept) => {
    const r = simulate(spec([cancel], { retention }), { checkInvariants: true });
    expect(r.jobStatus).toBe('CANCELED');
    expect(r.actions.map((a) => a.event)).toEqual(['fired', 'completed']);
    expect(chkFiles(r).length > 0).toBe(kept);
    // A cancelled history is judged for surplus only: nothing committed twice or from nowhere.
    expect(r.committed.length).toBeLessThan(300);
    expect(judged(r)).toEqual([]);
  });

  test('a second cancel while the job is CANCELLING fails and changes nothing', () => {
    const r = simulate(spec([cancel, { type: 'cancel', when: { atMs: 50.2 } }]));
    expect(r.jobStatus).toBe('CANCELED');
    expect(r.actions.filter((a) => a.action === 1).map((a) => [a.event, a.reason])).toEqual([
      ['fired', undefined], ['failed', 'the job was CANCELLING, not running']]);
  });
});

describe('fencing between job runs', () => {
  test('each run\'s coordinator hears only its own attempts: run 2\'s acknowledgements all come from attempts of run 2', () => {
    const r = simulate(spec([rescale()]));
    const attempt = (e: RunResult['trace'][number]): number => Number(/@(\d+)$/.exec(String(e.attrs['task']))?.[1]);
    const run1 = ofRun(r, 1, 'scheduler.deploy').map(attempt);
    const run2Acks = ofRun(r, 2, 'checkpoint.acknowledged');
    expect(run2Acks.length).toBeGreaterThan(0);
    expect(run2Acks.every((e) => attempt(e) > Math.max(...run1))).toBe(true);
    expect(ofRun(r, 1, 'checkpoint.acknowledged').every((e) => run1.includes(attempt(e)))).toBe(true);
  });
});

describe('bad rescale specs are refused with one line', () => {
  test.each([
    ['a parallelism above the snapshot\'s max parallelism', { ...spec([rescale({ parallelism: 10 })]), maxParallelism: 8 },
      'actions[0].parallelism: 10 is above the snapshot\'s max parallelism 8 (the first run\'s, which every later run adopts)'],
    ['a parallelism above the largest any run may have', spec([rescale({ parallelism: 100 })]),
      'actions[0].parallelism: must be an integer in 1..64, got 100'],
    ['via cancel without retained checkpoints', spec([rescale({ via: 'cancel' })]),
      'actions[0].via: cancel leaves a checkpoint to restore only with checkpoint.retention RETAIN_ON_CANCELLATION, got NO_EXTERNALIZED_CHECKPOINTS (the default)'],
    ['with checkpointing off', spec([rescale()], { mode: 'none' }),
      'actions[0]: a rescale needs checkpointing (checkpoint.mode none has no snapshot to restore)'],
    ['a point naming a job run the spec cannot have', spec([rescale(), { type: 'cancel', when: { at: { kind: 'jobmaster', checkpoint: 3, phase: 'completed', jobRun: 3 } } }]),
      'actions[1].when.at.jobRun: job run 3 cannot happen: the spec has 1 rescale action(s), so at most 2 job run(s)'],
    ['an unknown operator', spec([rescale({ parallelism: { nope: 2 } })]),
      'actions[0].parallelism: unknown operator uid "nope" (operators: flights-source, airport-stats, flights-sink)'],
  ])('%s', (_what, s, message) => {
    expect(() => simulate(s)).toThrow(SimInputError);
    expect(() => simulate(s)).toThrow(message);
  });
});
