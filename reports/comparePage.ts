/**
 * comparePage: `checkpoint-sim compare`'s `index.html`, one self-contained page (inline style and
 * SVG, no script to run, nothing fetched) that shows a CompareReport (compare.json,
 * properties/compare/CompareReport.ts): the comparison's parameters, a correctness table per
 * mode, one plot per metric of COMPARE_METRICS (each mode's per-run values as dots; for a cost a
 * box from p25 to p75 and a tick at the median, and in the caption the paired differences per
 * seed index against the first mode; for a correctness count its sum; reports/comparePlots.ts)
 * and each mode's representative run as a checkpoint timeline, every timeline on one time axis.
 * The report itself is embedded as JSON in
 * `<script type="application/json" id="compare-data">`. docs/report-page.md explains how to read it.
 *
 * Pure: the same report gives a byte-identical page (no dates, no random ids).
 */
import type { CompareReport, CostMetricKey, PairedDifference, Timeline } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS, type CompareMetric } from '../properties/compare/compareMetrics.ts';
import { MODE_PROMISES } from '../properties/compare/modePromises.ts';
import { allZeroLine, allZeroMetrics, differentFaultsLine, formatCount, formatPaired } from './compareMarkdown.ts';
import { metricPlot, timelinePlot } from './comparePlots.ts';
import { escapeHtml, htmlDocument, htmlTable, jsonScript } from './html.ts';

/** The id of the script element that holds the report. */
export const COMPARE_DATA_ID = 'compare-data';

/** The comparison's own style (both pages): a paired figure on a line of its own, in the text's color (the one to read). */
export const COMPARE_STYLE = 'figcaption .paired { display: block; margin-top: 0.2rem; color: #1b1e23; font-weight: 600; } '
  + 'figcaption .all-zero { display: block; margin-top: 0.2rem; }';

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

const cell = (n: number): string => `<span class="${n > 0 ? 'bad' : ''}">${n}</span>`;

/** A summed count with the runs it occurred in and the most in one: `12 (in 5 of 20 runs, at most 6 in one)`. */
const countIn = (sum: string, hit: number, runs: number, most: number): string => (hit === 0 ? sum
  : `${sum} (in ${hit} of ${runs} runs, at most ${most} in one)`);

/** The parameters of the comparison, as a definition list. */
export function compareParameters(report: CompareReport): string {
  const items: [string, string][] = [
    ['job', report.job],
    ['modes', report.modes.join(', ')],
    ['seeds', `${report.seeds} (one mode-neutral run spec each, run in every mode with only the mode substituted)`],
    ['comparison seed', String(report.seed)],
    ['runs', String(report.runs.length)],
    ['checkpoint-sim', report.checkpointSimVersion],
  ];
  return `<dl class="params">${items.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

/**
 * Per mode: runs, runs with a violation, records lost and duplicates (summed over the runs, with
 * the runs they occurred in and the most in one run),
 * unfired faults (summed), and the violated properties with their run counts.
 */
export function correctnessTable(report: CompareReport): string {
  const rows = report.modes.map((mode) => {
    const f = report.byMode[mode];
    const runs = report.runs.filter((r) => r.mode === mode);
    const sum = (k: 'recordsLost' | 'duplicates') => runs.reduce((a, r) => a + r.metrics[k], 0);
    const hit = (k: 'recordsLost' | 'duplicates') => runs.filter((r) => r.metrics[k] > 0).length;
    const most = (k: 'recordsLost' | 'duplicates') => Math.max(0, ...runs.map((r) => r.metrics[k]));
    const byProperty = new Map<string, number>();
    for (const r of runs) for (const p of new Set(r.violations.map((v) => v.property))) byProperty.set(p, (byProperty.get(p) ?? 0) + 1);
    const props = [...byProperty].map(([p, n]) => `${escapeHtml(p)} (${n} run${n === 1 ? '' : 's'})`).join('<br>');
    // Duplicates break only an exactly-once promise: red there, plain in at-least-once mode.
    const dups = sum('duplicates');
    return [escapeHtml(mode), String(f?.runs ?? runs.length), cell(f?.violations ?? 0),
      countIn(cell(sum('recordsLost')), hit('recordsLost'), runs.length, most('recordsLost')),
      countIn(runs.some((r) => r.expect === 'exactly-once') ? cell(dups) : String(dups), hit('duplicates'), runs.length, most('duplicates')),
      String(f?.unfiredFaults ?? 0), props === '' ? 'none' : props];
  });
  return htmlTable(['mode', 'runs', 'runs with a violation', 'records lost', 'duplicates after restore', 'unfired faults', 'violated properties'],
    rows, ' class="correctness"');
}

/**
 * Per mode, the faults that never fired, by seed index (a fault that fired in one mode and not in
 * the other makes those two runs different experiments), in a closed `<details>`.
 */
function unfiredFaults(report: CompareReport): string {
  const items = report.modes.flatMap((mode) => report.runs.filter((r) => r.mode === mode && r.unfiredFaults.length > 0).map((r) => {
    const texts = r.unfiredFaults.map((i, k) => `fault ${i}${r.unfiredFaultTexts[k] === undefined ? '' : `: ${r.unfiredFaultTexts[k]}`}`);
    return `<li>${escapeHtml(`${mode}, seed index ${r.seedIndex}: ${texts.join('; ')}`)}</li>`;
  }));
  return items.length === 0 ? '' : `<details class="unfired"><summary>Faults that never fired (${items.length} runs)</summary><ul>${items.join('')}</ul></details>`;
}

/** What each compared mode promises, in words (MODE_PROMISES). */
function promises(report: CompareReport): string {
  return `<ul class="promises">${report.modes.map((m) => `<li><span class="mode">${escapeHtml(m)}</span>: ${escapeHtml(MODE_PROMISES[m])}</li>`).join('')}</ul>`;
}

/** How many runs of each mode have a value of `metric`, and which have none, for a caption. */
function coverage(report: CompareReport, metric: CompareMetric): string {
  return report.modes.map((mode) => {
    const d = report.byMode[mode]?.distributions[metric.key];
    if (d === undefined) return `${mode}: no figures`;
    return `${mode}: ${d.count} of ${d.count + d.missing} runs${d.missing > 0 ? ` (${d.missing} without a value)` : ''}`;
  }).join('; ');
}

/** A number or null as a data attribute. */
const attr = (v: number | null): string => (v === null ? 'null' : String(v));

/** The seed indexes a paired figure left out, and why, for its caption ('' when none). */
function leftOutText(d: PairedDifference): string {
  const parts = [
    ...(d.leftOut.differentFaults.length === 0 ? [] : [`${d.leftOut.differentFaults.join(', ')} (the modes met different faults)`]),
    ...(d.leftOut.noValue.length === 0 ? [] : [`${d.leftOut.noValue.join(', ')} (no value in one run or both)`]),
  ];
  return parts.length === 0 ? '' : ` Seed indexes left out: ${parts.join('; ')}.`;
}

/**
 * A cost metric's paired figures (report.paired), one `<span class="paired">` per mode after the
 * first, carrying the figure as data attributes (`data-mode`, `data-baseline`, `data-count`,
 * `data-p25`, `data-median`, `data-p75`, `data-higher`, `data-lower`, `data-equal`; `null` when
 * nothing was paired) and saying it and the seed indexes left out in words.
 */
function pairedCaption(report: CompareReport, metric: CompareMetric): string {
  return report.paired.map((p) => {
    const d = p.metrics[metric.key as CostMetricKey] as PairedDifference | undefined;
    if (d === undefined) return '';
    const data = [['mode', p.mode], ['baseline', p.baseline], ['count', String(d.count)], ['p25', attr(d.p25)], ['median', attr(d.median)],
      ['p75', attr(d.p75)], ['higher', String(d.higher)], ['lower', String(d.lower)], ['equal', String(d.equal)]]
      .map(([k, v]) => ` data-${k}="${escapeHtml(v as string)}"`).join('');
    return ` <span class="paired"${data}>${escapeHtml(`Paired per seed index, ${p.mode} minus ${p.baseline}: `
      + `${formatPaired(d, metric.unit)}.${leftOutText(d)}`)}</span>`;
  }).join('');
}

/** A correctness count per mode for its caption: its sum, the runs it occurred in and the most in one (formatCount). */
function countsCaption(report: CompareReport, metric: CompareMetric): string {
  return report.modes.map((mode) => {
    const d = report.byMode[mode]?.distributions[metric.key];
    return `${mode}: ${d === undefined ? 'no figures' : formatCount(d, metric.unit)}`;
  }).join('; ');
}

/**
 * One metric's figure: heading, the plot, and a caption with its definition, unit, which way is
 * better and how many runs have a value; for a cost, the paired figures per seed index (the ones
 * to compare the modes by) and, when it is 0 in every run, what that means; for a correctness
 * count, its sum per mode. `data-metric` names the metric.
 */
export function metricFigure(report: CompareReport, metric: CompareMetric): string {
  const zero = allZeroMetrics(report).includes(metric) ? ` <span class="all-zero">${escapeHtml(allZeroLine(metric))}</span>` : '';
  const how = metric.kind === 'correctness'
    ? 'A dot per run; no box or median, since the count is 0 in most runs and a median would read 0. '
      + `Summed: ${countsCaption(report, metric)}.`
    : 'A dot per run, the box spans p25 to p75, the thick tick is the median (over all runs of the mode).';
  return `<figure class="metric" id="metric-${metric.key}" data-metric="${metric.key}" data-kind="${metric.kind}">`
    + `<h3>${escapeHtml(metric.label)} <span class="note">(${escapeHtml(metric.unit)}, ${metric.better} is better)</span></h3>`
    + metricPlot(report, metric)
    + `<figcaption>${escapeHtml(capitalized(metric.definition))}. ${escapeHtml(how)} ${escapeHtml(coverage(report, metric))}.`
    + `${metric.kind === 'cost' ? pairedCaption(report, metric) : ''}${zero}</figcaption></figure>`;
}

/** A timeline's faults as a table (the plot labels them by index only). */
function faultTable(t: Timeline): string {
  if (t.faults.length === 0) return '<p class="note">No fault fired in this run.</p>';
  return htmlTable(['time (ms)', 'fault', 'what happened'],
    t.faults.map((f) => [String(f.timeMs), String(f.index), escapeHtml(f.text)]), ' class="faults"');
}

/**
 * One mode's representative run (of seed index `seedIndex` when known): its timeline plot, drawn
 * from 0 to `domainEndMs` (default its own end; `data-domain-end-ms`), and fault table.
 */
export function timelineFigure(mode: string, t: Timeline, seedIndex?: number, domainEndMs = t.endMs): string {
  const done = t.checkpoints.filter((c) => c.status === 'COMPLETED').length;
  const which = seedIndex === undefined ? '' : `seed index ${seedIndex}, `;
  return `<figure class="timeline" id="timeline-${escapeHtml(mode)}" data-mode="${escapeHtml(mode)}" data-domain-end-ms="${Math.max(domainEndMs, t.endMs)}">`
    + `<h3>${escapeHtml(mode)}: ${which}run seed ${escapeHtml(t.runSeed)}</h3>${timelinePlot(t, domainEndMs)}`
    + `<figcaption>${plural(t.checkpoints.length, 'checkpoint')} (${done} completed), ${plural(t.faults.length, 'fault event')}, `
    + `${plural(t.restores.length, 'restore')} over ${t.endMs} virtual ms. Bars run from a checkpoint's trigger to its completion or `
    + 'failure; crosses mark faults (by index, listed below), triangles restores (labelled with the checkpoint restored).'
    + `</figcaption>${faultTable(t)}</figure>`;
}

/**
 * The lines above the plots: the seed indexes where the modes met different faults (left out of
 * the paired figures; the plots are over all runs) and each cost that is 0 in every run.
 */
function metricsNotes(report: CompareReport): string {
  const lines = [differentFaultsLine(report), ...allZeroMetrics(report).map(allZeroLine)].filter((l) => l !== '');
  return lines.length === 0 ? '' : `<ul class="notes">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>\n`;
}

/**
 * The comparison's sections, without the page's frame (the `npm start` page shows them too):
 * correctness, the metric plots, the timelines.
 */
export function compareSections(report: CompareReport): string {
  const seedIndexOf = (mode: string, t: Timeline) => report.runs.find((r) => r.mode === mode && r.runSeed === t.runSeed)?.seedIndex;
  const shown = report.modes.filter((m) => report.timelines[m] !== undefined);
  const indexes = new Set(shown.map((m) => seedIndexOf(m, report.timelines[m] as Timeline)));
  const [only] = indexes;
  // One time axis for every timeline: the same time at the same place in each.
  const endMs = Math.max(0, ...shown.map((m) => (report.timelines[m] as Timeline).endMs));
  const timelines = shown.map((m) => timelineFigure(m, report.timelines[m] as Timeline, seedIndexOf(m, report.timelines[m] as Timeline), endMs))
    .join('\n');
  const which = indexes.size === 1 && only !== undefined
    ? `The run of seed index ${only} in each mode: the same spec, so the same fault plan. compare prefers a seed index where the `
      + 'same faults acted in every mode and every run restored from a checkpoint (docs/compare.md gives the order). '
      + `A fault that never acted is not drawn. Every timeline runs from 0 to ${endMs} ms, the latest end among them.`
    : 'One run per mode.';
  return '<section id="correctness"><h2>Correctness</h2>'
    + '<p class="note">What each mode promises, per mode over its runs: a lost record is a violation in every mode; '
    + 'duplicates are allowed in at-least-once mode only. Unfired faults are faults whose protocol point or time the run never reached.</p>'
    + `${correctnessTable(report)}${promises(report)}${unfiredFaults(report)}</section>\n`
    + '<section id="metrics"><h2>Correctness and cost per run</h2>'
    + `<p class="note">One plot per metric, the same ${report.seeds} seeds in each mode. Each cost's caption gives the paired `
    + 'difference per seed index (a mode\'s value minus the first mode\'s on the same spec): read that one to compare the modes, '
    + 'since the two medians can come from different seeds.</p>\n'
    + metricsNotes(report)
    + `${COMPARE_METRICS.map((m) => metricFigure(report, m)).join('\n')}</section>\n`
    + '<section id="timelines"><h2>Checkpoint timelines</h2>'
    + `<p class="note">${escapeHtml(which)}</p>\n`
    + `${timelines}</section>`;
}

/** The whole page for `report` (see the file comment). */
export function comparePage(report: CompareReport): string {
  const title = `checkpoint-sim compare: ${report.job}`;
  return htmlDocument(title,
    `<header><h1>${escapeHtml(`Checkpointing modes compared: ${report.job}`)}</h1>${compareParameters(report)}</header>\n`
    + `${compareSections(report)}\n${jsonScript(COMPARE_DATA_ID, report)}`, COMPARE_STYLE);
}
