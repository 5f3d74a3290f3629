/**
 * Loading job modules: which export is the job, the content hash over the module and its local
 * imports, and, in a real process (the built bin, not vitest's module runner), that a module's
 * `import ... from 'checkpoint-sim'` is this very package instance wherever the module sits (an
 * .mts file in a directory with no package.json or node_modules), and that a .ts file that
 * would load as CommonJS is refused with what to do.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { RUN_SPEC_VERSION } from '../../sim/run/RunSpec.ts';
import { loadJobModule } from './loadJobModule.ts';
import { localImports, moduleContentHash } from './moduleContentHash.ts';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-load-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const root = fileURLToPath(new URL('../..', import.meta.url));
writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');

/** A job that fails its build unless its StreamExecutionEnvironment class is the harness's. */
const SAME_INSTANCE_JOB = (exportLine: string): string => `import { StreamExecutionEnvironment, defineJob, splitSource, twoPhaseCommitSink } from 'checkpoint-sim';
${exportLine} defineJob({
  name: 'same-instance',
  input: [{ id: 0, records: [1, 2, 3] }, { id: 1, records: [4, 5] }],
  build(env, splits) {
    if (!(env instanceof StreamExecutionEnvironment)) throw new Error('checkpoint-sim resolved to another copy of the package');
    env.fromSource(splitSource(splits), { uid: 'src' }).map((x) => x * 2, { uid: 'double' }).sinkTo(twoPhaseCommitSink('out'), { uid: 'out' });
  },
});
`;

function write(rel: string, text: string): string {
  const file = join(tmp, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('loadJobModule', () => {
  test('picks the default export, else the only JobDefinition, else the named one', async () => {
    const def = await loadJobModule(write('a/default.ts', SAME_INSTANCE_JOB('export default')));
    expect(def.exportName).toBe('default');
    const only = await loadJobModule(write('a/only.ts', SAME_INSTANCE_JOB('export const onlyJob =')));
    expect(only.exportName).toBe('onlyJob');
    const two = write('a/two.ts', `${SAME_INSTANCE_JOB('export const one =')}\nexport const other = one;\n`);
    await expect(loadJobModule(two)).rejects.toThrow('exports several JobDefinitions (one, other); name one with #<export>');
    expect((await loadJobModule(two, 'other')).exportName).toBe('other');
  });

  test('the content hash covers local imports (transitively) and not packages', () => {
    write('h/lib/deep.ts', 'export const d = 1;\n');
    write('h/lib/index.ts', "export { d } from './deep.js';\n");
    const main = write('h/main.ts', "import fc from 'fast-check';\nimport { d } from './lib';\nimport './side.ts';\nexport const x = d;\n");
    write('h/side.ts', '');
    expect(localImports("import a from './a.ts'; export * from \"../b\"; import 'node:fs'; const m = import('./c.js');"))
      .toEqual(['./a.ts', '../b', './c.js']);
    const before = moduleContentHash(main);
    expect(moduleContentHash(main)).toBe(before);
    write('h/lib/deep.ts', 'export const d = 2;\n');
    expect(moduleContentHash(main)).not.toBe(before);
  });
});

describe('a job module in a real process (the built bin)', () => {
  const bin = join(root, 'dist', 'cli', 'main.js');
  const spec = (path: string): string => write(`spec-${path.replace(/\W/g, '_')}.json`, JSON.stringify({
    version: RUN_SPEC_VERSION, seed: 's1', job: { kind: 'module', path }, parallelism: 2,
    checkpoint: { mode: 'aligned', intervalMs: 20 }, faults: [], healTimeMs: 100,
    budgets: { maxEvents: 1_000_000, maxTimeMs: 10_000 }, overrides: [], mutations: [],
  }));

  test('an ES module (.mts) outside any project: checkpoint-sim is the bin\'s own package instance', () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpoint-sim-bare-'));
    try {
      writeFileSync(join(dir, 'job.mts'), SAME_INSTANCE_JOB('export default'));
      const out = execFileSync(process.execPath, [bin, 'run', spec(join(dir, 'job.mts')), '--out', join(dir, 'out')], { encoding: 'utf8', cwd: dir });
      expect(out).toContain('holds: no property violated');
      // The same source as .ts with no package.json above it would be CommonJS: refused, saying what to do.
      writeFileSync(join(dir, 'job.ts'), SAME_INSTANCE_JOB('export default'));
      let stderr = '';
      try {
        execFileSync(process.execPath, [bin, 'run', spec(join(dir, 'job.ts')), '--out', join(dir, 'out')], { encoding: 'utf8', cwd: dir, stdio: 'pipe' });
      } catch (e) {
        stderr = String((e as { stderr?: unknown }).stderr);
        expect((e as { status?: unknown }).status).toBe(2);
      }
      expect(stderr).toContain('would load as CommonJS (no package.json with "type": "module" above it); name it .mts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
