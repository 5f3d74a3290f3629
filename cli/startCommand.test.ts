/**
 * `checkpoint-sim start` (npm start): the per-run rates under explore's table and in
 * summary.json (a time budget gives the modes different run counts, so sums mislead), the note
 * when the counts differ, its comparison written as compare.json and compare.md (listed in the
 * manifest, named in summary.json, the same report the page embeds), and `--out` named in the
 * error when the folder came from it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { CompareReport } from '../properties/compare/CompareReport.ts';
import type { ExploreReport, ModeSummary } from '../properties/explore/explore.ts';
import { compareMarkdown } from '../reports/compareMarkdown.ts';
import type { StartSummary } from '../reports/startPage.ts';
import { printReport } from './commands/exploreCommand.ts';
import { perRunRows } from './commands/startCommand.ts';
import type { Io } from './program.ts';
import { expectOneLine, runCli } from './testing/runCli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-sim-start-cmd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const mode = (m: Partial<ModeSummary>): ModeSummary => ({
  runs: 49, violations: 0, checkpointsCompleted: 490, restores: 30, duplicatesAfterRestore: 0, missingRecords: 0, unfiredFaults: 3, unfiredActions: 0, knownStuck: 0,
  stateUnjudged: 0, stateUnjudgedReasons: {}, marks: {}, ...m,
});

describe('start: per-run rates', () => {
  const modes = { aligned: mode({}), 'at-least-once': mode({ runs: 91, checkpointsCompleted: 901, restores: 55, duplicatesAfterRestore: 14 }) };
  const report: ExploreReport = {
    job: 'flights', seed: 1, strategy: 'mixed', runsPerMode: null, mutants: [], counterexamples: [], fanOut: { runs: 0, violations: 0, unfired: 0, rescaleRuns: 0, rescaleViolations: 0, rescaleUnfired: 0 },
    timing: { wallMs: 60_000 }, modes,
  };
  /** explore's report as start prints it: the per-run rows under the table. */
  const printed = (s: StartSummary): string => {
    let text = '';
    const io: Io = { out: (t) => { text += t; }, err: () => undefined };
    printReport(report, io, perRunRows(s));
    return text;
  };
  const summary = { job: 'flights', seed: 1, strategy: 'mixed', runsPerMode: null, mutants: [], modes, fanOut: report.fanOut, timing: report.timing } as StartSummary;

  test('under explore\'s table, checkpoints, restores and duplicates per run, and a note that the run counts differ', () => {
    const lines = printed(summary).split('\n');
    const header = lines.findIndex((l) => l.startsWith('mode '));
    expect(lines[header + 3]).toMatch(/^per run +runs +checkpoints +restores +duplicates$/);
    expect(lines[header + 4]).toMatch(/^aligned +49 +10 +0\.61 +0$/);
    expect(lines[header + 5]).toMatch(/^at-least-once +91 +9\.9 +0\.6 +0\.15$/);
    expect(lines[header + 6]).toBe('The modes ran different numbers of runs (aligned 49, at-least-once 91): a time budget shares the wall '
      + 'clock and a mode\'s runs take different times, so the sums differ by the run counts as much as by the modes; compare the per-run figures.');
  });

  test('equal run counts: the rates without the note', () => {
    const same = { ...summary, modes: { aligned: mode({}), 'at-least-once': mode({ duplicatesAfterRestore: 7 }) } };
    const text = `${perRunRows(same).join('\n')}\n`;
    expect(text).toMatch(/^per run +runs +checkpoints +restores +duplicates\naligned +49 +10 +0\.61 +0\nat-least-once +49 +10 +0\.61 +0\.14\n$/);
  });
});

describe('start end to end', () => {
  test('summary.json has the per-run rates and names compare.json and compare.md, which it writes and lists; --json prints summary.json', async () => {
    const out = join(tmp, 'json');
    const r = await runCli('start', '--time-budget', '1', '--seed', '1', '--out', out, '--json');
    expect([0, 1]).toContain(r.code);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as StartSummary & { counts: Record<string, string> };
    expect(JSON.parse(r.stdout)).toEqual(summary);
    expect(summary.compare).toEqual({ json: 'compare.json', markdown: 'compare.md', seeds: 10, seed: 1 });
    // A wall-clock budget: on a loaded machine a mode may get no run at all, whose rates are null.
    const rate = (n: number, runs: number): number | null => (runs === 0 ? null : Math.round((n / runs) * 100) / 100);
    for (const [m, x] of Object.entries(summary.modes)) {
      expect(summary.perRun?.[m]).toEqual({
        checkpointsCompleted: rate(x.checkpointsCompleted, x.runs),
        restores: rate(x.restores, x.runs),
        duplicatesAfterRestore: rate(x.duplicatesAfterRestore, x.runs),
      });
    }
    const runs = Object.values(summary.modes).map((x) => x.runs);
    expect(summary.runCountsNote === null).toBe(new Set(runs).size === 1);
    for (const k of ['perRun', 'runCountsNote', 'compare']) expect(summary.counts[k], k).toMatch(/\w+/);
    const manifest = JSON.parse(readFileSync(join(out, 'start-manifest.json'), 'utf8')) as { written: string[] };
    expect(manifest.written).toEqual(expect.arrayContaining(['summary.json', 'index.html', 'compare.json', 'compare.md']));
    const compare = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as CompareReport;
    expect(compare).toMatchObject({ format: 'checkpoint-sim-compare', seeds: 10, seed: 1, modes: ['aligned', 'at-least-once'] });
    expect(readFileSync(join(out, 'compare.md'), 'utf8')).toBe(compareMarkdown(compare));
    // The page's comparison is the one written beside it.
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const data = /<script type="application\/json" id="compare-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(JSON.parse(data)).toEqual(compare);
  });

  test('the printed table has the per-run rows, and the files are named', async () => {
    const out = join(tmp, 'table');
    const r = await runCli('start', '--time-budget', '1', '--seed', '1', '--out', out);
    expect([0, 1]).toContain(r.code);
    expect(r.stdout).toMatch(/\nmode +runs +violations[^\n]*\naligned [^\n]*\nat-least-once [^\n]*\nper run +runs +checkpoints +restores +duplicates\n/);
    expect(r.stdout).toContain(`comparison written to ${join(out, 'compare.json')} and compare.md\n`);
  });

  test('an --out that cannot be made is named as --out', async () => {
    const r = await runCli('start', '--out', '/dev/null/x', '--time-budget', '1');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr, '--out /dev/null/x: /dev/null is not a directory');
  });
});
