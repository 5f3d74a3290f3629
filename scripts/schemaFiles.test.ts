import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION } from '../sim/run/RunSpec.ts';
import { SCHEMA_FILES, schemaText } from './schemaFiles.ts';

const root = join(import.meta.dirname, '..');

describe('the shipped JSON Schemas (schemas/)', () => {
  test.each(SCHEMA_FILES.map((f) => [f.file, f] as const))('%s is what its zod schema emits', (file, entry) => {
    let text = '';
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      expect.fail(`${file} is missing: run \`npm run schemas\``);
    }
    if (text !== schemaText(entry)) {
      expect.fail(`${file} differs from what its schema emits: run \`npm run schemas\` and commit the result`);
    }
  });

  test('the RunSpec schema names this version, refuses unknown fields and says what fields mean', () => {
    const runspec = SCHEMA_FILES.find((f) => f.file === 'schemas/runspec.schema.json');
    const json = JSON.parse(schemaText(runspec!)) as {
      $id: string; title: string; additionalProperties: boolean;
      properties: Record<string, { const?: number; description?: string }>;
    };
    expect(json.$id).toBe(`urn:checkpoint-sim:runspec:v${RUN_SPEC_VERSION}`);
    expect(json.title).toBe('checkpoint-sim RunSpec');
    expect(json.additionalProperties).toBe(false);
    expect(json.properties['version']?.const).toBe(RUN_SPEC_VERSION);
    expect(Object.keys(json.properties)).toContain('$schema');
    expect(json.properties['healTimeMs']?.description).toMatch(/ms/);
  });
});
