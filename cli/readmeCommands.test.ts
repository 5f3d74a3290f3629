/**
 * README "The command line": its `replay --seed --path` example names a run that fails, as the
 * comment beside it says (an earlier example named a run that passes, so it showed nothing).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runCli } from './testing/runCli.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const line = readme.split('\n').find((l) => /^npx checkpoint-sim replay --seed /.test(l)) ?? '';

describe('README command-line examples', () => {
  test('the replay --seed --path example regenerates a run that still fails', async () => {
    const args = line.replace(/#.*$/, '').trim().split(/\s+/).slice(2);
    expect(args).toEqual(expect.arrayContaining(['replay', '--seed', '--path', '--mode']));
    const r = await runCli(...args);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the property still fails: end-to-end-exactly-once');
    // Its details as readable lines (the surplus records, the state that differs), not one JSON line.
    expect(r.stdout).toMatch(/\n {2}details:\n {4}expectedCount: \d+\n/);
    expect(r.stdout).toMatch(/\n {4}surplus \(\d+\):\n {6}- id \d+:\d+, value /);
    const json = JSON.parse((await runCli(...args, '--json')).stdout) as { violation: { details: { surplus: unknown[] } } };
    expect(json.violation.details.surplus.length).toBeGreaterThan(0);
  });

  test('the same run judged by its mode\'s own promise holds, and says what judged it', async () => {
    const args = line.replace(/#.*$/, '').trim().split(/\s+/).slice(2).filter((a, i, all) => a !== '--expect' && all[i - 1] !== '--expect');
    const r = await runCli(...args);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no property violated: every oracle judged it against at-least-once, what at-least-once promises (--expect changes it)\n');
    const json = JSON.parse((await runCli(...args, '--json')).stdout) as { expect: string; stillFails: boolean };
    expect(json).toMatchObject({ expect: 'at-least-once', stillFails: false });
  });
});

describe('docs/explain.md', () => {
  const doc = readFileSync(new URL('../docs/explain.md', import.meta.url), 'utf8');
  test('its example explanation is what its example command prints', async () => {
    const command = /```sh\n(npx checkpoint-sim replay [^\n]+)\n```/.exec(doc)?.[1] ?? '';
    const shown = /```text\n(why it failed[\s\S]*?)\n```/.exec(doc)?.[1] ?? '';
    expect(shown.split('\n').length).toBeGreaterThan(4);
    const r = await runCli(...command.split(/\s+/).slice(2));
    expect(r.code).toBe(1);
    const printed = r.stdout.slice(r.stdout.indexOf('why it failed')).trimEnd();
    expect(printed).toBe(shown);
  });
});

describe('README "Writing a job"', () => {
  test('its example restores from a completed checkpoint and its own checks of the output pass', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const start = readme.indexOf('\n## Writing a job\n');
    const block = /\n```ts\n([\s\S]*?)\n```\n/.exec(readme.slice(start))?.[1] ?? '';
    expect(block).toContain('enableCheckpointing');
    const file = join(mkdtempSync(join(tmpdir(), 'readme-job-')), 'job.ts');
    writeFileSync(file, block);
    const logs: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => { logs.push(args.join(' ')); };
    try {
      await import(file); // its asserts throw when the output is not the input counted once
    } finally {
      console.log = log;
    }
    expect(logs.join('\n')).toMatch(/^FINISHED: restored from checkpoint \d+, \d+ records committed exactly once/);
  }, 60_000);
});
