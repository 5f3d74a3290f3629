import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { scenarioJsonSchema } from './scenarioJsonSchema.ts';

describe('schemas/scenario.schema.json', () => {
  test('is what the zod schema emits (run npx tsx scripts/emitScenarioSchema.ts after a change)', () => {
    expect(readFileSync(new URL('../schemas/scenario.schema.json', import.meta.url), 'utf8')).toBe(scenarioJsonSchema());
  });

  test('describes the steps, so editors can complete them', () => {
    const schema = JSON.parse(scenarioJsonSchema()) as { properties: Record<string, unknown>; required: string[] };
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'name', 'protects', 'steps', 'expect']));
    expect(JSON.stringify(schema.properties['steps'])).toContain('"ack-received"');
  });
});
