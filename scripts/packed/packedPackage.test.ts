/**
 * checkpoint-sim as its users get it: `npm pack`ed, installed into a project of its own under the
 * OS temp folder (with vitest, from the npm cache), imported as 'checkpoint-sim' from a vitest
 * file there, and type-checked there. What this proves and in-repo tests cannot: the `exports`
 * and `files` of package.json, declarations that resolve for a consumer, the flights data found
 * in an installed vega-datasets, and the compiled build behaving as the sources do.
 *
 * Slow by nature (a build, an install, a second vitest): about 20 s on two cores, most of it the
 * build, which packTarball.ts caches across runs with unchanged inputs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { simulate } from '../../sim/run/simulate.ts';
import { consumerProject, vitestResults, type ConsumerProject } from './consumerProject.ts';
import { packTarball, type PackedTarball } from './packTarball.ts';
import { CONSUMER_SPEC, CONSUMER_TESTS, FAILING_REPRO, consumerFiles } from './consumerFiles.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

let packed: PackedTarball;
let project: ConsumerProject | undefined;

beforeAll(async () => {
  packed = await packTarball(root);
  project = await consumerProject({ repoRoot: root, packed, tools: ['vitest', '@types/node'] });
  project.write(consumerFiles(readFileSync(join(root, 'README.md'), 'utf8')));
}, 300_000);

afterAll(() => project?.remove());

function consumer(): ConsumerProject {
  if (project === undefined) throw new Error('the consumer project was not made (see beforeAll)');
  return project;
}

describe('the packed package', () => {
  test('ships the build with its declarations, the docs and README, and no tests, coverage, CI or reports', () => {
    const { files } = packed;
    for (const f of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'docs/runspec.md']) {
      expect(files).toContain(f);
    }
    // docs/ and schemas/ go as they are, every file.
    for (const dir of ['docs', 'schemas']) {
      const here = existsSync(join(root, dir)) ? readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) : [];
      for (const f of here.filter((f) => statSync(join(root, dir, f)).isFile())) expect(files).toContain(`${dir}/${f}`);
    }
    const stray = files.filter((f) => !/^(dist|docs|schemas)\//.test(f) && !['package.json', 'README.md', 'LICENSE'].includes(f));
    expect(stray).toEqual([]);
    expect(files.filter((f) => /\.test\.|(^|\/)testing\/|^coverage\/|^\.ci\/|^reports\/out\//.test(f))).toEqual([]);
    // Every module of the build has its declarations beside it.
    const js = files.filter((f) => f.endsWith('.js'));
    expect(js.filter((f) => !files.includes(f.replace(/\.js$/, '.d.ts')))).toEqual([]);
  });

  test("a user's vitest files import it as 'checkpoint-sim': simulate, judgeRun, a job on a MiniCluster, scenarios passing and failing", async () => {
    const p = consumer();
    const run = await p.node([
      'node_modules/vitest/vitest.mjs', 'run', '--root', p.dir,
      '--reporter=default', '--reporter=json', '--outputFile.json=report.json',
    ]);
    const results = vitestResults(join(p.dir, 'report.json'), run, expect.fail);
    const outcome = Object.fromEntries(results.map((r) => [r.title, r.status]));
    expect(outcome, `${run.stdout}\n${run.stderr}`).toEqual(
      Object.fromEntries(Object.entries(CONSUMER_TESTS).map(([title, t]) => [title, t.status])),
    );
    for (const r of results) {
      const wanted = CONSUMER_TESTS[r.title]?.failureMessage ?? [];
      for (const pattern of wanted) expect(r.failureMessages.join('\n')).toMatch(pattern);
    }
    const anyFails = Object.values(CONSUMER_TESTS).some((t) => t.status === 'failed');
    expect(run.code, run.stderr).toBe(anyFails ? 1 : 0);
    // The replay command a failed scenario prints runs there too, and the scenario still fails.
    const replay = await p.node(['node_modules/checkpoint-sim/dist/cli/main.js', 'replay', FAILING_REPRO]);
    expect(replay.stdout, replay.stderr).toMatch(/restoredFrom\(3\)/);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    // The compiled package runs the very run the sources do.
    const hash = readFileSync(join(p.dir, 'out/trace-hash.txt'), 'utf8');
    expect(hash).toBe(simulate(CONSUMER_SPEC).traceHash);
  });

  // Concurrent: a few seconds apiece (consumerFiles.ts says what each checks).
  test.concurrent.each(['bundler', 'node16'])("its declarations type-check a consumer under moduleResolution '%s'", async (resolution) => {
    const p = consumer();
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const check = await p.node([tsc, '-p', `tsconfig.${resolution}.json`]);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.code).toBe(0);
  });

  test('its command line runs from the consumer', async () => {
    const p = consumer();
    expect(existsSync(join(p.dir, 'node_modules/.bin/checkpoint-sim'))).toBe(true);
    const cli = await p.node(['node_modules/checkpoint-sim/dist/cli/main.js', '--version']);
    expect(cli).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});
