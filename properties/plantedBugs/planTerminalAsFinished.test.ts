/**
 * Planted bug `plan-terminal-as-finished` (mutants.md 7a, FLINK-40482) end to end: where it is
 * reached and what catches it. Flink 1.20's plan calculator takes the "after tasks finished" path
 * only once some task is FINISHED (hasFinishedTasks), and on that path it counts every terminal
 * attempt (Execution.isFinished: FINISHED, CANCELED or FAILED) as finished. So a savepoint asked
 * for while the job restarts, after a task finished and before the failed attempts are replaced,
 * is planned without the failed tasks: here every task is terminal, the plan waits for none, and
 * the savepoint completes at once claiming every vertex finished. The correct plan refuses it
 * (NOT_ALL_REQUIRED_TASKS_RUNNING), and so does the buggy one while no task has FINISHED.
 */
import { describe, expect, test } from 'vitest';
import restartScenario from '../../scenarios/catalogue/savepoint-during-restart-after-task-finished.ts';
import { compileScenario } from '../../scenarios/compileScenario.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import { RUN_SPEC_VERSION, type Action, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { expectationOf } from '../explore/explore.ts';

const BUG = 'plan-terminal-as-finished';
const ON_RESTARTING = { at: { kind: 'job', status: 'RESTARTING', nth: 1 } } as const;

/**
 * Source subtask 1 reads one record and FINISHED long before 100 ms; subtask 0 reads 60 records,
 * 5 ms each. The one TaskManager pauses at 100 ms, the JobMaster loses it at its heartbeat timeout
 * and every attempt on it fails at once (FAILED, terminal), so the job is RESTARTING with one
 * FINISHED task and every other one FAILED until the restart 10 ms later.
 */
function spec(action: Action, mutations: string[], pauseMs = 100): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'plan-terminal-as-finished',
    job: {
      kind: 'generated',
      spec: {
        records: [Array.from({ length: 60 }, (_x, i) => i % 7), [1]],
        stages: [{ kind: 'keyed', key: 0, fn: 0, parallelism: 2 }],
        sourceParallelism: 2, sinkParallelism: 2, maxParallelism: 128,
      },
    },
    parallelism: {}, taskManagers: 1, costsMs: { 'gen-source': 5 },
    checkpoint: { mode: 'aligned', intervalMs: 20, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'pause', host: 'taskmanager-1', when: { atMs: pauseMs }, durationMs: 40 }],
    actions: [action],
    healTimeMs: 2000, budgets: { maxEvents: 2_000_000, maxTimeMs: 30_000 }, overrides: [], mutations,
  } as RunSpec;
}

function judged(r: RunResult): string[] {
  return defaultJudge(r, expectationOf('aligned')).violations.map((v) => `${v.property}: ${v.summary}`);
}

/** The plan of the savepoint the action asked for (its `checkpoint.plan` trace event's attrs). */
function savepointPlan(r: RunResult): Record<string, unknown> | undefined {
  const id = r.actions.find((a) => a.checkpointId !== undefined)?.checkpointId;
  return r.trace.find((e) => e.type === 'checkpoint.plan' && e.attrs['checkpointId'] === id)?.attrs;
}

function actionEnd(r: RunResult): string {
  const end = r.actions.filter((a) => a.event !== 'fired').at(-1);
  return `${end?.event ?? 'none'} ${end?.reason ?? ''}`.trim();
}

describe(`planted bug ${BUG}`, () => {
  const savepoint: Action = { type: 'savepoint', when: ON_RESTARTING };

  test('correct: a savepoint asked for while the job restarts is refused, as no task to wait for runs', () => {
    const r = simulate(spec(savepoint, []));
    expect(actionEnd(r)).toBe('failed NOT_ALL_REQUIRED_TASKS_RUNNING');
    expect(judged(r)).toEqual([]);
  });

  test('planted: the failed attempts count as finished; the savepoint waits for no task, completes, and is no consistent cut', () => {
    const r = simulate(spec(savepoint, [BUG]));
    expect(savepointPlan(r)).toMatchObject({ waitFor: '', finished: 'v0#0@0,v0#1@0,v1#0@0,v1#1@0' });
    expect(actionEnd(r)).toBe('completed');
    const violations = judged(r);
    expect(violations.length).toBeGreaterThan(0);
    expect(violations[0]).toMatch(/^consistent-cut: savepoint \d+ is not a consistent cut/);
  });

  test('planted: a stop-with-savepoint then completes its savepoint and fails the job for good, losing the unread input', () => {
    const stop: Action = { type: 'stop-with-savepoint', drain: false, when: ON_RESTARTING };
    expect(judged(simulate(spec(stop, [])))).toEqual([]);
    const r = simulate(spec(stop, [BUG]));
    expect(r.jobStatus).toBe('FAILED');
    expect(actionEnd(r)).toBe('failed StopWithSavepointStoppingException');
    expect(judged(r)).toContainEqual(expect.stringMatching(/^end-to-end-exactly-once: .* missing records/));
  });

  test('planted: reached without a clock time, by pausing the TaskManager right after a task FINISHED (an execution point)', () => {
    // The targeted strategy's restart window (restartWindowArbitrary.ts) aims the same way.
    const atFinished = (mutations: string[]): RunSpec => ({
      ...spec(savepoint, mutations),
      faults: [{ type: 'pause', host: 'taskmanager-1', durationMs: 40, when: { at: { kind: 'execution', state: 'FINISHED', jobRun: 1 } } }],
    });
    const correct = simulate(atFinished([]));
    expect(actionEnd(correct)).toBe('failed NOT_ALL_REQUIRED_TASKS_RUNNING');
    expect(judged(correct)).toEqual([]);
    const r = simulate(atFinished([BUG]));
    expect(actionEnd(r)).toBe('completed');
    expect(judged(r)[0]).toMatch(/^consistent-cut: savepoint \d+ is not a consistent cut/);
  });

  test('the catalogue scenario savepoint-during-restart-after-task-finished: its savepoint never completes, unless the bug is on', () => {
    const { spec: scenarioSpec } = compileScenario(restartScenario);
    const completed = (r: RunResult): boolean => r.trace.some((e) => e.type === 'mark' && e.attrs['name'] === 'savepoint-completed');
    expect(completed(simulate(scenarioSpec))).toBe(false);
    expect(completed(simulate({ ...scenarioSpec, mutations: [BUG] }))).toBe(true);
  });

  test('masked without a FINISHED task: when the job restarts before any task finished, the plan is refused with the bug on too', () => {
    // At 10 ms no source subtask has finished: the calculator takes the all-running path, whose
    // tasks to wait for must all run (the masking FLINK-40482's PR names).
    const early = simulate(spec(savepoint, [BUG], 10));
    const correct = simulate(spec(savepoint, [], 10));
    expect(actionEnd(early)).toBe('failed NOT_ALL_REQUIRED_TASKS_RUNNING');
    expect(early.traceHash).toBe(correct.traceHash);
  });
});
