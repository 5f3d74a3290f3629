/**
 * compareMarkdown: `compare.md`, the comparison as Markdown that reads well in a CI job summary
 * (GitHub's `$GITHUB_STEP_SUMMARY`) or a pull request: one table with a column per mode (the
 * promise its runs are judged against, runs, runs with violations, faults that never fired, then
 * one row per metric of COMPARE_METRICS: a correctness count as its sum and the runs it was not 0
 * in, a cost as median [p25–p75], each with its unit), what each mode promises in words, then per
 * mode the faults that never fired and the violations. Made from the CompareReport alone, so it says
 * what compare.json says. Pure.
 */
import type { CompareReport, Distribution } from '../properties/compare/CompareReport.ts';
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

/** Text for a table cell or list item: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
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
    + 'nearest rank; definitions in docs/compare.md.');
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
