import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { regenerateSpec } from '../properties/explore/replay.ts';
import { ORACLE_NAMES } from '../properties/oracles/judgeRun.ts';
import { validateChromeTrace } from '../reports/testing/validateChromeTrace.ts';
import { simulate } from '../sim/run/simulate.ts';
import { expectOneLine, runCli } from './testing/runCli.ts';

// Issue 14: `replay ... --trace out.json` writes the run as a Chrome trace for Perfetto.
const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-trace-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const seedPath = ['replay', '--seed', '3', '--path', '0', '--mode', 'aligned', '--max-records', '40'] as const;
const WROTE = /^wrote (.+) \((\d+) events\): open it in https:\/\/ui\.perfetto\.dev$/;

const readTrace = (file: string): { traceEvents: unknown[]; otherData: Record<string, unknown> } =>
  JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: unknown[]; otherData: Record<string, unknown> };

describe('replay --seed --path --trace', () => {
  test('writes a valid trace of the very run (making its directories) and says so in one line after the usual output', async () => {
    const plain = await runCli(...seedPath);
    const file = join(tmp, 'a', 'b', 'run.json');
    const r = await runCli(...seedPath, '--trace', file);
    expect(r.code).toBe(plain.code);
    const lines = r.stdout.trimEnd().split('\n');
    const last = lines.pop() ?? '';
    // Everything else is what replay prints without --trace: the same run, judged the same.
    expect(`${lines.join('\n')}\n`).toBe(plain.stdout);
    const [, path, count] = WROTE.exec(last) ?? [];
    expect(path).toBe(file);
    const trace = readTrace(file);
    expect(trace.traceEvents).toHaveLength(Number(count));
    expect(validateChromeTrace(trace)).toEqual([]);
    const hash = /^trace hash ([0-9a-f]{16})/m.exec(r.stdout)?.[1];
    expect(trace.otherData).toMatchObject({ seed: 3, path: '0', mode: 'aligned', job: 'flights', traceHash: hash });
  });

  test('with --json, stdout stays one JSON object and the line goes to stderr', async () => {
    const file = join(tmp, 'json.json');
    const r = await runCli(...seedPath, '--json', '--trace', file);
    const out = JSON.parse(r.stdout) as { traceHash: string };
    expect(r.stderr.trimEnd()).toMatch(WROTE);
    expect(readTrace(file).otherData['traceHash']).toBe(out.traceHash);
  });

  test('an unwritable path is one line and exit 2, before anything runs', async () => {
    const aFile = join(tmp, 'a-file');
    writeFileSync(aFile, 'x');
    for (const [path, reason] of [
      ['/proc/nope/run.json', 'cannot create directory /proc/nope'],
      [tmp, 'is a directory'],
      [join(aFile, 'x.json'), 'is not a directory'],
    ] as const) {
      const r = await runCli(...seedPath, '--trace', path);
      expect(r.code, path).toBe(2);
      expect(r.stdout).toBe('');
      expectOneLine(r.stderr, `--trace ${path}: `);
      expect(r.stderr).toContain(reason);
    }
  });
});

describe('replay <repro> --trace', () => {
  test('writes the trace of the repro run, with the same hash replay prints', async () => {
    const spec = regenerateSpec({ job: 'flights', mode: 'aligned', strategy: 'swarm', mutants: [], seed: 3, path: '0', maxRecords: 40 }).spec;
    const traceHash = simulate(spec).traceHash;
    const repro = join(tmp, 'repro.json');
    writeFileSync(repro, JSON.stringify({
      format: 'checkpoint-sim-repro', formatVersion: 1, checkpointSimVersion: 'test', property: ORACLE_NAMES[0],
      expect: 'exactly-once', summary: 'written by a test', traceHash, stage: 'shrunk', spec,
    }));
    const file = join(tmp, 'repro-trace.json');
    const r = await runCli('replay', repro, '--trace', file);
    expect(r.stdout).toContain(`trace hash ${traceHash} (same as recorded)\n`);
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(WROTE);
    const trace = readTrace(file);
    expect(validateChromeTrace(trace)).toEqual([]);
    expect(trace.otherData).toMatchObject({ seed: spec.seed, mode: 'aligned', job: 'flights', traceHash });
  });
});
