/**
 * The library explore as a user's test file calls it: a correct job module resolves with the
 * report; a sink that commits in snapshotState rejects with an ExploreFailure whose message says
 * the property, the seed and path, the repro and the replay command, with the repro on disk and
 * replaying (exit 1) through the CLI; an inline JobDefinition and bad options are refused with
 * one line (SimInputError). The packed example project (scripts/packed) runs the same from an
 * installed tarball.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { defineJob } from '../../sim/jobs/JobDefinition.ts';
import { MAX_RUN_PARALLELISM } from '../../sim/run/validateRunSpec.ts';
import { SimInputError } from '../../sim/SimInputError.ts';
import { COMMITS_IN_SNAPSHOT, moduleIn, transfersModule } from '../testing/jobModuleFixtures.ts';
import { runCli } from '../testing/runCli.ts';
import { explore, ExploreFailure } from './explore.ts';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-library-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const good = moduleIn(tmp, 'good', transfersModule());
/** A module with two definitions: the transfers job as the default, and a copy of it named `other`. */
const two = join(good, '..', 'two.ts');
writeFileSync(two, `import job from './job.ts';\nexport default job;\nexport const other = { ...job, name: 'other' };\n`);

describe('explore (library)', () => {
  test('a correct job module: resolves with the report, restores above 0', async () => {
    const report = await explore({ job: good, modes: ['aligned'], runs: 25, seed: 41, outDir: join(tmp, 'out-good') });
    expect(report.modes['aligned']).toMatchObject({ runs: 25, violations: 0 });
    expect(report.modes['aligned']?.restores).toBeGreaterThan(0);
    expect(report.counterexamples).toEqual([]);
  });

  test('the default seed is a hash of the job, so a plain rerun explores the same runs', async () => {
    const a = await explore({ job: good, modes: ['at-least-once'], runs: 4, outDir: join(tmp, 'out-seed') });
    const b = await explore({ job: pathToFileURL(good), modes: ['at-least-once'], runs: 4, outDir: join(tmp, 'out-seed') });
    expect(b.seed).toBe(a.seed);
    expect(b.modes).toEqual(a.modes);
  });

  test('a sink committing in snapshotState: rejects with the property, seed, path, repro and replay; the repro replays', async () => {
    const buggy = moduleIn(tmp, 'buggy', transfersModule({ sink: COMMITS_IN_SNAPSHOT }));
    const out = join(tmp, 'out-bad');
    const failure = await explore({ job: buggy, modes: ['aligned'], runs: 60, seed: 41, outDir: out }).then(
      () => expect.fail('explore resolved on a sink that commits in snapshotState'), (e: unknown) => e);
    expect(failure).toBeInstanceOf(ExploreFailure);
    const f = failure as ExploreFailure;
    expect(f.message).toMatch(/^explore .*job\.ts: end-to-end-exactly-once violated in mode aligned\n {2}end-to-end exactly-once violated: /);
    // Which records, as the CLI prints them.
    expect(f.message).toMatch(/\n {2}details:\n {4}expectedCount: \d+\n/);
    expect(f.message).toMatch(/\n {2}repro: .*repro-job-aligned-41\.json\n {2}replay: npx checkpoint-sim replay .*repro-job-aligned-41\.json\n {2}fast-check: seed 41, path [\d:]+$/);
    const [c] = f.counterexamples;
    expect(c?.property).toBe('end-to-end-exactly-once');
    expect(existsSync(c?.repro ?? '')).toBe(true);
    const repro = JSON.parse(readFileSync(c?.repro ?? '', 'utf8')) as { spec: { job: { path: string } }; jobModule: { hash: string } };
    expect(repro.spec.job.path).toBe(relative(out, buggy));
    expect(repro.jobModule.hash).toMatch(/^[0-9a-f]{64}$/);
    const replay = await runCli('replay', c?.repro ?? '');
    expect(replay.stdout).toMatch(/end-to-end-exactly-once/);
    expect(replay.code).toBe(1);
  });

  test('a named export, by #name in a URL or by { path, export }', async () => {
    const report = await explore({ job: new URL(`${pathToFileURL(two).href}#other`), modes: ['aligned'], runs: 2, seed: 1, outDir: join(tmp, 'o') });
    expect(report.job).toMatch(/two\.ts#other$/);
    const same = await explore({ job: { path: two, export: 'other' }, modes: ['aligned'], runs: 2, seed: 1, outDir: join(tmp, 'o') });
    expect(same.modes).toEqual(report.modes);
  });

  test('strategy: every run drawn by the one given, said in the report', async () => {
    const report = await explore({ job: good, modes: ['aligned'], runs: 3, seed: 1, strategy: 'targeted', outDir: join(tmp, 'o') });
    expect(report.strategy).toBe('targeted');
    expect(report.modes['aligned']?.runsByStrategy).toEqual({ targeted: 3 });
    expect((await explore({ job: good, modes: ['aligned'], runs: 1, seed: 1, outDir: join(tmp, 'o') })).strategy).toBe('mixed');
  });

  test('an inline JobDefinition is refused with why and what to do instead', async () => {
    const inline = defineJob({ name: 'inline', input: [{ id: 0, records: [1] }], build() { /* never built */ } });
    await expect(explore({ job: inline as never })).rejects.toThrow(
      /^explore: job must be a job module's path \(and export\), not a JobDefinition: a repro names the module .*new URL\('\.\/job\.ts', import\.meta\.url\)/);
  });

  test.each([
    [{ modes: ['unaligned'] }, "explore: unknown or unavailable mode 'unaligned'"],
    [{ modes: [] }, "explore: modes must be 'all' or a non-empty list of modes, got an array"],
    [{ runs: 0 }, 'explore: runs must be a positive integer, got 0'],
    [{ runs: 5, timeBudgetMs: 2000 }, 'explore: give runs or timeBudgetMs, not both'],
    [{ timeBudgetMs: 10 }, 'explore: timeBudgetMs must be at least 1000, got 10'],
    [{ seed: 1.5 }, 'explore: seed must be a 32-bit signed integer, got 1.5'],
    [{ mutants: ['nope'] }, "explore: unknown planted bug 'nope'"],
    [{ strategy: 'nope' }, 'explore: strategy must be one of mixed, uniform, swarm, pct, targeted, got "nope"'],
    [{ maxParallelism: 99 }, `explore: maxParallelism must be at most ${MAX_RUN_PARALLELISM}, got 99`],
    [{ outDir: '/dev/null/x' }, 'explore: '],
  ])('bad options %j: one line, a SimInputError', async (bad, message) => {
    const e = await explore({ job: good, ...bad } as never).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(SimInputError);
    expect((e as Error).message).toContain(message);
    expect((e as Error).message).not.toContain('\n');
  });

  test.each([
    [join(tmp, 'missing.ts'), /^job module .*missing\.ts: no such file/],
    [`${good}#`, /^explore: job .*#: name the export after #/],
    [new URL('https://example.com/job.ts'), /^explore: a job module URL must be a file: URL/],
    [42, /^explore: job must be a job module's path or file URL \(or flights, wordcount, generated\), got 42/],
  ])('a job that is not a loadable module (%s): one line', async (job, message) => {
    await expect(explore({ job: job as never })).rejects.toThrow(message);
  });
});
