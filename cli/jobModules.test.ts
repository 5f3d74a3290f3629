/**
 * Job modules on the command line: `--job ./job.ts` explores and judges a user's job like a
 * built-in one; a violation's repro names the module relative to itself with its content hash
 * and replays from another directory; an edited module's repro, a module reading real
 * randomness, a job the reference fold cannot judge and a module that does not load are bad
 * input (exit 2, one line naming the module).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION } from '../sim/run/RunSpec.ts';
import { expectOneLine, runCli as cli } from './testing/runCli.ts';
import { COMMITS_IN_SNAPSHOT, moduleIn, transfersModule } from './testing/jobModuleFixtures.ts';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-modules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const moduleDir = (name: string, source: string): string => moduleIn(tmp, name, source);

describe('explore --job <module>', () => {
  test('a correct job module: exit 0, restores above 0, nothing unjudged but what is said', async () => {
    const job = moduleDir('good', transfersModule());
    const r = await cli('explore', '--job', job, '--mode', 'aligned', '--runs', '40', '--seed', '41', '--json', '--out', join(tmp, 'out-good'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { job: string; modes: Record<string, { runs: number; restores: number; violations: number }> };
    expect(report.modes['aligned']).toMatchObject({ runs: 40, violations: 0 });
    expect(report.modes['aligned']?.restores).toBeGreaterThan(0);
  });

  test('a sink committing in snapshotState: exit 1, a repro naming the module relative to itself with its hash, replayed from elsewhere', async () => {
    const job = moduleDir('bad', transfersModule({ sink: COMMITS_IN_SNAPSHOT }));
    const out = join(tmp, 'out-bad');
    const r = await cli('explore', '--job', job, '--mode', 'aligned', '--runs', '200', '--seed', '41', '--out', out);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('end-to-end-exactly-once');
    const file = readdirSync(out).find((f) => f.startsWith('repro-job-aligned-41'));
    expect(file).toBeDefined();
    const repro = JSON.parse(readFileSync(join(out, file as string), 'utf8')) as {
      stage: string; jobModule?: { hash: string }; spec: { job: { kind: string; path: string } };
    };
    expect(repro.stage).toBe('shrunk');
    expect(repro.spec.job).toMatchObject({ kind: 'module', path: '../bad/job.ts' });
    expect(repro.jobModule?.hash).toMatch(/^[0-9a-f]{64}$/);
    // Moved together with the module, the repro still finds it (its path is relative to itself).
    const moved = join(tmp, 'moved');
    mkdirSync(join(moved, 'out'), { recursive: true });
    mkdirSync(join(moved, 'bad'), { recursive: true });
    for (const f of ['job.ts', 'fee.ts', 'package.json']) copyFileSync(join(tmp, 'bad', f), join(moved, 'bad', f));
    copyFileSync(join(out, file as string), join(moved, 'out', 'repro.json'));
    const again = await cli('replay', join(moved, 'out', 'repro.json'));
    expect(again.stderr).toBe('');
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('end-to-end-exactly-once');

    // An edit to a local import changes the hash: the repro is refused, not replayed.
    writeFileSync(join(moved, 'bad', 'fee.ts'), 'export function fee(x: number): number { return x * 100 - 2; }\n');
    const edited = await cli('replay', join(moved, 'out', 'repro.json'));
    expect(edited.code).toBe(2);
    expectOneLine(edited.stderr, 'job module changed since this repro was written');

    // Moved without its module: the error says how a repro finds it.
    mkdirSync(join(tmp, 'alone', 'out'), { recursive: true });
    copyFileSync(join(moved, 'out', 'repro.json'), join(tmp, 'alone', 'out', 'repro.json'));
    const alone = await cli('replay', join(tmp, 'alone', 'out', 'repro.json'));
    expect(alone.code).toBe(2);
    expectOneLine(alone.stderr, 'no such file');
    expect(alone.stderr).toContain('a repro names its module relative to its own folder');
  });

  test('Math.random in a user function is the user\'s error: exit 2, naming the module and the function', async () => {
    const job = moduleDir('random', transfersModule({ extra: 'if (Math.random() > 2) return t;' }));
    const r = await cli('explore', '--job', job, '--mode', 'aligned', '--runs', '5', '--seed', '41', '--out', join(tmp, 'out-random'));
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, `job module ${job}: operator 'map-1' (uid fee), map function, called Math.random()`);
  });

  test('Date.now in the build function: exit 2 naming it', async () => {
    const job = moduleDir('date', transfersModule({ head: 'const started = () => Date.now();' }).replace('build(env, splits) {', 'build(env, splits) { started();'));
    const r = await cli('explore', '--job', job, '--mode', 'aligned', '--runs', '2', '--seed', '1', '--out', join(tmp, 'out-date'));
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'build function, called Date.now()');
  });

  test('a job the reference fold cannot judge (timers) is refused with one line saying what to turn off', async () => {
    const job = moduleDir('timers', transfersModule({ keyed: `{
        processElement(t, ctx, out) { out.collect(t); },
        onTimer(ts, ctx, out) {},
      }` }));
    const r = await cli('explore', '--job', job, '--mode', 'aligned', '--runs', '2', '--seed', '1', '--out', join(tmp, 'out-timers'));
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, "operator 'keyedProcess-2' (uid balances) uses timers (onTimer), which the reference fold cannot judge; set judge.state['balances'] = 'off' and judge.output['ledger'] = 'off' to run it unjudged");
  });

  test('a timer operator with its judging turned off runs, and what was not judged is counted, not passed', async () => {
    const source = transfersModule({ keyed: `{
        processElement(t, ctx, out) { out.collect(t); },
        onTimer(ts, ctx, out) {},
      }` }).replace("name: 'transfers',", "name: 'transfers', judge: { state: { balances: 'off' }, output: { ledger: 'off' } },");
    const job = moduleDir('timers-off', source);
    const r = await cli('explore', '--job', job, '--mode', 'aligned', '--runs', '10', '--seed', '3', '--out', join(tmp, 'out-off'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("aligned: a sink's output not judged in 10 run(s): 10 judging-off");
    expect(r.stdout).toMatch(/aligned: final keyed state not judged in \d+ run\(s\): .*judging-off/);
  });

  test.each([
    ['a missing file', (): string => join(tmp, 'nope', 'job.ts'), 'no such file'],
    ['a module that throws while loading', (): string => moduleDir('throws', 'throw new Error("boom at load");\n'), 'failed to load: boom at load'],
    ['a module exporting no job', (): string => moduleDir('nojob', 'export const x = 1;\n'), 'exports no JobDefinition'],
    ['an unknown export', (): string => `${moduleDir('export', transfersModule())}#nope`, "no export 'nope' (its JobDefinition exports: default)"],
    // The error's place, not only "Transform failed with 1 error:" (tsx's esbuild from the CLI,
    // vite's parser under vitest: both put the file, line and column on the following lines).
    ['a module with a syntax error', (): string => moduleDir('syntax', 'export const = 1;\n'), 'failed to load: Transform failed with 1 error: '],
  ])('%s is bad input: exit 2, one line', async (_what, job, message) => {
    const r = await cli('explore', '--job', job(), '--mode', 'aligned', '--runs', '2', '--seed', '1', '--out', join(tmp, 'out-x'));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, message);
    if (message.includes('Transform failed')) expect(r.stderr).toMatch(/Transform failed with 1 error: .*syntax\/job\.ts.*:1:1[34]/);
  });

  test('an unknown job name lists the jobs and says a module path is allowed', async () => {
    const r = await cli('explore', '--job', 'tpch', '--runs', '1');
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, "unknown job 'tpch' (jobs: flights, wordcount, generated, or a path to a job module such as ./job.ts)");
  });
});

describe('run <spec.json> naming a module relative to the spec file', () => {
  test('runs and judges it; a size outside the input\'s range is one line', async () => {
    moduleDir('spec', transfersModule());
    const spec = {
      version: RUN_SPEC_VERSION, seed: 's1', job: { kind: 'module', path: './spec/job.ts', size: 80 }, parallelism: 2,
      checkpoint: { mode: 'aligned', intervalMs: 20 }, faults: [{ type: 'global-failure', when: { atMs: 30 } }],
      healTimeMs: 200, budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
    };
    const file = join(tmp, 'spec.json');
    writeFileSync(file, JSON.stringify(spec));
    const r = await cli('run', file, '--out', join(tmp, 'out-spec'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    writeFileSync(file, JSON.stringify({ ...spec, job: { ...spec.job, size: 301 } }));
    const big = await cli('run', file, '--out', join(tmp, 'out-spec'));
    expect(big.code).toBe(2);
    expectOneLine(big.stderr, 'job.size must be in 1..300');
  });
});

describe('scenario run --file naming a module relative to the scenario file', () => {
  test('runs the module under the scenario\'s steps and judges its expectations', async () => {
    moduleDir('scenario', transfersModule());
    const file = join(tmp, 'transfers.scenario.json');
    writeFileSync(file, JSON.stringify({
      version: RUN_SPEC_VERSION,
      name: 'transfers-global-failure-after-checkpoint-2',
      protects: 'A global failure once checkpoint 2 completes: the ledger commits every transfer once.',
      job: { kind: 'module', path: './scenario/job.ts' },
      steps: [{ at: { kind: 'jobmaster', checkpoint: 2, phase: 'completed' }, do: { type: 'global-failure' } }],
      expect: [{ kind: 'restoredFrom', checkpoint: 2, nth: 1 }, { kind: 'jobStatus', status: 'FINISHED' }],
      promise: 'exactly-once',
    }));
    const r = await cli('scenario', 'run', '--file', file, '--out', join(tmp, 'out-scenario'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('passed');
    expect(r.code).toBe(0);
  });
});
