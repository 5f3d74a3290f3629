/**
 * Writes `schemas/scenario.schema.json`, the JSON Schema of a scenario file
 * (scenarios/scenarioSchema.ts), so editors complete and check scenario files. Run with
 * `npx tsx scripts/emitScenarioSchema.ts`; scenarios/scenarioSchema.test.ts fails when the
 * committed file is stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { scenarioJsonSchema } from '../scenarios/scenarioJsonSchema.ts';

mkdirSync(new URL('../schemas/', import.meta.url), { recursive: true });
writeFileSync(new URL('../schemas/scenario.schema.json', import.meta.url), scenarioJsonSchema());
