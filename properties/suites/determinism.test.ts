/**
 * Oracle 8 of ORACLES.md, the determinism self-check, tested both ways: the same RunSpec
 * simulated twice gives the same trace hash (generated specs of every job and every available
 * mode), and a deliberately nondeterministic simulator makes explore throw HarnessError and the
 * `explore` command exit with code 3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, test } from 'vitest';
import { runExplore, type ExploreSettings } from '../../cli/commands/exploreCommand.ts';
import type { Io } from '../../cli/program.ts';
import { AVAILABLE_MODES, type RunSpec } from '../../sim/run/RunSpec.ts';
import { simulate } from '../../sim/run/simulate.ts';
import { runSpecArbitrary, type ExploreJob } from '../arbitraries/runSpecArbitrary.ts';
import { defaultJudge } from '../explore/defaultJudge.ts';
import { explore, HarnessError, type Simulate } from '../explore/explore.ts';
import { propertyParameters } from './propertyParameters.ts';

const JOBS: readonly ExploreJob[] = ['flights', 'wordcount', 'generated'];

/**
 * The real simulator with a flaw planted: every other call runs the spec with another seed, so
 * the same spec gives two different traces.
 */
function nondeterministicSimulate(): Simulate {
  let calls = 0;
  return (spec: RunSpec) => simulate({ ...spec, seed: `${spec.seed}${calls++ % 2 === 0 ? '' : '-flipped'}` });
}

for (const job of JOBS) {
  for (const mode of AVAILABLE_MODES) {
    test(`determinism: ${job}, ${mode}: the same RunSpec twice gives the same trace hash`, () => {
      const arbitrary = runSpecArbitrary({ job, mode, maxRecords: 150, maxParallelism: 3 });
      fc.assert(fc.property(arbitrary, (spec) => {
        const first = simulate(spec);
        // A deep copy, so nothing the first run might have touched is shared.
        const second = simulate(structuredClone(spec));
        expect(second.traceHash).toBe(first.traceHash);
        expect(second.outcome).toEqual(first.outcome);
      }), { ...propertyParameters<[RunSpec]>(2), endOnFailure: true });
    });
  }
}

test('determinism: explore throws HarnessError when simulate is nondeterministic', () => {
  expect(() => explore({
    job: 'generated',
    modes: ['aligned'],
    runs: 2,
    seed: 1,
    maxRecords: 20,
    determinismEvery: 1,
    fanOutEvery: 0,
    simulate: nondeterministicSimulate(),
    judge: defaultJudge,
    clock: () => 0,
    writeRepro: () => {
      throw new Error('no repro expected');
    },
    version: 'test',
  })).toThrow(HarnessError);
});

const outDir = mkdtempSync(join(tmpdir(), 'checkpoint-sim-determinism-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

test('determinism: the explore command exits with code 3 on a determinism mismatch', () => {
  const written = { out: '', err: '' };
  const io: Io = { out: (t) => { written.out += t; }, err: (t) => { written.err += t; } };
  const settings: ExploreSettings = {
    job: 'generated', modes: ['aligned'], expect: undefined, mutants: [], runs: 2,
    timeBudgetMs: undefined, seed: 1, seedDrawn: false, out: outDir, json: true,
    maxRecords: 20, maxParallelism: undefined, strategy: 'mixed',
  };
  const { code } = runExplore(settings, io, 'test', false, { simulate: nondeterministicSimulate() });
  expect(code).toBe(3);
  expect(written.err).toMatch(/harness failure: determinism self-check failed/);
  // The same settings with the real simulator are fine.
  expect(runExplore(settings, { out: () => {}, err: () => {} }, 'test', false).code).toBe(0);
});
