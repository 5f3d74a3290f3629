/**
 * The catalogue in `npm test`: every scenario passes (standing oracles, every step fired, its
 * expectations), and runs twice with the same trace hash. One run of the pair is the check, the
 * other the determinism proof; a scenario costs two simulations, a few hundred ms of CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runScenario } from '../runScenario.ts';
import { CATALOGUE } from './index.ts';

const out = mkdtempSync(join(tmpdir(), 'scenario-catalogue-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the scenario catalogue', () => {
  test('names are unique and every scenario says what it protects', () => {
    const names = CATALOGUE.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of CATALOGUE) expect(s.protects.length).toBeGreaterThan(20);
  });

  test.each(CATALOGUE.map((s) => [s.name, s] as const))('%s passes, twice with the same trace hash', (_name, s) => {
    const first = runScenario(s, { outDir: out });
    expect(first.failure?.message).toBeUndefined();
    expect(first.passed).toBe(true);
    expect(first.stepsFired).toBe(s.steps.length);
    const again = runScenario(s, { outDir: out });
    expect(again.traceHash).toBe(first.traceHash);
  });
});
