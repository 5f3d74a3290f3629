/**
 * Keeps docs/runspec.md honest: every ```json block in it must be accepted as it stands. A
 * RunSpec must pass validateRunSpec and run to the end with simulate, and a repro file must pass
 * parseRepro, with its spec passing validateRunSpec. So a renamed field, a changed default or a
 * new format version breaks this test, not a reader's first try.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRepro } from '../../properties/explore/Repro.ts';
import { simulate } from './simulate.ts';
import { validateRunSpec } from './validateRunSpec.ts';

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'runspec.md');

/** The bodies of the doc's ```json fenced blocks, in order. */
function jsonBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

const blocks = jsonBlocks(readFileSync(DOC, 'utf8')).map((text) => JSON.parse(text) as Record<string, unknown>);
const specs = blocks.filter((b) => b['format'] === undefined);
const repros = blocks.filter((b) => b['format'] !== undefined);

describe('docs/runspec.md', () => {
  test('has the complete RunSpec example and the repro example', () => {
    expect(specs.length).toBeGreaterThanOrEqual(1);
    expect(repros.length).toBeGreaterThanOrEqual(1);
  });

  test.each(specs.map((s, i) => [i, s] as const))('RunSpec example %i validates and runs to the end', (_i, spec) => {
    const valid = validateRunSpec(spec);
    const result = simulate(valid, { checkInvariants: true });
    expect(result.outcome.reason).toBe('stopped');
    expect(result.jobStatus).toBe('FINISHED');
    // The doc says what each fault does; a fault that never fires would make it wrong.
    expect(result.unfiredFaults).toEqual([]);
    expect(result.unusedOverrides).toEqual([]);
    // Likewise a PCT change point the run never reaches.
    expect(result.schedule.pct?.unusedChangePoints ?? []).toEqual([]);
  });

  test.each(repros.map((r, i) => [i, r] as const))('repro example %i is a readable repro file', (_i, repro) => {
    const parsed = parseRepro(repro);
    expect(() => validateRunSpec(parsed.spec)).not.toThrow();
    expect(simulate(parsed.spec).jobStatus).toBe('FINISHED');
  });
});
