/**
 * scenarioJsonSchema: the JSON Schema (draft 2020-12) zod emits for a scenario file, as the
 * text of `schemas/scenario.schema.json` (scripts/emitScenarioSchema.ts writes it). The job and
 * the configuration are RunSpec parts and are open objects here: the RunSpec's own checks judge
 * them when the scenario compiles.
 */
import { z } from 'zod';
import { scenarioSchema } from './scenarioSchema.ts';

export function scenarioJsonSchema(): string {
  const schema = z.toJSONSchema(scenarioSchema, { unrepresentable: 'any' });
  return `${JSON.stringify({ ...schema, title: 'checkpoint-sim scenario file' }, null, 2)}\n`;
}
