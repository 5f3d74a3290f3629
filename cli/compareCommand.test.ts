/**
 * `checkpoint-sim compare`: a small comparison end to end (three files, --json prints
 * compare.json, the same seed gives byte-identical files, compare.md says what compare.json
 * says), progress off a terminal, the help, exit codes 0 / 2 / 3, and bad input as one line.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { CompareReport } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { HarnessError } from '../properties/explore/explore.ts';
import { formatMetricCell, formatPaired } from '../reports/compareMarkdown.ts';
import { simulate } from '../sim/run/simulate.ts';
import { parseCompareFlags, PROGRESS_LINE_EVERY_MS, runCompare } from './commands/compareCommand.ts';
import type { Io } from './program.ts';
import { expectOneLine, runCli as cli } from './testing/runCli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const SMALL = ['--seeds', '3', '--max-records', '60'];

describe('compare, end to end', () => {
  test('writes compare.json, compare.md and index.html; --json prints compare.json; the same seed, the same bytes', async () => {
    const a = join(tmp, 'a');
    const b = join(tmp, 'b');
    const r = await cli('compare', ...SMALL, '--out', a);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^compare: 6 runs in [\d.]+ s \([\d.]+ runs\/s\); wrote compare\.json, compare\.md and index\.html into /m);
    const json = readFileSync(join(a, 'compare.json'), 'utf8');
    const md = readFileSync(join(a, 'compare.md'), 'utf8');
    expect(r.stdout).toBe(md);
    const report = JSON.parse(json) as CompareReport;
    expect(report).toMatchObject({ format: 'checkpoint-sim-compare', job: 'flights', seed: 1, seeds: 3, modes: ['aligned', 'at-least-once'] });
    expect(report.runs).toHaveLength(6);
    expect(json).toBe(`${JSON.stringify(report, null, 2)}\n`);

    const again = await cli('compare', ...SMALL, '--out', b, '--json');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(json);
    expect(readFileSync(join(b, 'compare.json'), 'utf8')).toBe(json);
    expect(readFileSync(join(b, 'compare.md'), 'utf8')).toBe(md);
    expect(readFileSync(join(b, 'index.html'), 'utf8')).toBe(readFileSync(join(a, 'index.html'), 'utf8'));

    // The page embeds the report.
    const html = readFileSync(join(a, 'index.html'), 'utf8');
    const data = /<script type="application\/json" id="compare-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(JSON.parse(data)).toEqual(report);

    // compare.md: every metric's label and each mode's cell made from compare.json (a sum or median [p25–p75]).
    for (const m of COMPARE_METRICS) {
      const row = md.split('\n').find((l) => l.startsWith(`| ${m.label} (`)) ?? '';
      expect(row).not.toBe('');
      for (const mode of report.modes) {
        const d = report.byMode[mode]?.distributions[m.key];
        if (d === undefined) throw new Error(`no ${m.key} for ${mode}`);
        expect(row).toContain(`| ${formatMetricCell(d, m)} `);
      }
    }

    // The paired table: each cost metric's row is compare.json's paired figure.
    const paired = report.paired[0];
    expect(paired?.baseline).toBe('aligned');
    for (const m of COMPARE_METRICS.filter((x) => x.kind === 'cost')) {
      const d = paired?.metrics[m.key as keyof NonNullable<typeof paired>['metrics']];
      if (d === undefined) throw new Error(`no paired ${m.key}`);
      expect(md).toContain(`\n| ${m.label} (${m.unit}, ${m.better} is better) | ${formatPaired(d, m.unit)} |\n`);
    }

    const other = await cli('compare', ...SMALL, '--seed', '2', '--out', join(tmp, 'c'), '--json');
    expect(other.stdout).not.toBe(json);
  });

  test('off a terminal progress is a line every few seconds, and the last one', () => {
    const progressLines = (stepMs: number): string[] => {
      let now = 0;
      const err: string[] = [];
      const io: Io = { out: () => undefined, err: (t) => err.push(t) };
      const s = parseCompareFlags({ seeds: '2', maxRecords: '50', modes: 'aligned', out: join(tmp, 'progress') });
      expect(runCompare(s, io, 'test', false, { clock: () => (now += stepMs) }).code).toBe(0);
      return err.filter((l) => l.startsWith('compare: ') && l.includes('/2 runs'));
    };
    // Every clock read a progress interval on: a line per run.
    const slow = progressLines(PROGRESS_LINE_EVERY_MS + 1);
    expect(slow.map((l) => l.replace(/, [\d.]+ runs\/s\n$/, ''))).toEqual(['compare: 1/2 runs', 'compare: 2/2 runs']);
    expect(slow[0]).toMatch(/^compare: 1\/2 runs, [\d.]+ runs\/s\n$/);
    // Fast runs: only the last line.
    expect(progressLines(1).map((l) => l.replace(/, [\d.]+ runs\/s\n$/, ''))).toEqual(['compare: 2/2 runs']);
  });

  test('a harness failure exits 3 with its message; files are not written', () => {
    const err: string[] = [];
    const out = join(tmp, 'harness');
    const s = parseCompareFlags({ seeds: '1', maxRecords: '50', out });
    const r = runCompare(s, { out: () => undefined, err: (t) => err.push(t) }, 'test', false, {
      simulate: () => {
        throw new HarnessError('broken on purpose');
      },
    });
    expect(r.code).toBe(3);
    expect(err.join('')).toContain('checkpoint-sim: harness failure: broken on purpose\n');
    expect(existsSync(join(out, 'compare.json'))).toBe(false);
  });

  test('anything else simulate throws is an internal error, exit 3', async () => {
    const s = parseCompareFlags({ seeds: '1', maxRecords: '50', out: join(tmp, 'internal') });
    expect(() => runCompare(s, { out: () => undefined, err: () => undefined }, 'test', false, {
      simulate: (spec) => {
        if (spec.checkpoint.mode === 'at-least-once') throw new Error('boom');
        return simulate(spec);
      },
    })).toThrow('boom');
    // The program maps such an error to exit code 3 (reportError).
    const { reportError } = await import('./program.ts');
    expect(reportError(new Error('boom'), { out: () => undefined, err: () => undefined })).toBe(3);
  });
});

describe('compare --help and bad input', () => {
  test('the help has examples and the exit codes', async () => {
    const r = await cli('compare', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:\n  npx checkpoint-sim compare');
    expect(r.stdout).toMatch(/Exit codes:\n {2}0 {2}the comparison was made[^\n]*\n {2}2 {2}bad usage[^\n]*\n {2}3 {2}the harness broke/);
    for (const flag of ['--job', '--modes', '--seeds', '--seed', '--out', '--json', '--max-records', '--max-parallelism']) {
      expect(r.stdout).toContain(flag);
    }
  });

  const file = join(tmp, 'a-file');
  writeFileSync(file, '');
  test.each([
    [['--job', 'nope'], "unknown job 'nope'"],
    [['--modes', 'aligned,nope'], "unknown mode 'nope'"],
    [['--modes', 'aligned,aligned'], '--modes names aligned twice'],
    [['--modes', 'unaligned'], 'mode unaligned is not available yet'],
    [['--seeds', '0'], "--seeds must be a positive integer, got '0'"],
    [['--seeds', 'ten'], "--seeds must be a positive integer, got 'ten'"],
    [['--seeds', '1.5'], "--seeds must be a positive integer, got '1.5'"],
    [['--seeds', '10001'], '--seeds must be at most 10000'],
    [['--seed', 'x'], "--seed must be an integer, got 'x'"],
    [['--job', 'wordcount', '--max-records', '10'], '--max-records does not apply to the wordcount job'],
    [['--max-parallelism', '999'], '--max-parallelism must be at most'],
    // The folder is named, not the first file written into it.
    [['--out', join(file, 'sub')], `--out ${join(file, 'sub')}: ${file} is not a directory`],
    [['--out', '/proc/compare-nope'], '--out /proc/compare-nope: cannot create directory /proc/compare-nope'],
    [['--out', '/dev/null/x'], '--out /dev/null/x: /dev/null is not a directory'],
  ])('%j: one line, exit 2, before any run', async (args, contains) => {
    const r = await cli('compare', ...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, contains);
  });
});
