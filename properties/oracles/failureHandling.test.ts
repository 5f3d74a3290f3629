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
/** A job-level report of checkpoint `id`'s failure. */
const reported = (ms: number, id: number, reason: string) => at(ms, 'checkpoint.failureReported',
  { checkpointId: id, reason, level: 'job' });
/** An abort of checkpoint `id` and its job-level report. */
const aborted = (ms: number, id: number, reason: string) =>
  [at(ms, 'checkpoint.aborted', { checkpointId: id, reason }), reported(ms, id, reason)];
const expired = (ms: number, id: number) => aborted(ms, id, 'CHECKPOINT_EXPIRED');
const declined = (ms: number, id: number, taskState: string) => [
  at(ms, 'checkpoint.aborted', { checkpointId: id, reason: 'CHECKPOINT_ASYNC_EXCEPTION', task: 'v1#0@1', taskState }),
  at(ms, 'checkpoint.failureReported', { checkpointId: id, reason: 'CHECKPOINT_ASYNC_EXCEPTION', level: 'task', task: 'v1#0@1' }),
];
const completed = (ms: number, id: number) => at(ms, 'checkpoint.completed', { checkpointId: id });
const failover = (ms: number, cause: string) => at(ms, 'scheduler.globalFailure', { cause });
const kinds = (r: RunResult): string[] => failureHandling(r).map((v) => (v.details as { kind: string }).kind);

describe('the failure-handling oracle', () => {
  test('holds on real runs, with and without a crash', () => {
    for (const crash of [false, true]) expect(failureHandling(sampleRun('aligned', crash))).toEqual([]);
    expect(failureHandling(sampleRun('at-least-once', true))).toEqual([]);
  });

  test('a failover for each failure the rule makes fail the job holds', () => {
    expect(kinds(withTrace([running, expired(10, 1), failover(10, 'CHECKPOINT_EXPIRED'), completed(50, 2)]))).toEqual([]);
    expect(kinds(withTrace([running, completed(5, 1), expired(10, 2), expired(20, 3), failover(20, 'CHECKPOINT_EXPIRED')], 1)))
      .toEqual([]);
    // Ignored and not-counted failures need none.
    expect(kinds(withTrace([running, aborted(10, 1, 'CHECKPOINT_SUBSUMED'),
      declined(20, 2, 'SUPERSEDED'), completed(30, 3)]))).toEqual([]);
  });

  test('no failover before the next completion is a missing failover (FLINK-17351)', () => {
    const [v, ...rest] = failureHandling(withTrace([running, expired(10, 1), completed(50, 2)]));
    expect(rest).toEqual([]);
    expect(v?.property).toBe('failure-handling');
    expect(v?.summary).toBe('missing failover: checkpoint 1 failed (CHECKPOINT_EXPIRED) at 10 ms and 1 counted '
      + 'failures exceed the 0 tolerable, yet the job did not fail over before checkpoint 2 completed');
    expect(v?.timeMs).toBe(50);
  });

  test('no failover before the run ends is a missing failover too, unless the job could not fail', () => {
    expect(kinds(withTrace([running, expired(10, 1)]))).toEqual(['missing-failover']);
    expect(kinds(withTrace([expired(10, 1)]))).toEqual([]);
    // Any global failover repairs the job, whatever caused it.
    expect(kinds(withTrace([running, expired(10, 1), failover(12, 'fault[0]: global failure'), completed(50, 2)])))
      .toEqual([]);
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

  test('a failover for a failure of a gone attempt is spurious (FLINK-13593)', () => {
    const [v] = failureHandling(withTrace([running, declined(10, 1, 'CANCELING'),
      failover(10, 'CHECKPOINT_ASYNC_EXCEPTION: boom')]));
    expect(v?.summary).toBe('spurious failover: checkpoint 1 failed (CHECKPOINT_ASYNC_EXCEPTION) and 1 counted '
      + 'failures exceed the 0 tolerable, but the attempt is CANCELING, yet the job failed over');
    expect(v?.details).toMatchObject({ kind: 'spurious-failover', failure: { task: 'v1#0@1', taskState: 'CANCELING' } });
    expect(kinds(withTrace([running, declined(10, 1, 'RUNNING'), failover(10, 'CHECKPOINT_ASYNC_EXCEPTION: boom')])))
      .toEqual([]);
  });

  test('a failover for an old checkpoint or within the tolerable number is spurious (FLINK-18336)', () => {
    expect(kinds(withTrace([running, completed(5, 3), expired(10, 2), failover(10, 'CHECKPOINT_EXPIRED')])))
      .toEqual(['spurious-failover']);
    expect(kinds(withTrace([running, expired(10, 1), failover(10, 'CHECKPOINT_EXPIRED')], 1))).toEqual(['spurious-failover']);
  });

  test('a failure reported without an abort counts like any other (a disposed checkpoint whose '
    + 'trigger failed, CheckpointCoordinator.onTriggerFailure)', () => {
    // Checkpoint 1 expires (counted, the job fails over, the counter is cleared); its trigger then
    // fails, reported again with no attempt: counted afresh, another failover is due.
    expect(kinds(withTrace([running, expired(10, 1), failover(10, 'CHECKPOINT_EXPIRED'),
      reported(10, 1, 'CHECKPOINT_EXPIRED'), failover(10, 'CHECKPOINT_EXPIRED')]))).toEqual([]);
    expect(kinds(withTrace([running, expired(10, 1), failover(10, 'CHECKPOINT_EXPIRED'),
      reported(10, 1, 'CHECKPOINT_EXPIRED'), completed(50, 2)]))).toEqual(['missing-failover']);
  });

  test('a checkpoint-failure failover with no failure at that instant is spurious; others are not judged', () => {
    expect(kinds(withTrace([running, expired(10, 1), failover(11, 'CHECKPOINT_EXPIRED')])))
      .toEqual(['spurious-failover']);
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
