/**
 * docs/jobs.md's examples as a reader copies them: the `totals.ts` module of "A job module" passes
 * the very command printed under it, in both modes with restores (its input keeps each account in
 * one split, and it writes order-free values: a first version wrote running totals and failed at
 * run 3, then in at-least-once mode), and the sink of "Sinks" holds as the module's sink.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from './testing/runCli.ts';

const doc = readFileSync(new URL('../docs/jobs.md', import.meta.url), 'utf8');
const blocks = [...doc.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)].map((m) => m[1] ?? '');
const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-jobs-doc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(dir: string, source: string): string {
  mkdirSync(join(tmp, dir), { recursive: true });
  writeFileSync(join(tmp, dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(tmp, dir, 'totals.ts'), source);
  return join(tmp, dir, 'totals.ts');
}

/** `explore --job <file> --mode all --runs <runs> --seed 41` exits 0 with restores in both modes. */
async function exploreClean(file: string, runs: number): Promise<void> {
  const r = await runCli('explore', '--job', file, '--mode', 'all', '--runs', String(runs), '--seed', '41', '--json', '--out', join(tmp, 'out'));
  expect(r.stderr).toBe('');
  expect(r.code, r.stdout.slice(0, 2000)).toBe(0);
  const modes = (JSON.parse(r.stdout) as { modes: Record<string, { runs: number; violations: number; restores: number }> }).modes;
  for (const m of ['aligned', 'at-least-once']) {
    expect(modes[m]).toMatchObject({ runs, violations: 0 });
    expect(modes[m]?.restores).toBeGreaterThan(0);
  }
}

describe('docs/jobs.md', () => {
  const totals = blocks.find((b) => b.startsWith('// totals.ts')) ?? '';
  const sink = blocks.find((b) => b.includes('class BufferingSink')) ?? '';

  test('its totals.ts passes the command printed under it (200 runs per mode, seed 41), with restores', async () => {
    expect(totals).toContain('export default defineJob(');
    expect(doc).toContain('npx checkpoint-sim explore --job ./totals.ts --mode all --runs 200 --seed 41\n');
    await exploreClean(write('totals', totals), 200);
  }, 120_000);

  test('its BufferingSink, as totals.ts\'s sink, explores clean too', async () => {
    expect(sink).toContain("twoPhaseCommitSink('ledger', () => new BufferingSink())");
    const imports = sink.split('\n').filter((l) => l.startsWith('import '));
    const body = sink.split('\n').filter((l) => !l.startsWith('import ') && !l.startsWith('// in build')).join('\n');
    const withSink = totals
      .replace("import { defineJob, splitSource, twoPhaseCommitSink } from 'checkpoint-sim';",
        `import { defineJob, splitSource } from 'checkpoint-sim';\n${imports.join('\n')}\n${body}`)
      .replace(".sinkTo(twoPhaseCommitSink('totals'), { uid: 'totals' })", ".sinkTo(twoPhaseCommitSink('ledger', () => new BufferingSink()), { uid: 'totals' })");
    expect(withSink).toContain('new BufferingSink()');
    await exploreClean(write('buffering', withSink), 60);
  }, 120_000);
});
