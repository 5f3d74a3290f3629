/**
 * Scenario steps that are actions on the job (triggerSavepoint()), points of a savepoint step
 * (savepoint(n)) and the savepoint expectations: what they compile to, the paths their errors
 * name, that an action step that never fires fails the scenario (and counts in fuzz, which keeps
 * it), and that a repro of such a scenario replays the same verdict. The savepoint expectations
 * on the catalogue's savepoint scenarios: catalogue/savepointScenarios.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect as check, test } from 'vitest';
import { runCli } from '../cli/testing/runCli.ts';
import type { RunSpec } from '../sim/run/RunSpec.ts';
import { simulate } from '../sim/run/simulate.ts';
import {
  checkpoint, compileScenario, crash, defineScenario, expect, fuzzScenario, lose, parseScenario, restore, runScenario,
  savepoint, stopWithSavepoint, triggerSavepoint,
} from './index.ts';
import { notation } from './notation.ts';

const out = mkdtempSync(join(tmpdir(), 'savepoint-steps-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const base = { name: 'savepoint-steps', protects: 'x', expect: [] };

describe('builders and notation', () => {
  test('triggerSavepoint() is the RunSpec action without when; savepoint(n) points name the n-th savepoint step', () => {
    check(triggerSavepoint()).toEqual({ type: 'savepoint' });
    check(triggerSavepoint({ format: 'native' })).toEqual({ type: 'savepoint', format: 'native' });
    check(savepoint(1).completed()).toEqual({ kind: 'jobmaster', savepoint: 1, phase: 'completed' });
    check(savepoint(2).syncDoneOn('v1#0')).toEqual({ kind: 'task', savepoint: 2, phase: 'sync-done', task: 'v1#0' });
    check(() => savepoint(0)).toThrow(/^savepoint\(0\): which savepoint step, an integer >= 1$/);
    check(notation.point(savepoint(1).completed())).toBe('savepoint(1).completed()');
    check(notation.point(savepoint(2).ackSentBy('v1#1'))).toBe("savepoint(2).ackSentBy('v1#1')");
    check(notation.point(checkpoint(3).completed())).toBe('checkpoint(3).completed()');
    check(notation.action(triggerSavepoint())).toBe('triggerSavepoint()');
    check(notation.action(triggerSavepoint({ format: 'native' }))).toBe("triggerSavepoint({ format: 'native' })");
    check(stopWithSavepoint({ drain: true })).toEqual({ type: 'stop-with-savepoint', drain: true });
    check(notation.action(stopWithSavepoint({ drain: true }))).toBe('stopWithSavepoint({ drain: true })');
    check(notation.action(stopWithSavepoint())).toBe('stopWithSavepoint()');
    check(notation.expectation(expect.savepointAborted(1, 'CHECKPOINT_EXPIRED'))).toBe("expect.savepointAborted(1, 'CHECKPOINT_EXPIRED')");
    check(notation.expectation(expect.at(savepoint(1).completed(), expect.savepointNotNotified(1))))
      .toBe('expect.at(savepoint(1).completed(), expect.savepointNotNotified(1))');
  });
});

describe('compiling', () => {
  const scenario = defineScenario({
    ...base,
    steps: [
      { at: checkpoint(3).ackSentBy('v1#0'), do: crash('taskmanager-1') },
      { at: checkpoint(2).completed(), do: triggerSavepoint() },
      { at: savepoint(1).completed(), do: lose('confirmCheckpoint').to('v1#0') },
    ],
  });

  test('a savepoint step goes to actions, the faults keep their order, and targets say where each step went', () => {
    const { spec, targets } = compileScenario(scenario);
    check(spec.faults.map((f) => f.type)).toEqual(['crash', 'message']);
    check(spec.actions).toEqual([{ type: 'savepoint', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }]);
    check(spec.faults[1]).toMatchObject({ when: { at: { kind: 'jobmaster', savepoint: 1, phase: 'completed' } } });
    check(targets).toEqual([{ fault: 0 }, { action: 0 }, { fault: 1 }]);
    // A stop is an action too, and its synchronous savepoint is savepoint 2 here.
    const stop = compileScenario(defineScenario({ ...base, steps: [...scenario.steps,
      { at: checkpoint(6).completed(), do: stopWithSavepoint() }, { at: savepoint(2).completed(), do: crash('taskmanager-2') }] }));
    check(stop.targets).toEqual([{ fault: 0 }, { action: 0 }, { fault: 1 }, { action: 1 }, { fault: 2 }]);
    check(stop.spec.actions?.map((a) => a.type)).toEqual(['savepoint', 'stop-with-savepoint']);
    // A scenario without action steps compiles as before: no actions field.
    check('actions' in compileScenario(defineScenario({ ...base, steps: [{ atMs: 5, do: crash('taskmanager-1') }] })).spec).toBe(false);
  });

  test('the same scenario as a file', () => {
    const file = parseScenario({
      version: 8, ...base,
      steps: [{ at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' }, do: { type: 'savepoint', format: 'native' } }],
      expect: [{ kind: 'savepointCompleted', savepoint: 1 }, { kind: 'at', point: { kind: 'jobmaster', savepoint: 1, phase: 'completed' },
        expect: { kind: 'savepointNotNotified', savepoint: 1 } }],
    }, 'file');
    check(compileScenario(file).spec.actions).toEqual([{ type: 'savepoint', format: 'native', when: { at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' } } }]);
  });

  test.each<[string, () => unknown, string]>([
    ['a savepoint the steps do not trigger', () => defineScenario({ ...base, steps: [
      { at: checkpoint(2).completed(), do: triggerSavepoint() }, { at: savepoint(2).completed(), do: crash('taskmanager-1') },
    ] }), 'steps[1].at.savepoint: names savepoint 2, but only one action triggers a savepoint (steps[0])'],
    ['a savepoint step waiting for its own savepoint', () => defineScenario({ ...base, steps: [
      { atMs: 5, do: crash('taskmanager-1') }, { at: savepoint(1).triggered(), do: triggerSavepoint() },
    ] }), 'steps[1].at.savepoint: savepoint 1 is this action\'s own, so this action could never fire'],
    ['a bad format', () => defineScenario({ ...base, steps: [{ atMs: 5, do: { type: 'savepoint', format: 'nativ' } as never }] }),
      'steps[0].do.format: must be one of canonical, native, got "nativ"'],
    ['a task the job lacks in an action step\'s point', () => defineScenario({ ...base, steps: [
      { atMs: 5, do: crash('taskmanager-1') }, { at: checkpoint(2).ackSentBy('v7#0'), do: triggerSavepoint() },
    ] }), 'steps[1].at.task: no task v7#0 in this job (tasks: v0#0, v0#1, v1#0, v1#1)'],
    ['an expectation of a savepoint the steps do not trigger', () => defineScenario({ ...base,
      steps: [{ at: checkpoint(2).completed(), do: triggerSavepoint() }], expect: [expect.savepointCompleted(2)] }),
    'expect[0].savepoint: names savepoint 2, but the scenario has one savepoint step (steps[0])'],
    ['an expect.at point of such a savepoint', () => defineScenario({ ...base, steps: [],
      expect: [expect.at(savepoint(1).completed(), expect.jobStatus('RUNNING'))] }),
    'expect[0].point.savepoint: names savepoint 1, but the scenario has no savepoint step'],
    ['actions in config', () => defineScenario({ ...base, steps: [], config: { actions: [] } as never }),
      'config.actions: an action goes in steps ({ at, do: triggerSavepoint() } or { atMs, do: ... }), where every step must fire'],
  ])('bad input, one line naming the scenario\'s field: %s', (_name, define, message) => {
    check(define).toThrow(message);
  });
});

describe('every step must fire, action steps too', () => {
  test('an action step whose point never comes fails the scenario, and so does a point of its savepoint; the repro replays it', async () => {
    const r = runScenario(defineScenario({
      ...base, name: 'unfired-savepoint-step',
      steps: [{ at: restore(1), do: triggerSavepoint() }, { at: savepoint(1).completed(), do: crash('taskmanager-1') }],
    }), { outDir: out });
    check(r.passed).toBe(false);
    check(r.stepsFired).toBe(0);
    check(r.failure?.summary).toMatch(/^step 1 never fired: triggerSavepoint\(\) at restore\(1\) \(last protocol point reached: /);
    const repro = JSON.parse(readFileSync(r.reproPath ?? '', 'utf8')) as { scenario: { targets: unknown } };
    check(repro.scenario.targets).toEqual([{ action: 0 }, { fault: 0 }]);
    const replayed = await runCli('replay', r.reproPath ?? '', '--json');
    check(replayed.code).toBe(1);
    check((JSON.parse(replayed.stdout) as { violation: { summary: string } }).violation.summary).toBe(r.failure?.summary);
  });

  test('a step at a savepoint point says how far that savepoint got', () => {
    const r = runScenario(defineScenario({
      ...base, name: 'savepoint-point-never-reached',
      steps: [{ at: checkpoint(2).completed(), do: triggerSavepoint() }, { at: savepoint(1).notified('v1#0'), do: crash('taskmanager-1') }],
    }), { outDir: out });
    // No task is notified of a savepoint: the point is never reached.
    check(r.failure?.summary).toMatch(/^step 2 never fired: crash\('taskmanager-1'\) at savepoint\(1\)\.notified\('v1#0'\) \(last protocol point reached: savepoint 1 \(checkpoint id 3\): completed at [\d.]+ ms\)$/);
  });

  test('fuzz keeps the savepoint step in every run and counts it when it does not fire', () => {
    const scenario = defineScenario({ ...base, name: 'fuzz-savepoint', steps: [{ at: checkpoint(2).completed(), do: triggerSavepoint() }] });
    const specs: RunSpec[] = [];
    const r = fuzzScenario(scenario, { runs: 3, seed: 1, outDir: out, simulate: (s) => { specs.push(s); return simulate(s); } });
    check(r.violations).toBe(0);
    check(specs.length).toBeGreaterThanOrEqual(3);
    for (const s of specs) check(s.actions).toEqual(compileScenario(scenario).spec.actions);
    const unfired = fuzzScenario(defineScenario({ ...base, name: 'fuzz-unfired-savepoint', steps: [{ at: restore(1), do: triggerSavepoint() }] }),
      { runs: 2, seed: 1, outDir: out });
    check(unfired).toMatchObject({ runs: 2, violations: 0, runsWithUnfiredSteps: 2, stepsUnfired: 2 });
  });
});
