/**
 * The leak check behind the two store-fault scenarios: a failed or unknown-outcome write of
 * `chk-1/_metadata` excuses at most that file, not the rest of checkpoint 1. With the planted
 * `dispose-clears-before-discard` (FLINK-5660: the aborted checkpoint forgets its state before
 * discarding it) the six state files of checkpoint 1 stay behind, and the storage oracle must
 * say so; without it both scenarios pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runScenario } from '../runScenario.ts';
import type { Scenario } from '../Scenario.ts';
import failedWrite from './failed-object-store-write.ts';
import unknownOutcomeWrite from './unknown-outcome-object-store-write.ts';

const out = mkdtempSync(join(tmpdir(), 'scenario-store-fault-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const withMutant = (s: Scenario): Scenario =>
  ({ ...s, config: { ...s.config, mutations: ['dispose-clears-before-discard'] } });

describe('store faults excuse only the path they were about', () => {
  test.each([
    [failedWrite.name, failedWrite],
    [unknownOutcomeWrite.name, unknownOutcomeWrite],
  ] as const)('%s fails on the storage oracle when the aborted checkpoint\'s files are not discarded', (_name, s) => {
    expect(runScenario(s, { outDir: out }).passed).toBe(true);
    const r = runScenario(withMutant(s), { outDir: out });
    expect(r.passed).toBe(false);
    expect(r.failure?.kind).toBe('oracle');
    expect(r.failure?.property).toBe('storage-invariants');
    // The six state files of checkpoint 1 (four tasks, six operators with state); the
    // _metadata an unknown-outcome write may have left is excused.
    expect(r.failure?.summary).toMatch(/: 6 file\(s\) leaked: /);
  });
});
