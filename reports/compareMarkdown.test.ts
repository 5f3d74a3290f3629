/**
 * compare.md from a real small comparison: every metric of COMPARE_METRICS has its row, each
 * cost cell is the mode's median [p25–p75] of compare.json and each correctness cell its sum and
 * the runs it occurred in, runs without a value are counted, each mode's promise is said, and the
 * faults that never fired and the violations are listed per mode.
 */
import { describe, expect, test } from 'vitest';
import type { CompareReport, Distribution } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { compareModes } from '../properties/compare/compareModes.ts';
import { defaultJudge } from '../properties/explore/defaultJudge.ts';
import { simulate } from '../sim/run/simulate.ts';
import { MODE_PROMISES } from '../properties/compare/modePromises.ts';
import { compareMarkdown, formatCount, formatDistribution, formatMetricValue } from './compareMarkdown.ts';

const report = compareModes({
  job: 'flights', modes: ['aligned', 'at-least-once'], seeds: 3, seed: 7, maxRecords: 120,
  simulate: (s) => simulate(s), judge: defaultJudge, version: 'test',
});

/** The cells of the table row whose first cell starts with `label`. */
function rowOf(md: string, label: string): string[] {
  const line = md.split('\n').find((l) => l.startsWith(`| ${label} (`) || l.startsWith(`| ${label} |`));
  if (line === undefined) throw new Error(`no row ${label}`);
  return line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()).slice(1);
}

/** median, p25, p75 read back from a cell `m [a–b]`. */
function parseCell(c: string): [number, number, number] | null {
  const m = /^(-?[\d.]+) \[(-?[\d.]+)–(-?[\d.]+)\]/.exec(c);
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])];
}

describe('compareMarkdown', () => {
  const md = compareMarkdown(report);

  test('a column per mode and the counts per mode', () => {
    expect(md).toContain('| | aligned | at-least-once |');
    expect(rowOf(md, 'judged against')).toEqual(['exactly-once', 'at-least-once']);
    expect(rowOf(md, 'runs')).toEqual(['3', '3']);
    expect(rowOf(md, 'runs with violations')).toEqual(report.modes.map((m) => String(report.byMode[m]?.violations)));
    expect(rowOf(md, 'faults that never fired')).toEqual(report.modes.map((m) => String(report.byMode[m]?.unfiredFaults)));
  });

  test('each correctness row is compare.json\'s sum over the runs, with the runs it occurred in', () => {
    const correctness = COMPARE_METRICS.filter((m) => m.kind === 'correctness');
    expect(correctness.map((m) => m.key)).toEqual(['recordsLost', 'duplicates']);
    for (const metric of correctness) {
      expect(md).toContain(`| ${metric.label} (${metric.unit}, summed) |`);
      const cells = rowOf(md, metric.label);
      report.modes.forEach((mode, i) => {
        const runs = report.runs.filter((r) => r.mode === mode);
        const sum = runs.reduce((a, r) => a + (r.metrics[metric.key] ?? 0), 0);
        const hit = runs.filter((r) => (r.metrics[metric.key] ?? 0) > 0).length;
        expect(cells[i]).toBe(sum === 0 ? '0' : `${sum} (in ${hit} of ${runs.length} runs, at most `
          + `${Math.max(...runs.map((r) => (r.metrics[metric.key] ?? 0)))} in one)`);
      });
    }
  });

  test('what each mode promises, in words', () => {
    for (const mode of report.modes) expect(md).toContain(`- ${mode}: ${MODE_PROMISES[mode]}\n`);
    expect(MODE_PROMISES['at-least-once']).toContain('Flink still reports alignment duration in this mode');
  });

  test('every cost metric has its row with its unit, and each cell is compare.json\'s median [p25–p75]', () => {
    let compared = 0;
    for (const metric of COMPARE_METRICS.filter((m) => m.kind === 'cost')) {
      expect(md).toContain(`| ${metric.label} (${metric.unit}, ${metric.better} is better) |`);
      const cells = rowOf(md, metric.label);
      report.modes.forEach((mode, i) => {
        const d = report.byMode[mode]?.distributions[metric.key] as Distribution;
        const parsed = parseCell(cells[i] ?? '');
        if (d.median === null) {
          expect(cells[i]).toBe('n/a (no run has a value)');
          return;
        }
        const tolerance = metric.unit === 'ms' ? 0.0005 : metric.unit === 'records/s' ? 0.05 : 0.5;
        expect(parsed).not.toBeNull();
        const [median, p25, p75] = parsed ?? [NaN, NaN, NaN];
        expect(Math.abs(median - d.median)).toBeLessThanOrEqual(tolerance);
        expect(Math.abs(p25 - (d.p25 ?? NaN))).toBeLessThanOrEqual(tolerance);
        expect(Math.abs(p75 - (d.p75 ?? NaN))).toBeLessThanOrEqual(tolerance);
        compared++;
      });
    }
    expect(compared).toBeGreaterThanOrEqual(2 * 7);
  });

  test('per mode, the faults that never fired, one nested line per seed index', () => {
    const lines = md.split('\n');
    const from = lines.findIndex((l) => l.startsWith('Faults that never fired'));
    let checked = 0;
    for (const mode of report.modes) {
      const at = lines.findIndex((l, i) => i > from && l.startsWith(`- ${mode}: `));
      const runs = report.runs.filter((r) => r.mode === mode && r.unfiredFaults.length > 0);
      expect(lines[at]).toBe(`- ${mode}: ${runs.length === 0 ? 'none' : `${runs.length} run${runs.length === 1 ? '' : 's'}`}`);
      runs.forEach((r, k) => {
        const line = lines[at + 1 + k] ?? '';
        expect(line.startsWith(`  - seed index ${r.seedIndex}: `)).toBe(true);
        r.unfiredFaultTexts.forEach((t, j) => expect(line).toContain(`#${r.unfiredFaults[j]} ${t}`));
        checked++;
      });
    }
    expect(checked).toBe(report.runs.filter((r) => r.unfiredFaults.length > 0).length);
  });

  test('violations are listed, pipes escaped so the table and list stay intact', () => {
    const [first, ...rest] = report.runs;
    if (first === undefined) throw new Error('no run');
    const doctored: CompareReport = {
      ...report,
      runs: [{ ...first, violations: [{ property: 'at-least-once', summary: 'a | b\nc' }] }, ...rest],
    };
    expect(compareMarkdown(doctored)).toContain(`- ${first.mode}, seed index 0 (${first.runSeed}): at-least-once: a \\| b c\n`);
    if (report.runs.every((r) => r.violations.length === 0)) expect(md).not.toContain('Violations');
  });
});

describe('formatCount', () => {
  const d = (values: number[], missing = 0): Distribution => ({
    count: values.length, missing, min: null, p25: null, median: null, p75: null,
    max: values.length === 0 ? null : Math.max(...values), mean: null, values,
  });
  test('the sum, the runs it occurred in and the most in one run; a median of 0 would hide it', () => {
    expect(formatCount(d([0, 4, 0, 8, 0]), 'records')).toBe('12 (in 2 of 5 runs, at most 8 in one)');
    expect(formatCount(d([0, 0, 0]), 'records')).toBe('0');
    expect(formatCount(d([0, 3], 1), 'records')).toBe('3 (in 1 of 2 runs, at most 3 in one) (2 of 3 runs judged)');
    expect(formatCount(d([]), 'records')).toBe('n/a (no run has a value)');
  });
});

describe('formatDistribution', () => {
  const d = (values: number[], missing = 0): Distribution => ({
    count: values.length, missing, min: values[0] ?? null, p25: values[0] ?? null, median: values[1] ?? null,
    p75: values[2] ?? null, max: values[2] ?? null, mean: null, values,
  });
  test('ms to the µs, bytes whole, runs without a value counted', () => {
    expect(formatDistribution(d([1.0004, 2.5, 3.25]), 'ms')).toBe('2.5 [1–3.25]');
    expect(formatDistribution(d([1, 2, 3], 2), 'bytes')).toBe('2 [1–3] (3 of 5 runs)');
    expect(formatDistribution(d([]), 'ms')).toBe('n/a (no run has a value)');
    expect(formatMetricValue(1234.5678, 'records/s')).toBe('1234.6');
  });
});
