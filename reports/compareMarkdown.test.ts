/**
 * compare.md from a real small comparison: every metric of COMPARE_METRICS has its row, each
 * cost cell is the mode's median [p25–p75] of compare.json and each correctness cell its sum and
 * the runs it occurred in, runs without a value are counted, each mode's promise is said, and the
 * faults that never fired and the violations are listed per mode.
 */
import { describe, expect, test } from 'vitest';
import type { CompareReport, CostMetricKey, Distribution, PairedDifference } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { compareModes } from '../properties/compare/compareModes.ts';
import { defaultJudge } from '../properties/explore/defaultJudge.ts';
import { simulate } from '../sim/run/simulate.ts';
import { MODE_PROMISES } from '../properties/compare/modePromises.ts';
import { differentFaultSeeds, pairedComparisons } from '../properties/compare/pairedDifferences.ts';
import {
  allZeroMetrics, compareMarkdown, formatCount, formatDistribution, formatMetricValue, formatPaired, formatSigned,
} from './compareMarkdown.ts';

const report = compareModes({
  job: 'flights', modes: ['aligned', 'at-least-once'], seeds: 3, seed: 8, maxRecords: 120,
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

describe('compareMarkdown: paired per seed index', () => {
  const md = compareMarkdown(report);
  const paired = report.paired[0];
  if (paired === undefined) throw new Error('no paired comparison');

  /** The paired table's cells, by row label, from the line after its heading. */
  function pairedRows(text: string): Map<string, string> {
    const lines = text.split('\n');
    const at = lines.indexOf('### Paired per seed index: at-least-once minus aligned');
    expect(at).toBeGreaterThan(0);
    const head = lines.findIndex((l, i) => i > at && l.startsWith('| |'));
    expect(lines[head]).toBe('| | at-least-once minus aligned |');
    const rows = new Map<string, string>();
    for (const l of lines.slice(head + 2)) {
      if (!l.startsWith('|')) break;
      const [label, value] = l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
      rows.set(label ?? '', value ?? '');
    }
    return rows;
  }

  test('a row per cost metric, each cell compare.json\'s paired median [p25–p75] with the seeds higher, lower and equal', () => {
    const rows = pairedRows(md);
    const costs = COMPARE_METRICS.filter((m) => m.kind === 'cost');
    expect([...rows.keys()]).toEqual(costs.map((m) => `${m.label} (${m.unit}, ${m.better} is better)`));
    let compared = 0;
    for (const m of costs) {
      const d = paired.metrics[m.key as CostMetricKey];
      const c = rows.get(`${m.label} (${m.unit}, ${m.better} is better)`) ?? '';
      if (d.median === null) {
        expect(c).toBe('n/a (no seed index paired)');
        continue;
      }
      const parsed = /^([+\u2212]?[\d.]+) \[([+\u2212]?[\d.]+)–([+\u2212]?[\d.]+)\] (\S+), higher in (\d+) of (\d+), lower in (\d+)(?:, equal in (\d+))?(?:, largest ([+\u2212]?[\d.]+))?( \(only \d+ pairs?: too few to read a direction\))?$/.exec(c);
      expect(parsed, c).not.toBeNull();
      const num = (t: string | undefined): number => Number((t ?? '').replace('\u2212', '-'));
      const tolerance = m.unit === 'ms' ? 0.0005 : m.unit === 'records/s' ? 0.05 : 0.5;
      expect(Math.abs(num(parsed?.[1]) - d.median)).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(num(parsed?.[2]) - (d.p25 ?? NaN))).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(num(parsed?.[3]) - (d.p75 ?? NaN))).toBeLessThanOrEqual(tolerance);
      expect(parsed?.[4]).toBe(m.unit);
      expect([parsed?.[5], parsed?.[6], parsed?.[7], parsed?.[8] ?? '0'].map(Number)).toEqual([d.higher, d.count, d.lower, d.equal]);
      // The largest difference by size, and the few-pairs warning exactly when under FEW_PAIRS.
      const largest = d.differences.reduce((a, v) => (Math.abs(v) > Math.abs(a) ? v : a), 0);
      expect(Math.abs((parsed?.[9] === undefined ? 0 : num(parsed[9])) - largest)).toBeLessThanOrEqual(tolerance);
      expect(parsed?.[10] !== undefined).toBe(d.count < 10);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(8);
  });

  test('the seed indexes left out are said once under the table', () => {
    const lines = md.split('\n');
    const expected = COMPARE_METRICS.filter((m) => m.kind === 'cost').flatMap((m) => {
      const seeds = paired.metrics[m.key as CostMetricKey].leftOut.noValue;
      return seeds.length === 0 ? [] : [`${seeds.join(', ')} from ${m.label} (no value in one run or both)`];
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.startsWith('Seed indexes left out: '))).toEqual([`Seed indexes left out: ${expected.join('; ')}.`]);
  });

  test('seed indexes where the modes met different faults are named near the table and left out of every paired row', () => {
    // Seed index 1's aligned run made to meet another fault than its at-least-once run.
    const runs = report.runs.map((r) => (r.seedIndex === 1 && r.mode === 'aligned' ? { ...r, actedFaults: [...r.actedFaults, 99] } : r));
    const doctored: CompareReport = {
      ...report, runs, differentFaults: differentFaultSeeds(report.modes, runs), paired: pairedComparisons(report.modes, runs),
    };
    const text = compareMarkdown(doctored);
    expect(text).toContain('\nSeed index where the modes met different faults: 1: left out of the paired figures '
      + '(the per-mode figures are over all runs, these included).\n');
    expect(text.indexOf('Seed index where')).toBeLessThan(text.indexOf('### Paired per seed index'));
    expect(text).toMatch(/\nSeed indexes left out: 1 from every row \(the modes met different faults\)[;.]/);
    const latency = doctored.paired[0]?.metrics.latencyP50Ms as PairedDifference;
    expect(latency.seedIndexes).not.toContain(1);
    expect(md).not.toContain('met different faults:');
    expect(md).toContain('\nThe same faults acted in every mode at every seed index.\n');
  });

  test('a cost that is 0 in every run of every mode gets one line saying what that means', () => {
    const zero = allZeroMetrics(report).map((m) => m.key);
    expect(zero).toContain('backPressuredMs');
    expect(md).toContain('\nTime back-pressured is 0 in every run of every mode: no run at these seeds filled the network buffers, '
      + 'so this comparison says nothing about alignment\'s cost under back-pressure (runs that back-pressure are rare on flights: '
      + 'more seeds, such as --seeds 100, find some).\n');
    const r = JSON.parse(JSON.stringify(report)) as CompareReport & { byMode: Record<string, { distributions: Record<string, Distribution> }> };
    const d = r.byMode['aligned']?.distributions['backPressuredMs'];
    if (d === undefined) throw new Error('no backPressuredMs');
    r.byMode['aligned'] = { ...r.byMode['aligned'], distributions: { ...r.byMode['aligned']?.distributions, backPressuredMs: { ...d, max: 4 } } } as never;
    expect(allZeroMetrics(r).map((m) => m.key)).not.toContain('backPressuredMs');
    expect(compareMarkdown(r)).not.toContain('Time back-pressured is 0');
  });
});

describe('formatPaired and formatSigned', () => {
  const d: PairedDifference = {
    count: 18, p25: -1.2, median: 0.496, p75: 3.1, higher: 11, lower: 7, equal: 0, seedIndexes: [], differences: [],
    leftOut: { differentFaults: [], noValue: [] },
  };
  test('signed figures with a minus sign, the unit, and the seeds higher, lower and equal', () => {
    expect(formatPaired(d, 'ms')).toBe('+0.496 [\u22121.2–+3.1] ms, higher in 11 of 18, lower in 7');
    expect(formatPaired({ ...d, higher: 10, equal: 1 }, 'ms')).toBe('+0.496 [\u22121.2–+3.1] ms, higher in 10 of 18, lower in 7, equal in 1');
    expect(formatPaired({ ...d, median: null, p25: null, p75: null, count: 0 }, 'ms')).toBe('n/a (no seed index paired)');
    // A rare large difference shows, however many zeros hide it in the quartiles; few pairs say so.
    expect(formatPaired({ ...d, p25: 0, median: 0, p75: 0, higher: 1, lower: 2, equal: 15, differences: [0, -0.5, 1179.887, -3] }, 'ms'))
      .toBe('0 [0–0] ms, higher in 1 of 18, lower in 2, equal in 15, largest +1179.887');
    expect(formatPaired({ ...d, count: 6, higher: 2, lower: 4, differences: [-54.883, 25.52] }, 'ms'))
      .toBe('+0.496 [\u22121.2–+3.1] ms, higher in 2 of 6, lower in 4, largest \u221254.883 (only 6 pairs: too few to read a direction)');
    expect([formatSigned(0, 'ms'), formatSigned(-0.0001, 'ms'), formatSigned(-192, 'bytes'), formatSigned(16.94, 'records/s')])
      .toEqual(['0', '0', '\u2212192', '+16.9']);
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
