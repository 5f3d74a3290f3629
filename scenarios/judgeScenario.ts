/**
 * judgeScenario: the verdict on a scenario's run, in the order a reader needs it:
 *
 * 1. the standing oracles (properties/oracles/judgeRun.ts through the judge, default
 *    defaultJudge) under the scenario's promise;
 * 2. every step must fire: a step whose fault is in `RunResult.unfiredFaults` (or whose action,
 *    for a step that is an action on the job, is in `RunResult.unfiredActions`) fails, named with
 *    the last protocol point the run reached (`step 1 never fired: ... (last protocol point
 *    reached: checkpoint 22 acked on v1#0 at 449.3 ms)`), or, if its point was reached, why
 *    it still did nothing (at or after the heal time; no matching RPC after it);
 * 3. the expectations, in order (judgeExpectation.ts).
 *
 * The violations come back in that order as Violations (`property` an oracle name,
 * `scenario-step` or `scenario-expectation`), so `replay` of a scenario repro judges the same
 * thing (scenarioJudge). Used by runScenario, fuzzScenario and the replay command.
 */
import { defaultJudge } from '../properties/explore/defaultJudge.ts';
import type { Expectation, Judge, Judgement } from '../properties/explore/explore.ts';
import type { RunResult, Violation } from '../sim/run/RunResult.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import type { StepTarget } from './compileScenario.ts';
import { judgeExpectation } from './judgeExpectation.ts';
import { notation } from './notation.ts';
import { pointReach } from './pointReach.ts';
import type { ScenarioExpectation, ScenarioPoint } from './Scenario.ts';

/** What a run must be judged against, beyond the oracles (a repro's `scenario` field). */
export interface ScenarioFacts {
  readonly name: string;
  /** One per step, its notation (`crash('taskmanager-1') at checkpoint(3).ackSentBy('v1#0')`). */
  readonly steps: readonly string[];
  /** The steps' points (undefined for a step at a time), to say how far the run got. */
  readonly points: readonly (ScenarioPoint | undefined)[];
  /**
   * Where each step went in the RunSpec (compileScenario.ts): `{ fault: i }` or `{ action: j }`.
   * Absent (a repro written before steps could be actions): step i is fault i.
   */
  readonly targets?: readonly StepTarget[];
  readonly expect: readonly ScenarioExpectation[];
}

/** Details of a `scenario-step` or `scenario-expectation` violation. */
export interface ScenarioViolationDetails {
  /** Step number from 1, or expectation index from 0. */
  readonly step?: number;
  readonly expectation?: string;
  readonly actual?: string;
  /** The trace events the verdict rests on. */
  readonly events: readonly TraceEvent[];
}

export interface ScenarioVerdict {
  /** Every violation, oracles first, then steps, then expectations; the first one is the failure. */
  readonly violations: readonly Violation[];
  readonly stepsFired: number;
  /** The standing oracles' judgement (duplicates, missing records, keyed state). */
  readonly judgement: Judgement;
}

const ms = (timeUs: number): string => `${+(timeUs / 1000).toFixed(3)} ms`;

/** Step i's target: facts.targets[i], or fault i (a repro without targets). */
function targetOf(facts: ScenarioFacts, i: number): StepTarget {
  return facts.targets?.[i] ?? { fault: i };
}

/**
 * Whether step i (its fault or its action) never fired in `result`; a target the spec does not
 * have (a hand-edited repro) never fired either, rather than passing untested.
 */
export function stepUnfired(facts: ScenarioFacts, result: RunResult, i: number): boolean {
  const t = targetOf(facts, i);
  return 'fault' in t ? t.fault >= result.spec.faults.length || result.unfiredFaults.includes(t.fault)
    : t.action >= result.spec.actions.length || result.unfiredActions.includes(t.action);
}

function unfiredStep(facts: ScenarioFacts, result: RunResult, i: number): Violation {
  const what = facts.steps[i] ?? `fault ${i}`;
  const point = facts.points[i];
  const head = `step ${i + 1} never fired: ${what}`;
  const actions = result.spec.actions;
  let why: string;
  if (point === undefined) {
    why = `(the run ended at ${result.outcome.timeMs} ms)`;
  } else {
    const reached = pointReach.first(result.trace, point, actions);
    const at = reached < 0 ? undefined : result.trace[reached];
    if (at === undefined) {
      why = `(last protocol point reached: ${pointReach.last(result.trace, point, actions)})`;
    } else if ('action' in targetOf(facts, i)) {
      // An action fires at its point whatever the heal time; this one did not, which says the
      // harness is wrong, not the run: say it plainly.
      why = `(its point was reached at ${ms(at.timeUs)}, but the action did not fire)`;
    } else if (at.timeUs >= result.spec.healTimeMs * 1000) {
      why = `(its point was reached at ${ms(at.timeUs)}, at or after the heal time ${result.spec.healTimeMs} ms, when faults no longer fire)`;
    } else {
      why = `(its point was reached at ${ms(at.timeUs)}, but no message matched the fault after it)`;
    }
  }
  return {
    property: 'scenario-step',
    summary: `${head} ${why}`,
    details: { step: i + 1, events: [] } satisfies ScenarioViolationDetails,
    timeMs: result.outcome.timeMs,
  };
}

/** Judges `result` as a run of the scenario `facts` describe, under `promise`. */
export function judgeScenario(facts: ScenarioFacts, result: RunResult, promise: Expectation, judge: Judge = defaultJudge): ScenarioVerdict {
  const judgement = judge(result, promise);
  const violations: Violation[] = [...judgement.violations];
  let stepsFired = 0;
  for (let i = 0; i < facts.steps.length; i++) {
    if (stepUnfired(facts, result, i)) violations.push(unfiredStep(facts, result, i));
    else stepsFired++;
  }
  // A world setting of config.faults aimed at one checkpoint that no operation of it met tested
  // nothing (a guessed savepoint id that was wrong): a failure like an unfired step.
  const stepFaults = new Set(facts.steps.map((_s, i) => targetOf(facts, i)).flatMap((t) => ('fault' in t ? [t.fault] : [])));
  for (const f of result.unfiredFaults) {
    if (stepFaults.has(f)) continue;
    const fault = result.spec.faults[f];
    violations.push({
      property: 'scenario-step',
      summary: `config.faults fault ${JSON.stringify(fault)} never acted: no operation of the checkpoint it names came before the heal time`,
      details: { fault: f },
      timeMs: result.outcome.timeMs,
    });
  }
  facts.expect.forEach((e) => {
    const v = judgeExpectation(e, result);
    if (v.ok) return;
    const expectation = notation.expectation(e);
    violations.push({
      property: 'scenario-expectation',
      summary: `${expectation} failed at ${v.timeMs} ms: ${v.actual}`,
      details: { expectation, actual: v.actual, events: v.events } satisfies ScenarioViolationDetails,
      timeMs: v.timeMs,
    });
  });
  return { violations, stepsFired, judgement };
}

/** A Judge (explore/replay's shape) that judges runs as the scenario `facts` does. */
export function scenarioJudge(facts: ScenarioFacts, judge: Judge = defaultJudge): Judge {
  return (result, promise) => {
    const v = judgeScenario(facts, result, promise, judge);
    return { ...v.judgement, violations: v.violations };
  };
}
