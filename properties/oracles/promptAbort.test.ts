import { describe, expect, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type Fault, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { promptAbort, promptAbortJudgement, type PromptAbortRule } from './promptAbort.ts';
import { doctor, sampleRun } from './testing/sampleRuns.ts';

/** An event of a doctored trace: `cause` is an index into the same trace (its seq). */
interface Step { readonly ms: number; readonly type: string; readonly attrs?: TraceEvent['attrs']; readonly cause?: number }

/** A copy of a real aligned run with `steps` as its trace (seq = index). */
function withTrace(steps: readonly Step[], mode: 'aligned' | 'none' = 'aligned'): RunResult {
  const r = sampleRun('aligned', false);
  return doctor(r, {
    spec: { ...r.spec, checkpoint: { ...r.spec.checkpoint, mode } },
    trace: steps.map((s, seq) => ({
      seq, timeUs: s.ms * 1000, host: 'jobmanager', type: s.type, attrs: s.attrs ?? {},
      ...(s.cause === undefined ? {} : { cause: s.cause }),
    })),
  });
}

const kinds = (r: RunResult): string[] => promptAbort(r).map((v) => {
  const d = v.details as { kind: string; rule: string };
  return `${d.rule} ${d.kind}`;
});

// A pending checkpoint 1 that waits for v0#0@0 and v1#0@0, triggered at 10 ms (indexes 0..2).
const start: Step[] = [
  { ms: 0, type: 'job.status', attrs: { status: 'RUNNING' } },
  { ms: 10, type: 'checkpoint.plan', attrs: { checkpointId: 1, waitFor: 'v0#0@0,v1#0@0', finished: '' } },
  { ms: 10, type: 'checkpoint.triggered', attrs: { checkpointId: 1 }, cause: 1 },
];
const abort = (ms: number, reason: string, cause?: number, id = 1): Step =>
  ({ ms, type: 'checkpoint.aborted', attrs: { checkpointId: id, reason }, ...(cause === undefined ? {} : { cause }) });
const declined = (ms: number, pending = true): Step =>
  ({ ms, type: 'checkpoint.declined', attrs: { checkpointId: 1, task: 'v1#0@0', reason: 'CHECKPOINT_ASYNC_EXCEPTION', pending } });
const handled = (ms: number, handler: string, failure: string, failureReason?: string): Step => ({
  ms, type: 'checkpoint.failureHandled',
  attrs: { checkpointId: 1, handler, failure, ...(failureReason === undefined ? {} : { failureReason }) },
});

describe('the prompt-abort oracle on doctored traces', () => {
  test('an abort in the handler\'s own work, with Flink\'s reason, holds; each rule\'s reason', () => {
    expect(kinds(withTrace([...start, declined(20), abort(20, 'CHECKPOINT_ASYNC_EXCEPTION', 3)]))).toEqual([]);
    expect(kinds(withTrace([...start, handled(20, 'triggerCheckpointRequest', 'Exception'), abort(20, 'TRIGGER_CHECKPOINT_FAILURE', 3)])))
      .toEqual([]);
    // A trigger RPC failing with a task's CheckpointException keeps its reason.
    expect(kinds(withTrace([...start, handled(20, 'triggerCheckpointRequest', 'CheckpointException', 'TASK_CHECKPOINT_FAILURE'),
      abort(20, 'TASK_CHECKPOINT_FAILURE', 3)]))).toEqual([]);
    // onTriggerFailure: an IOException anywhere gives IO_EXCEPTION (CheckpointCoordinator.getCheckpointException).
    expect(kinds(withTrace([...start, handled(20, 'onTriggerFailure', 'IOException'), abort(20, 'IO_EXCEPTION', 3)]))).toEqual([]);
    // A failed metadata write is FINALIZE_CHECKPOINT_FAILURE whatever the store said; union state
    // on a partly finished vertex is CHECKPOINT_DECLINED_TASK_CLOSING.
    expect(kinds(withTrace([...start, handled(20, 'completePendingCheckpoint', 'IOException'), abort(20, 'FINALIZE_CHECKPOINT_FAILURE', 3)])))
      .toEqual([]);
    expect(kinds(withTrace([...start, handled(20, 'completePendingCheckpoint', 'CheckpointException', 'CHECKPOINT_DECLINED_TASK_CLOSING'),
      abort(20, 'CHECKPOINT_DECLINED_TASK_CLOSING', 3)]))).toEqual([]);
    expect(promptAbortJudgement(withTrace([...start, declined(20), abort(20, 'CHECKPOINT_ASYNC_EXCEPTION', 3)])).judged)
      .toEqual({ 'decline': 1, 'trigger-failure': 0, 'finalize-failure': 0, 'task-failure': 0 });
  });

  test('a checkpoint left pending after its failure was handled is caught, whatever ends it later', () => {
    const [v] = promptAbort(withTrace([...start, declined(20), abort(210, 'CHECKPOINT_EXPIRED', 1)]));
    expect(v?.summary).toBe('checkpoint 1 was not aborted when v1#0@0 declined it (CHECKPOINT_ASYNC_EXCEPTION) at 20 ms '
      + '(Flink aborts it at once with CHECKPOINT_ASYNC_EXCEPTION): it was aborted (CHECKPOINT_EXPIRED) at 210 ms');
    expect(v?.details).toMatchObject({ kind: 'expired-after-failure', rule: 'decline', stalledMs: 190, learnedAtMs: 20 });
    expect(v?.timeMs).toBe(210);
    // Ended later by something else, or completed, or never ended: not aborted.
    expect(kinds(withTrace([...start, handled(20, 'triggerCheckpointRequest', 'Exception'), abort(30, 'CHECKPOINT_COORDINATOR_SUSPEND')])))
      .toEqual(['trigger-failure not-aborted']);
    expect(kinds(withTrace([...start, handled(20, 'completePendingCheckpoint', 'IOException'),
      { ms: 20, type: 'checkpoint.completed', attrs: { checkpointId: 1 } }]))).toEqual(['finalize-failure not-aborted']);
    const [pending] = promptAbort(withTrace([...start, declined(20)]));
    expect(pending?.summary).toMatch(/: it was still pending when the run ended$/);
  });

  test('an abort at the same instant that the handler\'s work did not record is not the handler\'s', () => {
    // A second decline's handler at the same instant aborts it: not caused by the first handler.
    expect(kinds(withTrace([...start, declined(20), declined(20), abort(20, 'CHECKPOINT_ASYNC_EXCEPTION', 4)])))
      .toEqual(['decline not-aborted']);
  });

  test('an abort in the handler\'s work with another reason is a wrong reason', () => {
    const [v] = promptAbort(withTrace([...start, handled(20, 'triggerCheckpointRequest', 'Exception'), abort(20, 'CHECKPOINT_DECLINED', 3)]));
    expect(v?.details).toMatchObject({ kind: 'wrong-reason', rule: 'trigger-failure', expectedReason: 'TRIGGER_CHECKPOINT_FAILURE' });
    expect(v?.summary).toBe('checkpoint 1 was aborted with CHECKPOINT_DECLINED when triggerCheckpointRequest handled a failure of '
      + 'its trigger (Exception) at 20 ms, where Flink aborts it with TRIGGER_CHECKPOINT_FAILURE');
  });

  test('judged from when the handler ran under the lock: a decline that waited and then found the checkpoint '
    + 'expired is no violation', () => {
    // The decline was delivered at 15 ms while a completion held the lock; the canceller got the
    // lock first at 30 ms and expired it; the decline's handler ran after and found nothing pending.
    expect(kinds(withTrace([...start,
      { ms: 15, type: 'checkpoint.lockWait', attrs: { waiter: 'receiveDeclineMessage', holder: 'completePendingCheckpoint 0' } },
      abort(30, 'CHECKPOINT_EXPIRED'), declined(30, false)]))).toEqual([]);
  });

  test('a task failure or a global failure while RUNNING: aborted at once by the stop with CHECKPOINT_COORDINATOR_SUSPEND', () => {
    const failed: Step = { ms: 20, type: 'scheduler.taskFailed', attrs: { task: 'v1#0@0', cause: 'boom' } };
    expect(kinds(withTrace([...start, failed, abort(20, 'CHECKPOINT_COORDINATOR_SUSPEND', 3)]))).toEqual([]);
    expect(kinds(withTrace([...start, failed, abort(30, 'JOB_FAILOVER_REGION', 3)]))).toEqual(['task-failure not-aborted']);
    const global: Step = { ms: 20, type: 'scheduler.globalFailure', attrs: { cause: 'fault[0]: global failure' } };
    expect(kinds(withTrace([...start, global, abort(30, 'CHECKPOINT_EXPIRED')]))).toEqual(['task-failure expired-after-failure']);
    // A task the checkpoint does not wait for, or a job that is not RUNNING, owes nothing here.
    expect(kinds(withTrace([...start, { ...failed, attrs: { task: 'v2#0@0' } }, abort(30, 'CHECKPOINT_EXPIRED')]))).toEqual([]);
    expect(kinds(withTrace([...start, { ms: 15, type: 'job.status', attrs: { status: 'RESTARTING' } }, failed,
      abort(30, 'JOB_FAILOVER_REGION')]))).toEqual([]);
  });

  test('a stop that waits for the lock: the checkpoint ends at the holder\'s release, in whatever way, or is late', () => {
    const failed: Step = { ms: 20, type: 'scheduler.taskFailed', attrs: { task: 'v1#0@0', cause: 'boom' } };
    const wait: Step = { ms: 20, type: 'checkpoint.lockWait', attrs: { waiter: 'stopCheckpointScheduler', holder: 'completePendingCheckpoint 7' }, cause: 3 };
    const released: Step = { ms: 45, type: 'checkpoint.completed', attrs: { checkpointId: 7 } };
    expect(kinds(withTrace([...start, failed, wait, released, abort(45, 'CHECKPOINT_COORDINATOR_SUSPEND', 4)]))).toEqual([]);
    // The canceller waited before the stop and got the lock first: faithful.
    expect(kinds(withTrace([...start, failed, wait, released, abort(45, 'CHECKPOINT_EXPIRED')]))).toEqual([]);
    const [late] = promptAbort(withTrace([...start, failed, wait, released, abort(60, 'JOB_FAILOVER_REGION')]));
    expect(late?.details).toMatchObject({ kind: 'not-aborted', rule: 'task-failure', stopWaitedForLockOf: 7 });
    // The holder is the checkpoint itself: it completes (or its completion fails) first.
    const ownWait: Step = { ...wait, attrs: { ...wait.attrs, holder: 'completePendingCheckpoint 1' } };
    expect(kinds(withTrace([...start, failed, ownWait, { ms: 45, type: 'checkpoint.completed', attrs: { checkpointId: 1 } }]))).toEqual([]);
    // Woken, the stop found a new holder and waited again, caused by its first wait.
    const again: Step = { ms: 45, type: 'checkpoint.lockWait', attrs: { waiter: 'stopCheckpointScheduler', holder: 'completePendingCheckpoint 8' }, cause: 4 };
    expect(kinds(withTrace([...start, failed, wait, released, again, { ms: 70, type: 'checkpoint.completed', attrs: { checkpointId: 8 } },
      abort(70, 'CHECKPOINT_COORDINATOR_SUSPEND', 6)]))).toEqual([]);
  });

  test('judges nothing in mode none, and each job run on its own events', () => {
    expect(kinds(withTrace([...start, declined(20)], 'none'))).toEqual([]);
    // Run 2 reuses id 1 (ids go on from a restored one): its decline is judged against its own checkpoint 1.
    const run2 = (st: Step): Step => ({ ...st, attrs: { ...st.attrs, jobRun: 2 } });
    const r = withTrace([...start, { ms: 15, type: 'checkpoint.completed', attrs: { checkpointId: 1 } },
      ...start.map(run2), run2(declined(40)), run2(abort(300, 'CHECKPOINT_EXPIRED'))]);
    const twoRuns = doctor(r, { jobRuns: [r.jobRuns[0], r.jobRuns[0]] as unknown as RunResult['jobRuns'] });
    const [v, ...rest] = promptAbort(twoRuns);
    expect(rest).toEqual([]);
    expect(v?.summary).toMatch(/^job run 2: checkpoint 1 was not aborted when v1#0@0 declined it/);
    expect(v?.details).toMatchObject({ jobRun: 2, kind: 'expired-after-failure' });
  });
});

/** A small flights run at parallelism 2 on two one-slot TaskManagers, checkpoints every 50 ms. */
function flightsSpec(seed: string, faults: Fault[], mutations: string[] = []): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed, job: { kind: 'flights', selection: { from: 0, to: 300 } },
    parallelism: 2, taskManagers: 2, slotsPerTaskManager: 1,
    checkpoint: { mode: 'aligned', intervalMs: 50, timeoutMs: 200, tolerableFailures: 5 },
    faults, healTimeMs: 500, budgets: { maxEvents: 5_000_000, maxTimeMs: 30_000 }, overrides: [], mutations,
  };
}

interface RealCase {
  readonly rule: PromptAbortRule;
  readonly stall: string;
  readonly seed: string;
  readonly faults: Fault[];
  /** The violation's kind with the stall on. */
  readonly kind: string;
}

// Seeds found once by trying pa0, pa1, ...: each run reaches its failure with a checkpoint pending.
const REAL: readonly RealCase[] = [
  { rule: 'decline', stall: 'decline-leaves-pending', seed: 'pa0', kind: 'expired-after-failure',
    faults: [{ type: 'async-snapshot-failure', probability: 1, checkpoint: 2 }] },
  { rule: 'trigger-failure', stall: 'trigger-failure-leaves-pending', seed: 'pa0', kind: 'expired-after-failure',
    faults: [{ type: 'message', action: 'lose', method: 'triggerCheckpoint', checkpoint: 2 }] },
  { rule: 'finalize-failure', stall: 'finalize-failure-leaves-pending', seed: 'pa12', kind: 'expired-after-failure',
    faults: [{ type: 'store-failure', probability: 0.3 }] },
  { rule: 'task-failure', stall: 'task-failure-leaves-pending', seed: 'pa0', kind: 'not-aborted',
    faults: [{ type: 'crash', host: 'taskmanager-1', when: { at: { kind: 'task', checkpoint: 2, phase: 'acked', task: 'v0#0' } }, downMs: 50 }] },
  { rule: 'task-failure', stall: 'task-failure-leaves-pending', seed: 'pa0', kind: 'not-aborted',
    faults: [{ type: 'global-failure', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'triggered' } } }] },
];

describe('the prompt-abort oracle on real runs: each rule catches its planted stall, and holds on the correct engine', () => {
  for (const c of REAL) {
    test(`${c.rule}: ${c.stall} (${c.faults[0]?.type ?? ''})`, () => {
      const correct = promptAbortJudgement(simulate(flightsSpec(c.seed, c.faults)));
      expect(correct.violations).toEqual([]);
      // Not vacuous: the rule judged a failure of a pending checkpoint.
      expect(correct.judged[c.rule]).toBeGreaterThan(0);
      const stalled = promptAbort(simulate(flightsSpec(c.seed, c.faults, [c.stall])));
      expect(stalled.length).toBeGreaterThan(0);
      expect(stalled[0]?.details).toMatchObject({ rule: c.rule, kind: c.kind });
    });
  }
});
