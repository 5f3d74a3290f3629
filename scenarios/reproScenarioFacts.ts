/**
 * reproScenarioFacts: a scenario repro's `scenario` field (properties/explore/Repro.ts) as the
 * facts judgeScenario needs, its points and expectations checked against the scenario schema.
 * @throws SimInputError naming the bad field (`scenario.expect[0].kind: ...`).
 */
import type { ReproScenario } from '../properties/explore/Repro.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioFacts } from './judgeScenario.ts';
import type { ScenarioExpectation, ScenarioPoint } from './Scenario.ts';
import { scenarioSchemaParts } from './scenarioSchema.ts';

export function reproScenarioFacts(s: ReproScenario): ScenarioFacts {
  const check = <T>(v: unknown, schema: { safeParse(v: unknown): { success: boolean; error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } }, path: string): T => {
    const r = schema.safeParse(v);
    if (!r.success) {
      const issue = r.error?.issues[0];
      const rest = (issue?.path ?? []).map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      throw new SimInputError(`${path}${rest}: ${issue?.message ?? 'invalid'}`);
    }
    return v as T;
  };
  return {
    name: s.name,
    steps: s.steps,
    points: s.points.map((p, i) => (p === null ? undefined : check<ScenarioPoint>(p, scenarioSchemaParts.point, `scenario.points[${i}]`))),
    ...(s.targets === undefined ? {} : { targets: s.targets }),
    expect: s.expect.map((e, i) => check<ScenarioExpectation>(e, scenarioSchemaParts.expectation, `scenario.expect[${i}]`)),
  };
}
