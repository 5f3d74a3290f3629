/**
 * compareMarkdown: `compare.md`, the comparison as Markdown that reads well in a CI job summary
 * (GitHub's `$GITHUB_STEP_SUMMARY`) or a pull request: one table with a column per mode (the
 * promise its runs are judged against, runs, runs with violations, faults that never fired, then
 * one row per metric of COMPARE_METRICS: a correctness count as its sum and the runs it was not 0
 * in, a cost as median [p25–p75], each with its unit); under it the seed indexes where the modes
 * met different faults and the costs that were 0 in every run; per mode after the first a table of
 * the paired differences per seed index against the first mode, with the seed indexes left out;
 * what each mode promises in words, then per mode the faults that never fired and the violations.
 * Made from the CompareReport alone, so it says what compare.json says. Pure.
 */
import type { CompareReport, Distribution, PairedComparison, PairedDifference } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS, type CompareMetric } from '../properties/compare/compareMetrics.ts';
import { MODE_PROMISES } from '../properties/compare/modePromises.ts';

/**
 * A metric value as compare.md prints it: records and bytes as integers, records/s to 0.1,
 * ms to the µs (0.001: the virtual clock's resolution), trailing zeros dropped.
 */
export function formatMetricValue(value: number, unit: CompareMetric['unit']): string {
  const digits = unit === 'ms' ? 3 : unit === 'records/s' ? 1 : 0;
  return String(Number(value.toFixed(digits)));
}

/** `median [p25–p75]`, with how many runs had a value when some had none; `n/a` when none had. */
export function formatDistribution(d: Distribution, unit: CompareMetric['unit']): string {
  if (d.median === null || d.p25 === null || d.p75 === null) return `n/a (no run has a value)`;
  const f = (v: number): string => formatMetricValue(v, unit);
  const range = `${f(d.median)} [${f(d.p25)}–${f(d.p75)}]`;
  return d.missing === 0 ? range : `${range} (${d.count} of ${d.count + d.missing} runs)`;
}

/**
 * A correctness count over a mode's runs: `0`, or its sum with the runs it was not 0 in and the
 * most in one run (`12 (in 5 of 20 runs, at most 4 in one)`); `n/a` when no run has a value.
 */
export function formatCount(d: Distribution, unit: CompareMetric['unit']): string {
  if (d.count === 0) return 'n/a (no run has a value)';
  const sum = d.values.reduce((a, v) => a + v, 0);
  const judged = d.missing === 0 ? '' : ` (${d.count} of ${d.count + d.missing} runs judged)`;
  if (sum === 0) return `0${judged}`;
  const nonZero = d.values.filter((v) => v !== 0).length;
  const f = (v: number): string => formatMetricValue(v, unit);
  return `${f(sum)} (in ${nonZero} of ${d.count} runs, at most ${f(d.max ?? 0)} in one)${judged}`;
}

/** A metric's cell in compare.md: formatCount for a correctness count, formatDistribution for a cost. */
export function formatMetricCell(d: Distribution, metric: CompareMetric): string {
  return metric.kind === 'correctness' ? formatCount(d, metric.unit) : formatDistribution(d, metric.unit);
}

/**
 * A difference with its sign: `+0.496`, `−1.2` (a minus sign, U+2212, so it reads as one), `0`
 * when it rounds to 0 at the unit's resolution (formatMetricValue).
 */
export function formatSigned(value: number, unit: CompareMetric['unit']): string {
  const text = formatMetricValue(Math.abs(value), unit);
  if (text === '0') return '0';
  return `${value > 0 ? '+' : '\u2212'}${text}`;
}

/**
 * A paired figure (PairedDifference): `+0.496 [−1.2–+3.1] ms, higher in 11 of 18, lower in 6`
 * (the median and quartiles of mode minus baseline, its unit, then in how many of the paired seed
 * indexes the mode was higher, lower and, when any, equal); `n/a (no seed index paired)`.
 */
export function formatPaired(d: PairedDifference, unit: CompareMetric['unit']): string {
  if (d.median === null || d.p25 === null || d.p75 === null) return 'n/a (no seed index paired)';
  const f = (v: number): string => formatSigned(v, unit);
  return `${f(d.median)} [${f(d.p25)}–${f(d.p75)}] ${unit}, higher in ${d.higher} of ${d.count}, lower in ${d.lower}`
    + (d.equal > 0 ? `, equal in ${d.equal}` : '');
}

/** `3, 12` for a list of seed indexes. */
const seedList = (seeds: readonly number[]): string => seeds.join(', ');

/**
 * The line naming the seed indexes where the modes met different faults (report.differentFaults),
 * or saying there were none. The per-mode figures are over all runs, these included, and say so.
 */
export function differentFaultsLine(report: CompareReport): string {
  if (report.modes.length < 2) return '';
  if (report.differentFaults.length === 0) return 'The same faults acted in every mode at every seed index.';
  const n = report.differentFaults.length;
  return `Seed index${n === 1 ? '' : 'es'} where the modes met different faults: ${seedList(report.differentFaults)}: left out of the `
    + 'paired figures (the per-mode figures are over all runs, these included).';
}

/**
 * The cost metrics that are 0 in every run of every mode (every run has a value and it is 0),
 * in COMPARE_METRICS order: a row of `0 [0–0]` would read as "the modes cost the same".
 */
export function allZeroMetrics(report: CompareReport): CompareMetric[] {
  return COMPARE_METRICS.filter((m) => m.kind === 'cost' && report.modes.every((mode) => {
    const d = report.byMode[mode]?.distributions[m.key];
    return d !== undefined && d.count > 0 && d.missing === 0 && d.min === 0 && d.max === 0;
  }));
}

/** The sentence for a metric of {@link allZeroMetrics}: that it is 0 everywhere, and what that means. */
export function allZeroLine(metric: CompareMetric): string {
  const label = metric.label.charAt(0).toUpperCase() + metric.label.slice(1);
  return `${label} is 0 in every run of every mode${metric.whenAllZero === undefined ? '.' : `: ${metric.whenAllZero}.`}`;
}

/**
 * The seed indexes a paired comparison left out, said once for all its metrics: those where the
 * two modes met different faults (the same for every metric), then per metric those without a
 * value in one run or both.
 */
export function leftOutLine(p: PairedComparison): string {
  const costs = COMPARE_METRICS.filter((m) => m.kind === 'cost');
  const first = costs[0] === undefined ? undefined : p.metrics[costs[0].key as keyof PairedComparison['metrics']];
  const different = first?.leftOut.differentFaults ?? [];
  const noValue = costs.flatMap((m) => {
    const seeds = p.metrics[m.key as keyof PairedComparison['metrics']]?.leftOut.noValue ?? [];
    return seeds.length === 0 ? [] : [`${seedList(seeds)} from ${m.label} (no value in one run or both)`];
  });
  const parts = [...(different.length === 0 ? [] : [`${seedList(different)} from every row (the modes met different faults)`]), ...noValue];
  return parts.length === 0 ? 'No seed index was left out.' : `Seed indexes left out: ${parts.join('; ')}.`;
}

/** Text for a table cell or list item: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/** The table of one paired comparison and the seed indexes it left out, appended to `lines`. */
function pairedTable(p: PairedComparison, lines: string[]): void {
  lines.push(`### Paired per seed index: ${p.mode} minus ${p.baseline}`);
  lines.push('');
  lines.push(`Each seed index ran the same spec in both modes; a cell is the median [p25–p75] of ${p.mode}'s value minus `
    + `${p.baseline}'s over the seed indexes where both have one and the same faults acted (nearest rank), and in how many `
    + `of them ${p.mode} was higher or lower.`);
  lines.push('');
  lines.push(`| | ${p.mode} minus ${p.baseline} |`);
  lines.push('|:--|--:|');
  for (const metric of COMPARE_METRICS.filter((m) => m.kind === 'cost')) {
    const d = p.metrics[metric.key as keyof PairedComparison['metrics']];
    lines.push(`| ${cell(`${metric.label} (${metric.unit}, ${metric.better} is better)`)} | ${d === undefined ? 'n/a' : cell(formatPaired(d, metric.unit))} |`);
  }
  lines.push('');
  lines.push(cell(leftOutLine(p)));
  lines.push('');
}

/** The whole compare.md. */
export function compareMarkdown(report: CompareReport): string {
  const modes = report.modes;
  const lines: string[] = [];
  lines.push(`## checkpoint-sim compare: ${report.job}, ${report.seeds} seed${report.seeds === 1 ? '' : 's'} per mode (fast-check seed ${report.seed})`);
  lines.push('');
  lines.push('Each seed index is one RunSpec (job, input, parallelism, checkpoint settings, faults) run in every mode with '
    + 'only the mode changed; each run is judged against its own mode\'s promise. Records lost and duplicates are '
    + 'summed over the runs, with the runs they occurred in; the costs are the median [p25–p75] over the runs, '
    + 'nearest rank; definitions in docs/compare.md. To tell the modes apart, read the paired differences per seed '
    + 'index below: the medians of two modes can come from different seeds.');
  lines.push('');
  lines.push(`| | ${modes.join(' | ')} |`);
  lines.push(`|:--|${modes.map(() => '--:').join('|')}|`);
  const row = (label: string, value: (mode: string) => string): void => {
    lines.push(`| ${cell(label)} | ${modes.map((m) => cell(value(m))).join(' | ')} |`);
  };
  row('judged against', (m) => report.runs.find((r) => r.mode === m)?.expect ?? 'n/a');
  row('runs', (m) => String(report.byMode[m]?.runs ?? 0));
  row('runs with violations', (m) => String(report.byMode[m]?.violations ?? 0));
  row('faults that never fired', (m) => String(report.byMode[m]?.unfiredFaults ?? 0));
  for (const metric of COMPARE_METRICS) {
    const how = metric.kind === 'correctness' ? 'summed' : `${metric.better} is better`;
    row(`${metric.label} (${metric.unit}, ${how})`, (m) => {
      const d = report.byMode[m]?.distributions[metric.key];
      if (d === undefined) return 'n/a';
      return formatMetricCell(d, metric);
    });
  }
  lines.push('');
  const notes = [differentFaultsLine(report), ...allZeroMetrics(report).map(allZeroLine)].filter((l) => l !== '');
  for (const l of notes) lines.push(cell(l), '');
  for (const p of report.paired) pairedTable(p, lines);
  lines.push('What each mode promises:');
  lines.push('');
  for (const m of modes) lines.push(`- ${m}: ${cell(MODE_PROMISES[m])}`);
  lines.push('');
  lines.push('Faults that never fired (a protocol point the mode never reached, a message it never sent, or a run that ended first):');
  lines.push('');
  for (const m of modes) {
    // One nested item per seed index, so a mode with many never makes one unreadable line.
    const unfired = report.runs.filter((r) => r.mode === m && r.unfiredFaults.length > 0).map((r) => `seed index ${r.seedIndex}: `
      + r.unfiredFaults.map((i, k) => `#${i} ${r.unfiredFaultTexts[k] ?? ''}`.trimEnd()).join(', '));
    lines.push(`- ${m}: ${unfired.length === 0 ? 'none' : `${unfired.length} run${unfired.length === 1 ? '' : 's'}`}`);
    for (const u of unfired) lines.push(`  - ${cell(u)}`);
  }
  const violated = report.runs.filter((r) => r.violations.length > 0);
  if (violated.length > 0) {
    lines.push('');
    lines.push('Violations (of the mode\'s own promise):');
    lines.push('');
    for (const r of violated) {
      for (const v of r.violations) lines.push(`- ${r.mode}, seed index ${r.seedIndex} (${r.runSeed}): ${cell(`${v.property}: ${v.summary}`)}`);
    }
  }
  lines.push('');
  return lines.join('\n');
}
