import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { SCHEMA_FILES, schemaText } from '../scripts/schemaFiles.ts';

const entry = SCHEMA_FILES.find((f) => f.file === 'schemas/scenario.schema.json');

describe('schemas/scenario.schema.json', () => {
  test('is shipped with the other schemas', () => {
    expect(entry).toBeDefined();
  });

  test('describes the steps, the job and the configuration with the RunSpec\'s own blocks, so editors can complete them', () => {
    const schema = JSON.parse(schemaText(entry!)) as { properties: Record<string, unknown>; required: string[] };
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'name', 'protects', 'steps', 'expect']));
    const text = JSON.stringify(schema);
    expect(JSON.stringify(schema.properties['steps'])).toContain('#/definitions/protocolPoint');
    expect(text).toContain('"ack-received"');
    expect(JSON.stringify(schema.properties['steps'])).toContain('"confirmCheckpoint"');
    expect(JSON.stringify(schema.properties['job'])).toContain('flights job');
    expect(JSON.stringify(schema.properties['config'])).toContain('intervalMs');
    expect(text).not.toContain('"rpc-loss action"');
  });

  test('matches the checked-in file (run npm run schemas after a change)', () => {
    expect(readFileSync(new URL(`../${entry!.file}`, import.meta.url), 'utf8')).toBe(schemaText(entry!));
  });
});
