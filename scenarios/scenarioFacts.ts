/**
 * scenarioFacts: what judgeScenario needs of a scenario besides its RunSpec (and what its repro
 * carries): the steps as phrases, their points, where each went in the RunSpec (a fault or an
 * action), the expectations.
 */
import { stepTargets } from './compileScenario.ts';
import type { ScenarioFacts } from './judgeScenario.ts';
import { notation } from './notation.ts';
import type { Scenario } from './Scenario.ts';

export function scenarioFacts(s: Scenario): ScenarioFacts {
  return {
    name: s.name,
    steps: s.steps.map((step) => `${notation.action(step.do)} at ${'at' in step ? notation.point(step.at) : `${step.atMs} ms`}`),
    points: s.steps.map((step) => ('at' in step ? step.at : undefined)),
    targets: stepTargets(s.steps.map((step) => step.do)),
    expect: s.expect,
  };
}
