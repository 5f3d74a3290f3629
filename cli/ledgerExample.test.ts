/**
 * examples/ledger.ts through the command line: the correct job explores clean in both modes with
 * restores; the sink that commits at snapshot time (commitsInSnapshotJob) is caught by
 * end-to-end-exactly-once with a shrunk repro, and the repro replays after examples and repro
 * moved together to another directory. (The full-size run, 200 runs per mode at seed 41,
 * is in `npm run acceptance`.)
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runCli as cli } from './testing/runCli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-ledger-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
// A copy of examples/ in tmp, so that moving it and the repro moves the module the repro names.
const examples = join(tmp, 'orig', 'examples');
cpSync(resolve(import.meta.dirname, '..', 'examples'), examples, { recursive: true });

test('the correct ledger: exit 0 in both modes, with restores', async () => {
  const r = await cli('explore', '--job', join(examples, 'ledger.ts'), '--mode', 'all', '--runs', '25', '--seed', '41', '--json', '--out', join(tmp, 'out-good'));
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const modes = (JSON.parse(r.stdout) as { modes: Record<string, { runs: number; violations: number; restores: number }> }).modes;
  for (const m of ['aligned', 'at-least-once']) {
    expect(modes[m]).toMatchObject({ runs: 25, violations: 0 });
    expect(modes[m]?.restores).toBeGreaterThan(0);
  }
});

test('commitsInSnapshotJob: exit 1, end-to-end-exactly-once, a shrunk repro that replays after moving', async () => {
  const out = join(tmp, 'orig', 'out');
  const r = await cli('explore', '--job', join(examples, 'ledger.ts#commitsInSnapshotJob'), '--mode', 'aligned', '--runs', '20', '--seed', '41', '--out', out);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain('VIOLATION in mode aligned: end-to-end-exactly-once');
  const file = readdirSync(out).find((f) => f.startsWith('repro-ledger-commitsInSnapshotJob-aligned-41'));
  expect(file).toBeDefined();
  const repro = JSON.parse(readFileSync(join(out, file as string), 'utf8')) as { stage: string; spec: { job: { path: string; export?: string } } };
  expect(repro.stage).toBe('shrunk');
  expect(repro.spec.job).toMatchObject({ path: '../examples/ledger.ts', export: 'commitsInSnapshotJob' });
  // Keep the repro's relative path to the module: move both under one new root.
  const moved = join(tmp, 'moved');
  const movedOut = join(moved, 'out');
  mkdirSync(movedOut, { recursive: true });
  cpSync(examples, join(moved, 'examples'), { recursive: true });
  cpSync(join(out, file as string), join(movedOut, 'repro.json'));
  rmSync(join(tmp, 'orig'), { recursive: true, force: true }); // the replay cannot read the original
  const again = await cli('replay', join(movedOut, 'repro.json'));
  expect(again.stderr).toBe('');
  expect(again.code).toBe(1);
  expect(again.stdout).toContain('end-to-end-exactly-once');
}, 60_000);
