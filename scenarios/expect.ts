/**
 * `expect.*`: the expectation builders. Each returns plain data `{ kind, ... }`
 * (Scenario.ts ScenarioExpectation) that judgeExpectation.ts judges from the run's trace and
 * RunResult, never from the engine's code path. Bounds (`atLeast`, `atMost`, `exactly`) are
 * checked when the scenario is defined (defineScenario).
 *
 * | builder | holds when |
 * |---|---|
 * | `checkpointsCompleted({ atLeast?, atMost?, exactly? })` | that many checkpoints completed (savepoints not counted) |
 * | `checkpointCompleted(n, { jobRun? })` | checkpoint n (of that job run, default the first) completed |
 * | `checkpointAborted(n, reason?, { jobRun? })` | checkpoint n was aborted (with that CheckpointFailureReason name) |
 * | `restores({ atLeast?, atMost?, exactly? })` | that many restores from a checkpoint |
 * | `restoredFrom(c, { nth? })` | a restore (the nth restore from a checkpoint, when given) used checkpoint c |
 * | `jobStatus(status)` | the job's final status (inside `at`: its status then) |
 * | `markReached(name)` / `markNotReached(name)` | the run recorded that mark / never did |
 * | `duplicates({ atLeast?, atMost?, exactly? })` | that many duplicated input records committed (at-least-once), each attributed to a restore |
 * | `failovers({ atLeast?, atMost?, exactly? })` | that many failovers (`scheduler.restarting`) |
 * | `savepointCompleted(n)` | savepoint n (the n-th savepoint step's) completed |
 * | `savepointAborted(n, reason?)` | savepoint n was aborted (with that CheckpointFailureReason name) |
 * | `savepointFailed(n, reason?)` | savepoint n's request failed (with that reason): refused before a checkpoint was triggered, or aborted after |
 * | `savepointNotSubsumed(n)` | a newer checkpoint completed while savepoint n was pending, and it stayed pending |
 * | `savepointNotNotified(n)` | savepoint n completed and no task was notified of it (nor did the coordinator send a notification) |
 * | `savepointTransactionsCommitted(n)` | the sink transactions pre-committed at savepoint n were committed by the next checkpoint's notification |
 * | `jobRun(n, { parallelism?, restoredFrom?, claimMode?, status? })` | the history had job run n (1 = the first; a `rescale` starts the next), at that parallelism (every operator, or the uids given), restored from a savepoint or a checkpoint, in that claim mode, ending in that status |
 * | `fullCheckpoint(n, { jobRun? })` | checkpoint n (of job run r, default 1) was triggered as a FULL checkpoint (after a NO_CLAIM restore) |
 * | `at(point, expectation)` | the expectation holds on the trace up to the first time the point was reached |
 */
import { checkBuilderOptions } from './builderOptions.ts';
import type { CheckpointFailureReason } from '../engine/index.ts';
import type { MarkName } from '../sim/marks.ts';
import type { CountBound, ScenarioExpectation, ScenarioPoint } from './Scenario.ts';

type Bounded<K extends string> = { readonly kind: K } & CountBound;

export const expect = {
  checkpointsCompleted: (bound: CountBound): Bounded<'checkpointsCompleted'> => ({ kind: 'checkpointsCompleted', ...bound }),
  checkpointCompleted: (checkpoint: number, o: { readonly jobRun?: number } = {}): ScenarioExpectation =>
    ({ kind: 'checkpointCompleted', checkpoint, ...o }),
  checkpointAborted: (checkpoint: number, reason?: CheckpointFailureReason, o: { readonly jobRun?: number } = {}): ScenarioExpectation =>
    ({ kind: 'checkpointAborted', checkpoint, ...(reason === undefined ? {} : { reason }), ...o }),
  restores: (bound: CountBound): Bounded<'restores'> => ({ kind: 'restores', ...bound }),
  restoredFrom: (checkpoint: number, options: { readonly nth?: number } = {}): ScenarioExpectation => {
    checkBuilderOptions(`expect.restoredFrom(${checkpoint})`, options, ['nth']);
    return options.nth === undefined ? { kind: 'restoredFrom', checkpoint } : { kind: 'restoredFrom', checkpoint, nth: options.nth };
  },
  jobStatus: (status: string): ScenarioExpectation => ({ kind: 'jobStatus', status }),
  markReached: (name: MarkName): ScenarioExpectation => ({ kind: 'markReached', name }),
  markNotReached: (name: MarkName): ScenarioExpectation => ({ kind: 'markNotReached', name }),
  duplicates: (bound: CountBound): Bounded<'duplicates'> => ({ kind: 'duplicates', ...bound }),
  failovers: (bound: CountBound): Bounded<'failovers'> => ({ kind: 'failovers', ...bound }),
  savepointCompleted: (savepoint: number): ScenarioExpectation => ({ kind: 'savepointCompleted', savepoint }),
  savepointAborted: (savepoint: number, reason?: CheckpointFailureReason): ScenarioExpectation =>
    (reason === undefined ? { kind: 'savepointAborted', savepoint } : { kind: 'savepointAborted', savepoint, reason }),
  savepointFailed: (savepoint: number, reason?: CheckpointFailureReason): ScenarioExpectation =>
    (reason === undefined ? { kind: 'savepointFailed', savepoint } : { kind: 'savepointFailed', savepoint, reason }),
  savepointNotSubsumed: (savepoint: number): ScenarioExpectation => ({ kind: 'savepointNotSubsumed', savepoint }),
  savepointNotNotified: (savepoint: number): ScenarioExpectation => ({ kind: 'savepointNotNotified', savepoint }),
  savepointTransactionsCommitted: (savepoint: number): ScenarioExpectation => ({ kind: 'savepointTransactionsCommitted', savepoint }),
  jobRun: (jobRun: number, o: {
    readonly parallelism?: number | Readonly<Record<string, number>>; readonly restoredFrom?: 'savepoint' | 'checkpoint';
    readonly claimMode?: 'NO_CLAIM' | 'CLAIM' | 'LEGACY'; readonly status?: string;
  } = {}): ScenarioExpectation => ({ kind: 'jobRun', jobRun, ...o }),
  fullCheckpoint: (checkpoint: number, o: { readonly jobRun?: number } = {}): ScenarioExpectation =>
    ({ kind: 'fullCheckpoint', checkpoint, ...o }),
  at: (point: ScenarioPoint, expectation: ScenarioExpectation): ScenarioExpectation => ({ kind: 'at', point, expect: expectation }),
};
