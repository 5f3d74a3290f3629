import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { failureHandling } from './failureHandling.ts';
import { doctor, event, sampleRun } from './testing/sampleRuns.ts';

/** A copy of a real aligned run with `tolerable` failures allowed and `trace` as its trace. */
type Step = Omit<TraceEvent, 'seq'> | readonly Omit<TraceEvent, 'seq'>[];

function withTrace(trace: readonly Step[], tolerable = 0, mode: 'aligned' | 'none' = 'aligned'): RunResult {
  const r = sampleRun('aligned', false);
  return doctor(r, {
    spec: { ...r.spec, checkpoint: { ...r.spec.checkpoint, mode, tolerableFailures: tolerable } },
    trace: trace.flat().map((e, seq) => ({ ...e, seq })),
  });
}

const at = (ms: number, type: string, attrs: TraceEvent['attrs'] = {}): Omit<TraceEvent, 'seq'> => {
  const { seq: _seq, ...rest } = event(0, ms * 1000, type, attrs);
  return rest;
};
const running = at(1, 'job.status', { status: 'RUNNING' });
const TASK = 'v1#0@1';
/** A report of checkpoint `id`'s failure, job-level unless `task` declined it. */
const reported = (ms: number, id: number, reason: string, task?: string) => at(ms, 'checkpoint.failureReported',
  { checkpointId: id, reason, level: task === undefined ? 'job' : 'task', ...(task === undefined ? {} : { task }) });
/** An abort of checkpoint `id` and its report. */
const aborted = (ms: number, id: number, reason: string, task?: string) =>
  [at(ms, 'checkpoint.aborted', { checkpointId: id, reason, ...(task === undefined ? {} : { task }) }),
    reported(ms, id, reason, task)];
const expired = (ms: number, id: number) => aborted(ms, id, 'CHECKPOINT_EXPIRED');
const declined = (ms: number, id: number) => aborted(ms, id, 'CHECKPOINT_ASYNC_EXCEPTION', TASK);
const completed = (ms: number, id: number) => at(ms, 'checkpoint.completed', { checkpointId: id });
const failover = (ms: number, cause: string) => at(ms, 'scheduler.globalFailure', { cause });
/** Fail callback `n` enqueued; `task` for failJobDueToTaskFailure. */
const enqueued = (ms: number, n: number, task?: string) => at(ms, 'checkpoint.failJobEnqueued',
  { callback: n, level: task === undefined ? 'job' : 'task', ...(task === undefined ? {} : { task }), cause: 'x' });
/** Fail callback `n` running; `taskState` for failJobDueToTaskFailure. */
const ran = (ms: number, n: number, taskState?: string) => at(ms, 'checkpoint.failJobRun', {
  callback: n, level: taskState === undefined ? 'job' : 'task', ...(taskState === undefined ? {} : { task: TASK, taskState }),
});
/** failJob `n` enqueued at `ms`, run at `runMs`, failing the job over for `reason`. */
const failJob = (ms: number, n: number, runMs: number, reason = 'CHECKPOINT_EXPIRED') =>
  [enqueued(ms, n), ran(runMs, n), failover(runMs, reason)];
const kinds = (r: RunResult): string[] => failureHandling(r).map((v) => (v.details as { kind: string }).kind);

describe('the failure-handling oracle', () => {
  test('holds on real runs, with and without a crash', () => {
    for (const crash of [false, true]) expect(failureHandling(sampleRun('aligned', crash))).toEqual([]);
    expect(failureHandling(sampleRun('at-least-once', true))).toEqual([]);
  });

  test('a callback and a failover for each failure the rule makes fail the job holds', () => {
    expect(kinds(withTrace([running, expired(10, 1), failJob(10, 1, 12), completed(50, 2)]))).toEqual([]);
    expect(kinds(withTrace([running, completed(5, 1), expired(10, 2), expired(20, 3), failJob(20, 1, 20)], 1)))
      .toEqual([]);
    // Ignored and not-counted failures need none.
    expect(kinds(withTrace([running, aborted(10, 1, 'CHECKPOINT_SUBSUMED'), declined(20, 2), completed(30, 3)], 1)))
      .toEqual([]);
  });

  test('a checkpoint that completes while the callback waits for the main thread is no missing failover', () => {
    expect(kinds(withTrace([running, expired(10, 1), enqueued(10, 1), completed(12, 2), ran(15, 1),
      failover(15, 'CHECKPOINT_EXPIRED')]))).toEqual([]);
  });

  test('no callback for a failure the rule makes fail the job is a missing failover (FLINK-17351)', () => {
    const [v, ...rest] = failureHandling(withTrace([running, expired(10, 1), completed(50, 2)]));
    expect(rest).toEqual([]);
    expect(v?.property).toBe('failure-handling');
    expect(v?.summary).toBe('missing failover: checkpoint 1 failed (CHECKPOINT_EXPIRED) at 10 ms and 1 counted '
      + 'failures exceed the 0 tolerable, yet the failure manager did not call failJob');
    expect(v?.timeMs).toBe(10);
    expect(kinds(withTrace([running, expired(10, 1)]))).toEqual(['missing-failover']);
  });

  test('a callback that never runs, or runs and must fail the job but no failover follows, is a missing failover', () => {
    expect(kinds(withTrace([running, expired(10, 1), enqueued(10, 1)]))).toEqual(['missing-failover']);
    const [v] = failureHandling(withTrace([running, expired(10, 1), enqueued(10, 1), ran(12, 1), completed(50, 2)]));
    expect(v?.summary).toBe('missing failover: checkpoint 1 failed (CHECKPOINT_EXPIRED) at 10 ms and 1 counted '
      + 'failures exceed the 0 tolerable, yet the job did not fail over when failJob ran at 12 ms');
    // Unless the job could not fail over any more when it ran.
    expect(kinds(withTrace([running, expired(10, 1), enqueued(10, 1), at(11, 'job.status', { status: 'FINISHED' }),
      ran(12, 1)]))).toEqual([]);
  });

  test('a store failure after an early success report is caught (FLINK-32347)', () => {
    const finalize = aborted(10, 3, 'FINALIZE_CHECKPOINT_FAILURE');
    expect(kinds(withTrace([running, completed(5, 2), finalize, completed(40, 4)]))).toEqual(['missing-failover']);
    // The planted bug does not report the store failure at all.
    const abortOnly = finalize[0] as Omit<TraceEvent, 'seq'>;
    const [v] = failureHandling(withTrace([running, completed(5, 2), abortOnly, completed(40, 4)]));
    expect(v?.summary).toBe('unreported failure: checkpoint 3 was aborted (FINALIZE_CHECKPOINT_FAILURE) at 10 ms, '
      + 'and the failure manager was never told');
    expect(v?.timeMs).toBe(10);
  });

  test('the attempt\'s state when failJobDueToTaskFailure runs decides, not its state at the failure '
    + '(DefaultExecutionGraph.failGlobalIfExecutionIsStillRunning, FLINK-13593)', () => {
    const cause = 'CHECKPOINT_ASYNC_EXCEPTION: boom';
    const [v] = failureHandling(withTrace([running, declined(10, 1), enqueued(10, 1, TASK), ran(12, 1, 'CANCELING'),
      failover(12, cause)]));
    expect(v?.summary).toBe('spurious failover: checkpoint 1 failed (CHECKPOINT_ASYNC_EXCEPTION) at 10 ms and 1 '
      + 'counted failures exceed the 0 tolerable, and when failJobDueToTaskFailure ran the attempt v1#0@1 was '
      + 'CANCELING, yet the job failed over');
    expect(v?.details).toMatchObject({ kind: 'spurious-failover', failure: { task: TASK }, taskState: 'CANCELING' });
    for (const state of ['RUNNING', 'INITIALIZING']) {
      expect(kinds(withTrace([running, declined(10, 1), enqueued(10, 1, TASK), ran(12, 1, state), failover(12, cause)])))
        .toEqual([]);
      expect(kinds(withTrace([running, declined(10, 1), enqueued(10, 1, TASK), ran(12, 1, state), completed(20, 2)])))
        .toEqual(['missing-failover']);
    }
    expect(kinds(withTrace([running, declined(10, 1), enqueued(10, 1, TASK), ran(12, 1, 'SUPERSEDED'), completed(20, 2)])))
      .toEqual([]);
  });

  test('failJob for a task-level failure is the wrong callback: it skips the attempt check (FLINK-13593)', () => {
    const [v] = failureHandling(withTrace([running, declined(10, 1), enqueued(10, 1)]));
    expect(v?.summary).toBe('wrong callback: checkpoint 1 failed (CHECKPOINT_ASYNC_EXCEPTION) at 10 ms and 1 counted '
      + 'failures exceed the 0 tolerable, so the failure manager must call failJobDueToTaskFailure for v1#0@1, '
      + 'yet it called failJob');
    expect(kinds(withTrace([running, declined(10, 1), enqueued(10, 1, 'v1#0@0')]))).toEqual(['wrong-callback']);
  });

  test('a callback for an old checkpoint or within the tolerable number is spurious (FLINK-18336)', () => {
    expect(kinds(withTrace([running, completed(5, 3), expired(10, 2), failJob(10, 1, 10)])))
      .toEqual(['spurious-failover']);
    const [v] = failureHandling(withTrace([running, expired(10, 1), failJob(10, 1, 10)], 1));
    expect(v?.summary).toBe('spurious failover: checkpoint 1 failed (CHECKPOINT_EXPIRED) at 10 ms and 1 of 1 '
      + 'tolerable, yet the failure manager called failJob');
  });

  test('a failure reported without an abort counts like any other (a disposed checkpoint whose '
    + 'trigger failed, CheckpointCoordinator.onTriggerFailure)', () => {
    // Checkpoint 1 expires (counted, the job fails over, the counter is cleared); its trigger then
    // fails, reported again with no attempt: counted afresh, another callback is due.
    expect(kinds(withTrace([running, expired(10, 1), failJob(10, 1, 10),
      reported(10, 1, 'CHECKPOINT_EXPIRED'), failJob(10, 2, 11)]))).toEqual([]);
    expect(kinds(withTrace([running, expired(10, 1), failJob(10, 1, 10),
      reported(10, 1, 'CHECKPOINT_EXPIRED'), completed(50, 2)]))).toEqual(['missing-failover']);
  });

  test('a checkpoint-failure failover with no callback run at that instant is spurious; others are not judged', () => {
    expect(kinds(withTrace([running, expired(10, 1), enqueued(10, 1), ran(11, 1), failover(11, 'CHECKPOINT_EXPIRED'),
      failover(11, 'CHECKPOINT_EXPIRED')]))).toEqual(['spurious-failover']);
    expect(kinds(withTrace([running, failover(11, 'CHECKPOINT_EXPIRED')]))).toEqual(['spurious-failover']);
    expect(kinds(withTrace([running, failover(11, 'fault[0]: global failure')]))).toEqual([]);
    expect(kinds(withTrace([running, expired(10, 1)], 0, 'none'))).toEqual([]);
  });

  test('catches a real run whose failure manager ignores expired checkpoints', () => {
    const spec: RunSpec = {
      version: RUN_SPEC_VERSION, seed: 'fh', job: { kind: 'flights', selection: { from: 0, to: 300 } },
      parallelism: 1, checkpoint: { mode: 'aligned', intervalMs: 50, timeoutMs: 100, tolerableFailures: 0 },
      faults: [{ type: 'slow-store', factor: 100 }], healTimeMs: 300,
      budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    };
    const healthy = simulate(spec);
    expect(healthy.checkpoints.aborted['CHECKPOINT_EXPIRED']).toBeGreaterThan(0);
    expect(failureHandling(healthy)).toEqual([]);
    expect(kinds(simulate({ ...spec, mutations: ['fm-ignore-expired'] }))).toEqual(['missing-failover']);
  });
});

describe('the failure-handling oracle and savepoints', () => {
  // The shrunk counterexample explore found for fm-count-past-checkpoints: savepoint 2, asked for
  // when checkpoint 1 completed, writes slowly and fails after checkpoint 4 completed.
  const race: RunSpec = {
    version: RUN_SPEC_VERSION, seed: 's676059302', job: { kind: 'flights', selection: { from: 0, to: 50 } }, parallelism: 1,
    taskManagers: 1, checkpoint: { mode: 'aligned', intervalMs: 100, maxConcurrent: 2, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'slow-store', factor: 20, checkpoint: 2 }, { type: 'async-snapshot-failure', probability: 0.5, checkpoint: 2 }],
    actions: [{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 1, phase: 'completed' } } }],
    healTimeMs: 600, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [],
    network: { recordsPerBuffer: 2 }, costsMs: { 'flights-source': 20, 'airport-stats': 1, 'flights-sink': 1 },
  };

  test('a savepoint\'s task-side failure older than the last success is ignored, and counting it is a spurious failover named as the savepoint\'s', () => {
    expect(failureHandling(simulate(race))).toEqual([]);
    const [v] = failureHandling(simulate({ ...race, mutations: ['fm-count-past-checkpoints'] }));
    expect(v?.summary).toMatch(/^spurious failover: savepoint 2 failed \(CHECKPOINT_ASYNC_EXCEPTION\) at [\d.]+ ms and savepoint 2 is not newer than the last success 4/);
  });
});
