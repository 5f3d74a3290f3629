/**
 * The examples/ folder as a user gets it: its files copied into a project of its own under the
 * OS temp folder, with checkpoint-sim installed from the packed tarball (packTarball.ts) and vitest
 * from the npm cache. There the example's own test file runs (the library `explore` on the ledger
 * job and on its planted bug), the example type-checks against the published declarations, and
 * the installed command line explores the job module, catches the planted bug, and replays the
 * repro from another folder.
 *
 * Slow by nature (an install and a second vitest beside the first): about a minute on two cores.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consumerProject, vitestResults, type ConsumerProject } from './consumerProject.ts';
import { packTarball } from './packTarball.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const examples = join(root, 'examples');

/** The example files a user copies (everything but package.json, which the project has of its own). */
function exampleFiles(): Record<string, string> {
  return Object.fromEntries(readdirSync(examples)
    .filter((f) => f !== 'package.json' && f !== 'node_modules' && statSync(join(examples, f)).isFile())
    .map((f) => [f, readFileSync(join(examples, f), 'utf8')]));
}

let project: ConsumerProject | undefined;

beforeAll(async () => {
  const packed = await packTarball(root);
  project = await consumerProject({ repoRoot: root, packed, tools: ['vitest', '@types/node'] });
  project.write({
    ...exampleFiles(),
    'tsconfig.json': `${JSON.stringify({
      compilerOptions: {
        target: 'ES2022', lib: ['ES2022'], module: 'preserve', moduleResolution: 'bundler', types: ['node'],
        strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true,
      },
      include: ['*.ts'],
    }, null, 2)}\n`,
  });
}, 300_000);

afterAll(() => project?.remove());

function consumer(): ConsumerProject {
  if (project === undefined) throw new Error('the examples project was not made (see beforeAll)');
  return project;
}

const cli = (...args: string[]) => consumer().node(['node_modules/checkpoint-sim/dist/cli/main.js', ...args], 300_000);

describe('examples/, installed as a user would', () => {
  test('its test file passes: the ledger job keeps its promise, its planted bug is caught', async () => {
    const p = consumer();
    const run = await p.node(['node_modules/vitest/vitest.mjs', 'run', '--root', p.dir, '--reporter=json', '--outputFile.json=report.json'], 600_000);
    const results = vitestResults(join(p.dir, 'report.json'), run, expect.fail);
    expect(results.map((r) => [r.title, r.status, r.failureMessages.join('\n').slice(0, 2000)])).toEqual([
      ['keeps its promise in every mode, across restores', 'passed', ''],
      ['a sink that commits in snapshotState is caught, with a repro to replay', 'passed', ''],
    ]);
    expect(run.code, run.stderr).toBe(0);
    // The failure the second test expected left its repro where the library said.
    expect(existsSync(join(p.dir, 'reports/out/repro-ledger-commitsInSnapshotJob-aligned-41.json'))).toBe(true);
  }, 600_000);

  test('it type-checks against the published declarations', async () => {
    const check = await consumer().node([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
    expect(check.stdout + check.stderr).toBe('');
    expect(check.code).toBe(0);
  }, 120_000);

  test('the installed command line explores the module, catches its planted bug, and the repro replays from another folder', async () => {
    const good = await cli('explore', '--job', './ledger.ts', '--mode', 'all', '--runs', '20', '--seed', '41', '--json', '--out', 'out-cli');
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    const modes = (JSON.parse(good.stdout) as { modes: Record<string, { runs: number; restores: number }> }).modes;
    expect(Object.keys(modes)).toEqual(['aligned', 'at-least-once']);
    for (const m of Object.values(modes)) expect(m.restores).toBeGreaterThan(0);

    const bad = await cli('explore', '--job', './ledger.ts#commitsInSnapshotJob', '--mode', 'aligned', '--runs', '100', '--seed', '41', '--json', '--out', 'out-cli');
    expect(bad.code, bad.stderr).toBe(1);
    const [c] = (JSON.parse(bad.stdout) as { counterexamples: Array<{ property: string; repro: string }> }).counterexamples;
    expect(c?.property).toBe('end-to-end-exactly-once');
    // Moved with its module (same relative layout), the repro replays from a folder of its own.
    const elsewhere = mkdtempSync(join(tmpdir(), 'checkpoint-sim-moved-'));
    try {
      cpSync(join(consumer().dir, 'ledger.ts'), join(elsewhere, 'ledger.ts'));
      cpSync(join(consumer().dir, 'package.json'), join(elsewhere, 'package.json'));
      cpSync(resolve(consumer().dir, c?.repro ?? ''), join(elsewhere, 'out-cli', 'repro.json'));
      const replay = await consumer().node([join(consumer().dir, 'node_modules/checkpoint-sim/dist/cli/main.js'), 'replay', join(elsewhere, 'out-cli', 'repro.json')]);
      expect(replay.stdout, replay.stderr).toMatch(/end-to-end-exactly-once/);
      expect(replay.code).toBe(1);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 600_000);
});
