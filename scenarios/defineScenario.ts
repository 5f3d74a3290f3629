/**
 * defineScenario: checks a scenario written in TypeScript (parseScenario.ts: its shapes, then
 * the RunSpec it compiles to) and returns it as plain data, message-fault builders turned into
 * their data. A catalogue file exports its result as default (docs/scenarios.md).
 * @throws SimInputError (one line naming the field by its path) for a bad scenario.
 */
import { parseScenario } from './parseScenario.ts';
import type { Scenario, ScenarioDefinition } from './Scenario.ts';

export function defineScenario(definition: ScenarioDefinition): Scenario {
  return parseScenario(definition, 'definition');
}
