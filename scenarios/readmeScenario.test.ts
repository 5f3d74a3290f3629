/**
 * README "Write a scenario": its JSON file runs as the README shows (the same output, the same
 * trace hash), the same file naming checkpoint 90 fails with the README's "step 1 never fired"
 * lines, and its TypeScript form is the same scenario as its JSON form. The TypeScript form also
 * runs as written, as a user's vitest file, in scripts/packed/packedPackage.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../cli/testing/runCli.ts';
import { parseScenario } from './parseScenario.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const start = readme.indexOf('\n## Write a scenario\n');
const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
const blocks = (lang: string): string[] =>
  [...section.matchAll(new RegExp(`\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`\\n`, 'g'))].map((m) => m[1] ?? '');

const dir = mkdtempSync(join(tmpdir(), 'readme-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = runCli;

const json = blocks('json')[0] ?? '';
/** The README's shell block that runs the file: the command, then what it prints. */
const shown = (blocks('sh').find((b) => b.startsWith('$ npx checkpoint-sim scenario run --file')) ?? '').split('\n');

describe('README "Write a scenario"', () => {
  test('shows one JSON scenario, the command that runs it and its output', () => {
    expect(start).toBeGreaterThan(0);
    expect(json).toContain('"version"');
    expect(shown.length).toBeGreaterThan(1);
  });

  test('its JSON file runs as shown: exit 0 and the same lines, trace hash included', async () => {
    const file = join(dir, 'crash-after-ack.json');
    writeFileSync(file, json);
    const r = await cli('scenario', 'run', '--file', file, '--out', join(dir, 'out'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${shown.slice(1).join('\n')}\n`);
  });

  test('naming checkpoint 90 instead of 3, it fails with the lines the README shows: step 1 never fired', async () => {
    const file = join(dir, 'crash-after-ack-90.json');
    const edited = json.replace('"checkpoint": 3, "phase": "acked"', '"checkpoint": 90, "phase": "acked"');
    expect(edited).not.toBe(json);
    writeFileSync(file, edited);
    const r = await cli('scenario', 'run', '--file', file, '--out', join(dir, 'out'));
    expect(r.code).toBe(1);
    const text = blocks('text').find((b) => b.includes('never fired')) ?? '';
    expect(text).toContain('step 1 never fired');
    expect(r.stdout.startsWith(`${text}\n`)).toBe(true);
    expect(r.stdout).toMatch(/replay: npx checkpoint-sim replay \S+repro-scenario-crash-after-sink-ack-then-lost-notification\.json/);
  });

  test('its TypeScript form is the same scenario as its JSON form', () => {
    const ts = blocks('ts')[0] ?? '';
    const file = parseScenario(JSON.parse(json), 'file');
    // The TypeScript form's steps and expectations, read from its text (the packed test runs it).
    expect(ts).toContain(`name: '${file.name}'`);
    expect(ts).toContain("{ at: checkpoint(3).ackSentBy('v1#0'), do: crash('taskmanager-1') }");
    expect(ts).toContain("{ at: restore(1), do: lose('confirmCheckpoint').to('v1#0') }");
    for (const e of ["checkpointAborted(3, 'CHECKPOINT_COORDINATOR_SUSPEND')", 'restoredFrom(2)',
      "markReached('notify-complete-skipped')", "jobStatus('FINISHED')", "promise: 'exactly-once'"]) {
      expect(ts).toContain(e);
    }
    expect(file.steps).toHaveLength(2);
    expect(file.expect).toHaveLength(4);
  });
});
