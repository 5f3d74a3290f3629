/**
 * The catalogue's savepoint scenarios can fail, and their expectations with them: each savepoint
 * expectation holds on the scenario's run and fails on the run with what it rules out put in (a
 * subsumption, a task notified of the savepoint) or taken away (the slow savepoint target without
 * which nothing newer completes while the savepoint is pending), and the two-phase-commit
 * scenario fails under the planted sink-commits-only-notified.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect as check, test } from 'vitest';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { simulate } from '../../sim/run/simulate.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { compileScenario, expect, runScenario, savepoint } from '../index.ts';
import { judgeExpectation } from '../judgeExpectation.ts';
import { notation } from '../notation.ts';
import betweenCheckpoints from './savepoint-between-checkpoints-two-phase-commit.ts';
import notSubsumed from './savepoint-not-subsumed-and-not-notified.ts';
import duringRestart from './savepoint-during-restart-after-task-finished.ts';

const out = mkdtempSync(join(tmpdir(), 'savepoint-scenarios-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('savepoint expectations fail on runs that break them', () => {
  const runOf = (s: Parameters<typeof compileScenario>[0]): RunResult => simulate(compileScenario(s).spec);
  const withTrace = (r: RunResult, trace: TraceEvent[]): RunResult => ({ ...r, trace });
  const judged = (e: Parameters<typeof judgeExpectation>[0], r: RunResult) => judgeExpectation(e, r);
  const notSubsumedRun = runOf(notSubsumed);
  const id = (r: RunResult): number => r.actions.find((a) => a.event === 'completed')?.checkpointId as number;

  test('on the catalogue runs they hold', () => {
    for (const e of [expect.savepointCompleted(1), expect.savepointNotSubsumed(1), expect.savepointNotNotified(1)]) {
      check(judged(e, notSubsumedRun).ok, notation.expectation(e)).toBe(true);
    }
    check(judged(expect.savepointAborted(1), notSubsumedRun).actual).toMatch(/^savepoint 1 \(checkpoint id 3\) completed at/);
    check(judged(expect.savepointAborted(1), notSubsumedRun).ok).toBe(false);
  });

  test('a savepoint that a newer checkpoint subsumed, or one nothing newer could subsume, is no pass', () => {
    const sp = id(notSubsumedRun);
    const trace = notSubsumedRun.trace;
    const newer = trace.findIndex((e) => e.type === 'checkpoint.completed' && Number(e.attrs['checkpointId']) > sp);
    const subsumed: TraceEvent = { ...(trace[newer] as TraceEvent), type: 'checkpoint.aborted', attrs: { checkpointId: sp, reason: 'CHECKPOINT_SUBSUMED' } };
    const cut = [...trace.slice(0, newer + 1), subsumed, ...trace.slice(newer + 1).filter((e) => e.attrs['checkpointId'] !== sp)];
    check(judged(expect.savepointNotSubsumed(1), withTrace(notSubsumedRun, cut)).actual)
      .toMatch(/^savepoint 1 \(checkpoint id 3\) was aborted with CHECKPOINT_SUBSUMED at [\d.]+ ms, after checkpoint\(s\) 4 completed$/);
    // Without the slow savepoint target it completes before any newer checkpoint: nothing tested.
    const fast = judged(expect.savepointNotSubsumed(1), runOf({ ...notSubsumed, config: { checkpoint: { maxConcurrent: 2 } } }));
    check(fast.ok).toBe(false);
    check(fast.actual).toMatch(/^no checkpoint newer than savepoint 1 \(checkpoint id 3\) completed while it was pending/);
  });

  test('a task notified of the savepoint, or a savepoint that never completed, fails savepointNotNotified', () => {
    const sp = id(notSubsumedRun);
    const trace = notSubsumedRun.trace;
    const done = trace.findIndex((e) => e.type === 'checkpoint.completed' && e.attrs['checkpointId'] === sp);
    const notified: TraceEvent = { ...(trace[done] as TraceEvent), type: 'checkpoint.taskNotified', host: 'taskmanager-1', attrs: { checkpointId: sp, task: 'v1#0@0' } };
    const v = judged(expect.savepointNotNotified(1), withTrace(notSubsumedRun, [...trace.slice(0, done + 1), notified, ...trace.slice(done + 1)]));
    check(v.ok).toBe(false);
    check(v.actual).toMatch(/no notification was sent; tasks notified of it: v1#0@0$/);
    const pending = judged(expect.savepointNotNotified(1), withTrace(notSubsumedRun, trace.slice(0, done)));
    check(pending.actual).toMatch(/neither completed nor aborted, so there was no completion to notify of$/);
    check(judged(expect.savepointNotNotified(1), withTrace(notSubsumedRun, [])).actual).toBe('savepoint 1 was never triggered (its step never fired)');
  });

  test('the 2PC scenario fails under the planted sink-commits-only-notified: the savepoint\'s transactions are never committed', () => {
    const mutant = { ...betweenCheckpoints, config: { ...betweenCheckpoints.config, mutations: ['sink-commits-only-notified'] } };
    const v = judged(expect.savepointTransactionsCommitted(1), runOf(mutant));
    check(v.ok).toBe(false);
    check(v.actual).toMatch(/the next checkpoint, 4, completed at [\d.]+ ms; subtask \d: never committed; subtask \d: never committed$/);
    const r = runScenario(mutant, { outDir: out });
    check(r.failure?.property).toBe('end-to-end-exactly-once');
    // Without the bug the same scenario holds, each transaction committed by checkpoint 4's notification.
    check(judged(expect.savepointTransactionsCommitted(1), runOf(betweenCheckpoints)).actual)
      .toMatch(/subtask \d: committed at [\d.]+ ms by checkpoint 4's notification; subtask \d: committed at [\d.]+ ms by checkpoint 4's notification$/);
  });

  test('a request refused before any checkpoint is savepointFailed with its reason; savepointAborted and savepointCompleted say it was refused, and why', () => {
    const r = runOf(duringRestart);
    const refused = judged(expect.savepointFailed(1, 'NOT_ALL_REQUIRED_TASKS_RUNNING'), r);
    check(refused.ok).toBe(true);
    check(refused.actual).toMatch(/^savepoint 1's request refused before a checkpoint was triggered: NOT_ALL_REQUIRED_TASKS_RUNNING at [\d.]+ ms$/);
    check(judged(expect.savepointFailed(1), r).ok).toBe(true);
    const other = judged(expect.savepointFailed(1, 'CHECKPOINT_EXPIRED'), r);
    check(other.ok).toBe(false);
    check(other.actual).toContain('NOT_ALL_REQUIRED_TASKS_RUNNING');
    for (const e of [expect.savepointAborted(1, 'NOT_ALL_REQUIRED_TASKS_RUNNING'), expect.savepointCompleted(1)]) {
      const v = judged(e, r);
      check(v.ok).toBe(false);
      check(v.actual).toMatch(/^savepoint 1 was never triggered \(its step fired, and its request was refused: NOT_ALL_REQUIRED_TASKS_RUNNING at [\d.]+ ms\)$/);
    }
    // A savepoint that completed did not fail.
    const done = judged(expect.savepointFailed(1), notSubsumedRun);
    check(done.ok).toBe(false);
    check(done.actual).toMatch(/^its request did not fail: savepoint 1 \(checkpoint id \d+\) completed at/);
    check(notation.expectation(expect.savepointFailed(1, 'NOT_ALL_REQUIRED_TASKS_RUNNING'))).toBe("expect.savepointFailed(1, 'NOT_ALL_REQUIRED_TASKS_RUNNING')");
  });

  test('checkpointsCompleted counts checkpoints, not savepoints', () => {
    const r = runOf(betweenCheckpoints);
    const at = judged(expect.at(savepoint(1).completed(), expect.checkpointsCompleted({ exactly: 2 })), r);
    check(at.actual).toMatch(/: 2 checkpoint\(s\) completed \(1, 2\)$/);
    check(judged(expect.checkpointCompleted(3), r).actual).toMatch(/^checkpoint 3 \(a savepoint\) completed at/);
  });
});
