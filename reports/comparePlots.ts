/**
 * The plots of the compare page (reports/comparePage.ts) and of the `npm start` page: Observable
 * Plot rendered to SVG on the server, with linkedom as its DOM, so the page needs no script to
 * show them. Every plotted mark carries `data-*` attributes with the value it stands for, so a
 * test (or a reader of the page's source) can check what was drawn against compare.json.
 *
 * Determinism: the same input gives the same SVG text. Plot's only generated names are its class
 * name (fixed here), clip-path and marker ids from module counters (no mark here clips or uses a
 * marker; {@link renderPlot} refuses an output that has such an id) and nothing reads the clock.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import type { CompareReport, MetricKey, Timeline } from '../properties/compare/CompareReport.ts';
import type { CompareMetric } from '../properties/compare/compareMetrics.ts';

/** The class name Plot gives every plot's root (its default is fixed too; this one is ours). */
const PLOT_CLASS = 'cs-plot';

/** One color per mode, in the order of the report's modes (Plot's observable10 scheme). */
const MODE_COLORS = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2'];

/** Checkpoint statuses (CheckpointStatsEntry.status) and their colors on the timeline. */
const STATUS_COLORS: Readonly<Record<string, string>> = { COMPLETED: '#3ca951', FAILED: '#d62728', IN_PROGRESS: '#9aa0a6' };
const FAULT_COLOR = '#b3261e';
const RESTORE_COLOR = '#4269d0';

// The DOM members used on the elements Plot returns (the project compiles without DOM types).
interface Node {
  readonly childNodes: ArrayLike<Node>;
  readonly outerHTML: string;
  setAttribute(name: string, value: string): void;
}

type Attrs = Readonly<Record<string, string>>;

/**
 * A render transform for a mark whose elements are the direct children of its group, one per
 * index in index order (dot, rect, rule, text marks without facets): sets `attrs(i)` on the
 * element of datum `i`. Only numbers, mode names and statuses go there: linkedom does not escape
 * `&` in attribute values, so free text belongs in titles (text nodes, escaped).
 */
function dataAttrs(attrs: (i: number) => Attrs): Plot.RenderFunction {
  return (index, scales, values, dimensions, context, next) => {
    const g = (next as Plot.RenderFunction)(index, scales, values, dimensions, context) as unknown as Node;
    const kids = g.childNodes;
    index.forEach((i, k) => {
      const el = kids[k];
      if (el === undefined) throw new Error(`plot mark has ${kids.length} elements for ${index.length} data`);
      for (const [name, value] of Object.entries(attrs(i))) el.setAttribute(`data-${name}`, value);
    });
    return g as never;
  };
}

/**
 * Renders Plot `options` to HTML (an `<svg>`, or a `<figure>` when a legend is on) in a fresh
 * linkedom document. @throws Error if the output holds a generated id (a clip path or marker),
 * which would make the page depend on how many plots were drawn before.
 */
export function renderPlot(options: Plot.PlotOptions): string {
  const { document } = parseHTML('<!DOCTYPE html><html><body></body></html>');
  const html = (Plot.plot({ ...options, document, className: PLOT_CLASS }) as unknown as Node).outerHTML;
  if (/plot-(clip|marker|pattern)-\d/.test(html)) throw new Error('a plot used a generated id (clip, marker or pattern): the page would not be deterministic');
  return html;
}

/** A number as a data attribute: JavaScript's shortest round-trip text, so `Number()` gives it back. */
const num = (v: number): string => String(v);

/** A value with its unit for a tooltip: ms to 3 decimals (µs), others as they are. */
function withUnit(v: number, unit: CompareMetric['unit']): string {
  return `${unit === 'ms' ? Number(v.toFixed(3)) : v} ${unit}`;
}

/**
 * A deterministic vertical offset in (-0.25, 0.25) for the dot of seed `i`, so equal values of
 * different seeds do not hide each other (golden-ratio steps spread any number of seeds).
 */
const jitter = (i: number): number => (((i * 0.6180339887) % 1) - 0.5) * 0.5;

interface DotRow {
  readonly mode: string;
  readonly modeIndex: number;
  readonly value: number;
  /** The seed index of the run behind the value, when the runs list says. */
  readonly seedIndex: number | undefined;
  readonly y: number;
}

/**
 * The runs' seed indexes behind `mode`'s values of `key`, in seed order: those of its runs with a
 * value, when they match the distribution's values one for one (undefined otherwise).
 */
function seedIndexesOf(report: CompareReport, mode: string, key: MetricKey, values: readonly number[]): (number | undefined)[] {
  const runs = report.runs.filter((r) => r.mode === mode && r.metrics[key] !== null);
  const match = runs.length === values.length && runs.every((r, i) => r.metrics[key] === values[i]);
  return values.map((_v, i) => (match ? runs[i]?.seedIndex : undefined));
}

/**
 * One metric's distributions over the runs, one row per mode (in the report's order): a dot per
 * run's value (`data-mode`, `data-value`, `data-seed`) and, for a cost, a box from p25 to p75 and
 * a thick tick at the median (`data-mode`, `data-p25`, `data-median`, `data-p75`), all from
 * `report.byMode[mode].distributions[metric.key]`. A correctness count (kind `correctness`: 0 in
 * most runs, so its box and median sit at 0 and would hide the runs that count) has the dots
 * only; its caption gives the sum. The x axis starts at 0 and is labelled with the metric and its
 * unit. Returns the plot's HTML; a mode without values has an empty row, and a plot without any
 * value says "no run has a value" in its middle.
 */
export function metricPlot(report: CompareReport, metric: CompareMetric): string {
  const modes = report.modes.map(String);
  const dots: DotRow[] = [];
  const boxes: { mode: string; modeIndex: number; p25: number; median: number; p75: number }[] = [];
  modes.forEach((mode, modeIndex) => {
    const d = report.byMode[mode]?.distributions[metric.key];
    if (d === undefined) return;
    const seeds = seedIndexesOf(report, mode, metric.key, d.values);
    d.values.forEach((value, i) => dots.push({ mode, modeIndex, value, seedIndex: seeds[i], y: modeIndex + jitter(seeds[i] ?? i) }));
    if (metric.kind === 'cost' && d.median !== null && d.p25 !== null && d.p75 !== null) boxes.push({ mode, modeIndex, p25: d.p25, median: d.median, p75: d.p75 });
  });
  const max = Math.max(0, ...dots.map((r) => r.value), ...boxes.map((b) => b.p75));
  const color = (mode: string) => MODE_COLORS[modes.indexOf(mode) % MODE_COLORS.length] as string;
  return renderPlot({
    width: 720,
    height: 50 + 46 * modes.length,
    marginLeft: 100,
    x: { domain: [0, max > 0 ? max : 1], nice: true, label: `${metric.label} (${metric.unit})`, labelArrow: 'none', grid: true },
    y: { domain: [modes.length - 0.5, -0.5], ticks: modes.map((_m, i) => i), tickFormat: (i: number) => modes[i] ?? '', label: null },
    marks: [
      Plot.rect(boxes, {
        x1: 'p25', x2: 'p75', y1: (b: { modeIndex: number }) => b.modeIndex - 0.3, y2: (b: { modeIndex: number }) => b.modeIndex + 0.3,
        fill: (b: { mode: string }) => color(b.mode), fillOpacity: 0.15, stroke: (b: { mode: string }) => color(b.mode),
        title: (b: { mode: string; p25: number; median: number; p75: number }) =>
          `${b.mode}: p25 ${withUnit(b.p25, metric.unit)}, median ${withUnit(b.median, metric.unit)}, p75 ${withUnit(b.p75, metric.unit)}`,
        render: dataAttrs((i) => {
          const b = boxes[i] as (typeof boxes)[number];
          return { mark: 'box', mode: b.mode, p25: num(b.p25), median: num(b.median), p75: num(b.p75) };
        }),
      }),
      Plot.ruleX(boxes, {
        x: 'median', y1: (b: { modeIndex: number }) => b.modeIndex - 0.36, y2: (b: { modeIndex: number }) => b.modeIndex + 0.36,
        stroke: '#1b1e23', strokeWidth: 3,
        title: (b: { mode: string; median: number }) => `${b.mode}: median ${withUnit(b.median, metric.unit)}`,
        render: dataAttrs((i) => {
          const b = boxes[i] as (typeof boxes)[number];
          return { mark: 'median', mode: b.mode, median: num(b.median) };
        }),
      }),
      Plot.dot(dots, {
        x: 'value', y: 'y', r: 3.5, fill: (r: DotRow) => color(r.mode), fillOpacity: 0.8, stroke: 'white', strokeWidth: 0.5,
        title: (r: DotRow) => `${r.mode}${r.seedIndex === undefined ? '' : `, seed ${r.seedIndex}`}: ${withUnit(r.value, metric.unit)}`,
        render: dataAttrs((i) => {
          const r = dots[i] as DotRow;
          return { mark: 'run', mode: r.mode, value: num(r.value), ...(r.seedIndex === undefined ? {} : { seed: num(r.seedIndex) }) };
        }),
      }),
      // An empty plot says why it is empty, so it does not read as a rendering failure.
      ...(dots.length === 0 ? [Plot.text(['no run has a value'], { frameAnchor: 'middle', fontSize: 12, fill: '#4b5260' })] : []),
    ],
  });
}

/** The lanes of a timeline, top to bottom. */
const LANES = ['checkpoints', 'faults', 'restores'];

/**
 * One run's checkpoint timeline (virtual ms from 0 to `domainEndMs`, by default the run's own
 * `timeline.endMs`; a page with several timelines gives them all its largest, so the same time
 * sits at the same place in each): each checkpoint a bar
 * from its trigger to its end (completion or failure; to the run's end while in progress) colored
 * by status and labelled with its id (`data-checkpoint`, `data-trigger-ms`, `data-end-ms`,
 * `data-status`); each fault occurrence a red cross with its index on the faults lane and a
 * dashed red line across (`data-fault`, `data-time-ms`); each restore a blue triangle on the
 * restores lane labelled with the checkpoint it went back to and a dashed blue line
 * (`data-checkpoint`, `data-time-ms`). Tooltips (titles) say each in words. Returns a `<figure>`
 * with the status legend.
 */
export function timelinePlot(timeline: Timeline, domainEndMs = timeline.endMs): string {
  const cps = timeline.checkpoints.map((c) => ({ ...c, x2: c.endMs ?? timeline.endMs, lane: 'checkpoints' }));
  const faults = timeline.faults.map((f) => ({ ...f, lane: 'faults' }));
  const restores = timeline.restores.map((r) => ({ ...r, lane: 'restores' }));
  const statuses = [...Object.keys(STATUS_COLORS), ...new Set(cps.map((c) => c.status).filter((s) => !(s in STATUS_COLORS)))];
  const ms = (v: number) => `${Number(v.toFixed(3))} ms`;
  type Cp = (typeof cps)[number];
  type F = (typeof faults)[number];
  type R = (typeof restores)[number];
  return renderPlot({
    width: 900,
    height: 190,
    marginLeft: 90,
    x: { domain: [0, Math.max(domainEndMs, timeline.endMs, 1)], label: 'virtual time (ms)', labelArrow: 'none', grid: true },
    y: { domain: LANES, label: null },
    color: { domain: statuses, range: statuses.map((s) => STATUS_COLORS[s] ?? '#7f7f7f'), legend: true, label: 'checkpoint status' },
    marks: [
      Plot.ruleX(faults, { x: 'timeMs', stroke: FAULT_COLOR, strokeOpacity: 0.5, strokeDasharray: '3,3' }),
      Plot.ruleX(restores, { x: 'timeMs', stroke: RESTORE_COLOR, strokeOpacity: 0.6, strokeDasharray: '6,3' }),
      Plot.barX(cps, {
        x1: 'triggerMs', x2: 'x2', y: 'lane', fill: 'status', insetTop: 6, insetBottom: 6,
        title: (c: Cp) => `checkpoint ${c.id} ${c.status}: triggered at ${ms(c.triggerMs)}, ${c.endMs === null ? 'not ended by the run\'s end' : `ended at ${ms(c.endMs)}`}`,
        render: dataAttrs((i) => {
          const c = cps[i] as Cp;
          return { mark: 'checkpoint', checkpoint: num(c.id), 'trigger-ms': num(c.triggerMs), 'end-ms': c.endMs === null ? 'null' : num(c.endMs), status: c.status };
        }),
      }),
      Plot.text(cps, { x: (c: Cp) => (c.triggerMs + c.x2) / 2, y: 'lane', text: (c: Cp) => String(c.id), dy: -17, fontSize: 9 }),
      Plot.dot(faults, {
        x: 'timeMs', y: 'lane', symbol: 'times', r: 5, stroke: FAULT_COLOR, strokeWidth: 2,
        title: (f: F) => `${ms(f.timeMs)}: fault ${f.index}: ${f.text}`,
        render: dataAttrs((i) => {
          const f = faults[i] as F;
          return { mark: 'fault', fault: num(f.index), 'time-ms': num(f.timeMs) };
        }),
      }),
      Plot.text(faults, { x: 'timeMs', y: 'lane', text: (f: F) => String(f.index), dy: -11, fontSize: 9, fill: FAULT_COLOR }),
      Plot.dot(restores, {
        x: 'timeMs', y: 'lane', symbol: 'triangle', r: 5, fill: RESTORE_COLOR,
        title: (r: R) => `${ms(r.timeMs)}: restore from ${r.checkpointId < 0 ? 'no checkpoint' : `checkpoint ${r.checkpointId}`}`,
        render: dataAttrs((i) => {
          const r = restores[i] as R;
          return { mark: 'restore', checkpoint: num(r.checkpointId), 'time-ms': num(r.timeMs) };
        }),
      }),
      Plot.text(restores, { x: 'timeMs', y: 'lane', text: (r: R) => `from ${r.checkpointId}`, dy: -12, fontSize: 9, fill: RESTORE_COLOR }),
    ],
  });
}
