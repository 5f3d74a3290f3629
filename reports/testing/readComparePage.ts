/**
 * readComparePage: reads a compare page (reports/comparePage.ts) back with linkedom, as the
 * tests see it: the values each plot drew (from the data attributes on its marks), the paired
 * figures of each caption, the timelines' marks and time axes, and the embedded report.
 */
import { parseHTML } from 'linkedom';
import type { PairedDifference } from '../../properties/compare/CompareReport.ts';

interface El {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): Iterable<El>;
  querySelector(selector: string): El | null;
  readonly textContent: string | null;
  readonly tagName: string;
  readonly nextElementSibling: El | null;
}

/** What one metric plot drew for one mode. */
export interface PlottedMode {
  /** The dots' values in document order, and the seeds they name. */
  readonly values: number[];
  readonly seeds: (number | undefined)[];
  /** The box and median tick, when drawn. */
  readonly box: { readonly p25: number; readonly median: number; readonly p75: number } | undefined;
  readonly medianTick: number | undefined;
}

/** A paired figure as a metric's caption carries it (`span.paired`'s data attributes; null: nothing paired). */
export type CaptionPaired = Pick<PairedDifference, 'count' | 'p25' | 'median' | 'p75' | 'higher' | 'lower' | 'equal'> & {
  readonly baseline: string;
  /** The span's text. */
  readonly text: string;
};

/** What a timeline drew. */
export interface PlottedTimeline {
  /** The end of its time axis (the figure's `data-domain-end-ms`). */
  readonly domainEndMs: number;
  /** The x axis's tick labels and their horizontal positions in the plot. */
  readonly xTicks: { text: string; x: number }[];
  readonly checkpoints: { id: number; triggerMs: number; endMs: number | null; status: string }[];
  readonly faults: { index: number; timeMs: number }[];
  readonly restores: { checkpointId: number; timeMs: number }[];
}

export interface ReadPage {
  /** The page's document (linkedom). */
  readonly document: El;
  /** metric key -> mode -> what was drawn. */
  readonly metrics: Map<string, Map<string, PlottedMode>>;
  /** metric key -> mode -> the paired figure its caption gives. */
  readonly paired: Map<string, Map<string, CaptionPaired>>;
  /** The number of metric figures holding an `<svg>`. */
  readonly plots: number;
  /** mode -> its timeline. */
  readonly timelines: Map<string, PlottedTimeline>;
  /** The text of `<script type="application/json" id=...>`, parsed (undefined without one). */
  json(id: string): unknown;
}

const n = (el: El, name: string): number => {
  const v = el.getAttribute(`data-${name}`);
  if (v === null) throw new Error(`a <${el.tagName}> has no data-${name}`);
  return Number(v);
};

/** Reads `html` (see the file comment). */
export function readComparePage(html: string): ReadPage {
  const { document } = parseHTML(html) as unknown as { document: El };
  const metrics = new Map<string, Map<string, PlottedMode>>();
  const paired = new Map<string, Map<string, CaptionPaired>>();
  const orNull = (el: El, name: string): number | null => (el.getAttribute(`data-${name}`) === 'null' ? null : n(el, name));
  let plots = 0;
  for (const fig of document.querySelectorAll('figure.metric')) {
    if (fig.querySelector('svg') !== null) plots++;
    const byMode = new Map<string, { values: number[]; seeds: (number | undefined)[]; box?: PlottedMode['box']; medianTick?: number }>();
    const of = (el: El) => {
      const mode = el.getAttribute('data-mode') ?? '';
      let m = byMode.get(mode);
      if (m === undefined) byMode.set(mode, m = { values: [], seeds: [] });
      return m;
    };
    for (const el of fig.querySelectorAll('[data-mark]')) {
      const mark = el.getAttribute('data-mark');
      const m = of(el);
      if (mark === 'run') {
        m.values.push(n(el, 'value'));
        const seed = el.getAttribute('data-seed');
        m.seeds.push(seed === null ? undefined : Number(seed));
      } else if (mark === 'box') m.box = { p25: n(el, 'p25'), median: n(el, 'median'), p75: n(el, 'p75') };
      else if (mark === 'median') m.medianTick = n(el, 'median');
    }
    const spans = [...fig.querySelectorAll('figcaption span.paired')];
    paired.set(fig.getAttribute('data-metric') ?? '', new Map(spans.map((el) => [el.getAttribute('data-mode') ?? '', {
      baseline: el.getAttribute('data-baseline') ?? '', count: n(el, 'count'), p25: orNull(el, 'p25'), median: orNull(el, 'median'),
      p75: orNull(el, 'p75'), higher: n(el, 'higher'), lower: n(el, 'lower'), equal: n(el, 'equal'), text: el.textContent ?? '',
    }])));
    metrics.set(fig.getAttribute('data-metric') ?? '', new Map([...byMode].map(([k, v]) => [k, { box: undefined, medianTick: undefined, ...v }])));
  }
  const timelines = new Map<string, PlottedTimeline>();
  for (const fig of document.querySelectorAll('figure.timeline')) {
    timelines.set(fig.getAttribute('data-mode') ?? '', {
      domainEndMs: n(fig, 'domain-end-ms'),
      xTicks: [...fig.querySelectorAll('[aria-label="x-axis tick label"] text')].map((el) => ({
        text: el.textContent ?? '', x: Number(/translate\(([-\d.]+)/.exec(el.getAttribute('transform') ?? '')?.[1] ?? NaN),
      })),
      checkpoints: [...fig.querySelectorAll('[data-mark="checkpoint"]')].map((el) => ({
        id: n(el, 'checkpoint'), triggerMs: n(el, 'trigger-ms'),
        endMs: el.getAttribute('data-end-ms') === 'null' ? null : n(el, 'end-ms'), status: el.getAttribute('data-status') ?? '',
      })),
      faults: [...fig.querySelectorAll('[data-mark="fault"]')].map((el) => ({ index: n(el, 'fault'), timeMs: n(el, 'time-ms') })),
      restores: [...fig.querySelectorAll('[data-mark="restore"]')].map((el) => ({ checkpointId: n(el, 'checkpoint'), timeMs: n(el, 'time-ms') })),
    });
  }
  return {
    document, metrics, paired, plots, timelines,
    json: (id) => {
      const el = document.querySelector(`script[type="application/json"]#${id}`);
      return el === null ? undefined : JSON.parse(el.textContent ?? '') as unknown;
    },
  };
}
