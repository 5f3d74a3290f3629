/**
 * docs/jobs.md's examples as a reader copies them: the `totals.ts` module of "A job module" explores
 * clean in both modes with restores (its input keeps each account in one split, so its running
 * totals are what the reference fold computes), and the sink of "Sinks" compiles and holds as the
 * module's sink.
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

/** The runs per mode and restores of `explore --job <file> --mode all --runs 30 --seed 41`. */
async function exploreClean(file: string): Promise<void> {
  const r = await runCli('explore', '--job', file, '--mode', 'all', '--runs', '30', '--seed', '41', '--json', '--out', join(tmp, 'out'));
  expect(r.stderr).toBe('');
  expect(r.code, r.stdout.slice(0, 2000)).toBe(0);
  const modes = (JSON.parse(r.stdout) as { modes: Record<string, { runs: number; violations: number; restores: number }> }).modes;
  for (const m of ['aligned', 'at-least-once']) {
    expect(modes[m]).toMatchObject({ runs: 30, violations: 0 });
    expect(modes[m]?.restores).toBeGreaterThan(0);
  }
}

describe('docs/jobs.md', () => {
  const totals = blocks.find((b) => b.startsWith('// totals.ts')) ?? '';
  const sink = blocks.find((b) => b.includes('class BufferingSink')) ?? '';

  test('its totals.ts explores clean in both modes, with restores', async () => {
    expect(totals).toContain('export default defineJob(');
    await exploreClean(write('totals', totals));
  });

  test('its BufferingSink, as totals.ts\'s sink, explores clean too', async () => {
    expect(sink).toContain("twoPhaseCommitSink('ledger', () => new BufferingSink())");
    const imports = sink.split('\n').filter((l) => l.startsWith('import '));
    const body = sink.split('\n').filter((l) => !l.startsWith('import ') && !l.startsWith('// in build')).join('\n');
    const withSink = totals
      .replace("import { defineJob, splitSource, twoPhaseCommitSink } from 'checkpoint-sim';",
        `import { defineJob, splitSource } from 'checkpoint-sim';\n${imports.join('\n')}\n${body}`)
      .replace(".sinkTo(twoPhaseCommitSink('totals'), { uid: 'totals' })", ".sinkTo(twoPhaseCommitSink('ledger', () => new BufferingSink()), { uid: 'totals' })");
    expect(withSink).toContain('new BufferingSink()');
    await exploreClean(write('buffering', withSink));
  });
});
