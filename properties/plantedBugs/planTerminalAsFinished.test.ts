/**
 * Planted bug `plan-terminal-as-finished` (mutants.md 7a, FLINK-40482) end to end: where it is
 * reached and what catches it. Flink 1.20's plan calculator takes the "after tasks finished" path
 * only once some task is FINISHED (hasFinishedTasks), and on that path it counts every terminal
 * attempt (Execution.isFinished: FINISHED, CANCELED or FAILED) as finished. A savepoint or stop
 * asked for while the job restarts, after a task finished and before the failed attempts are
 * replaced, is then planned without the failed tasks. Two maskings keep it latent in most
 * schedules, as in Flink: with no task FINISHED the all-running path refuses the plan; and when
 * every task is terminal the plan waits for no task, which PendingCheckpoint refuses ("needs at
 * least one vertex that commits the checkpoint", TRIGGER_CHECKPOINT_FAILURE). It shows when
 * another failover region keeps running (regionRestartSpec.ts).
 */
import { describe, expect, test } from 'vitest';
import restartScenario from '../../scenarios/catalogue/savepoint-during-restart-after-task-finished.ts';
import { compileScenario } from '../../scenarios/compileScenario.ts';
import { regionRestartSpec } from './regionRestartSpec.ts';
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

  test('masked when every task is terminal: the plan waits for no task, and PendingCheckpoint refuses it as Flink\'s does', () => {
    // One TaskManager holds every task: all FAILED at once, one FINISHED. The buggy plan is empty.
    const r = simulate(spec(savepoint, [BUG]));
    expect(actionEnd(r)).toBe('failed TRIGGER_CHECKPOINT_FAILURE');
    expect(judged(r)).toEqual([]);
  });

  describe('with another failover region still running (regionRestartSpec.ts)', () => {
    const stop: Action = { type: 'stop-with-savepoint', drain: false, when: ON_RESTARTING };

    test('correct: the savepoint is refused, as the failed subtask is one to wait for and does not run', () => {
      const r = simulate(regionRestartSpec(savepoint, []));
      expect(actionEnd(r)).toBe('failed NOT_ALL_REQUIRED_TASKS_RUNNING');
      expect(judged(r)).toEqual([]);
    });

    test('planted: the FAILED attempt counts as finished, the plan waits for the running region alone and the savepoint completes', () => {
      const r = simulate(regionRestartSpec(savepoint, [BUG]));
      expect(savepointPlan(r)).toMatchObject({ waitFor: 'v0#2@0', finished: 'v0#0@0,v0#1@0' });
      expect(actionEnd(r)).toBe('completed');
    });

    test('planted: a stop-with-savepoint completes that savepoint, fails the job for good and loses the failed region\'s unread input', () => {
      expect(judged(simulate(regionRestartSpec(stop, [])))).toEqual([]);
      const r = simulate(regionRestartSpec(stop, [BUG]));
      expect(r.jobStatus).toBe('FAILED');
      expect(actionEnd(r)).toBe('failed StopWithSavepointStoppingException');
      expect(judged(r)).toContainEqual(expect.stringMatching(/^end-to-end-exactly-once: .* missing records/));
    });
  });

  test('the catalogue scenario savepoint-during-restart-after-task-finished: its savepoint never completes, bug or not (every task terminal: masked)', () => {
    const { spec: scenarioSpec } = compileScenario(restartScenario);
    const completed = (r: RunResult): boolean => r.trace.some((e) => e.type === 'mark' && e.attrs['name'] === 'savepoint-completed');
    expect(completed(simulate(scenarioSpec))).toBe(false);
    expect(completed(simulate({ ...scenarioSpec, mutations: [BUG] }))).toBe(false);
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
