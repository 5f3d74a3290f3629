/**
 * startPage: the page `npm start` writes (`reports/out/index.html`), one self-contained HTML
 * file: explore's summary per mode, the comparison of the modes when given (the plots of
 * reports/comparePage.ts), and for every counterexample its violation's details, its causal
 * explanation, its Mermaid sequence diagram and its replay command. docs/report-page.md explains
 * how to read it.
 *
 * The diagrams are drawn in the page: Mermaid's browser bundle (the pinned mermaid package's
 * `dist/mermaid.min.js`) is inlined once, only when there is a diagram, and a small script
 * renders each diagram's text (taken from the page's embedded JSON, `start-data`) into its
 * container; nothing is fetched. Without JavaScript each diagram shows as its Mermaid text. The
 * page says so. Pure apart from reading the bundle once: the same input gives the same bytes.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CompareReport } from '../properties/compare/CompareReport.ts';
import { causalWindow } from '../properties/explain/causalWindow.ts';
import { describerOf, type Explanation } from '../properties/explain/explainRun.ts';
import { formatExplanation } from '../properties/explain/formatExplanation.ts';
import { formatDetails } from '../properties/explore/formatDetails.ts';
import type { FanOutSummary, ModeSummary } from '../properties/explore/explore.ts';
import { describeUnattributed } from '../properties/explore/unattributedSummary.ts';
import type { RunResult } from '../sim/run/RunResult.ts';
import { COMPARE_DATA_ID, COMPARE_STYLE, compareParameters, compareSections } from './comparePage.ts';
import { escapeHtml, htmlDocument, htmlTable, jsonScript } from './html.ts';
import { mermaidSequence, sequenceStepsOf } from './mermaidSequence.ts';

/** The summed counts of ModeSummary that start also gives per run. */
export const PER_RUN_COUNTS = ['checkpointsCompleted', 'restores', 'duplicatesAfterRestore'] as const;

/** Per mode, each of PER_RUN_COUNTS divided by the mode's runs, to 2 decimals (null for a mode without runs). */
export type PerRunFigures = Readonly<Record<string, Readonly<Record<(typeof PER_RUN_COUNTS)[number], number | null>>>>;

/**
 * The per-run rates of `modes`' summed counts: with a time budget the modes run different numbers
 * of runs (a mode's runs take different wall time), so their sums are not comparable, their rates are.
 */
export function perRunFigures(modes: Readonly<Record<string, ModeSummary>>): PerRunFigures {
  return Object.fromEntries(Object.entries(modes).map(([m, x]) => [m, Object.fromEntries(PER_RUN_COUNTS.map((k) => [k,
    x.runs === 0 ? null : Math.round((x[k] / x.runs) * 100) / 100])) as Record<(typeof PER_RUN_COUNTS)[number], number | null>]));
}

/**
 * A sentence when the modes ran different numbers of runs (`aligned 49, at-least-once 91`), saying
 * to compare the per-run figures rather than the sums; null when every mode ran as many.
 */
export function runCountsNote(modes: Readonly<Record<string, ModeSummary>>): string | null {
  const counts = Object.entries(modes).map(([m, x]) => [m, x.runs] as const);
  if (new Set(counts.map(([, n]) => n)).size <= 1) return null;
  return `The modes ran different numbers of runs (${counts.map(([m, n]) => `${m} ${n}`).join(', ')}): a time budget shares the `
    + 'wall clock and a mode\'s runs take different times, so the sums differ by the run counts as much as by the modes; '
    + 'compare the per-run figures.';
}

/** The part of explore's JSON (cli/commands/exploreCommand.ts `toJson`) the page shows, with what start adds to it. */
export interface StartSummary {
  readonly job: string;
  readonly seed: number;
  /** Runs per mode, or null when a time budget set them. */
  readonly runsPerMode: number | null;
  /** The planted bugs the exploration switched on (`start --mutant`); empty for the correct engine. */
  readonly mutants: readonly string[];
  readonly modes: Readonly<Record<string, ModeSummary>>;
  readonly fanOut: FanOutSummary;
  /** Real time the exploration took, ms. */
  readonly timing: { readonly wallMs: number };
  /** start's additions to summary.json: the per-run rates and the note of {@link runCountsNote}. */
  readonly perRun?: PerRunFigures;
  readonly runCountsNote?: string | null;
  /** The comparison's files, beside summary.json, and what it ran. */
  readonly compare?: { readonly json: string; readonly markdown: string; readonly seeds: number; readonly seed: number };
}

/** One counterexample as the page shows it. */
export interface StartCounterexample {
  readonly mode: string;
  readonly property: string;
  readonly summary: string;
  /** The command that runs it again (`npx checkpoint-sim replay <repro>`). */
  readonly replay: string;
  /** The violation's details as the terminal prints them (formatDetails' lines, unindented); empty without details. */
  readonly detailLines: readonly string[];
  /** formatExplanation's lines. */
  readonly explanationLines: readonly string[];
  /** The text of a Mermaid `sequenceDiagram` of the explanation's causal window. */
  readonly mermaid: string;
}

export interface StartPageInput {
  readonly summary: StartSummary;
  readonly counterexamples: readonly StartCounterexample[];
  readonly compare?: CompareReport;
}

/** The id of the script element holding the summary and counterexamples. */
export const START_DATA_ID = 'start-data';

/**
 * A counterexample of explore (its mode, property, summary, violation details, replay command and
 * explanation) with the run behind it (a replay of its repro: the trace the explanation was made
 * from) as the page shows it: the details' lines as explore prints them (formatDetails: at most
 * ten items a list, the rest counted), the explanation's lines and the sequence diagram
 * `replay --mermaid` writes (the causal window, reports/mermaidSequence.ts, times shown).
 */
export function startCounterexample(
  c: {
    readonly mode: string; readonly property: string; readonly summary: string; readonly replay: string; readonly explanation: Explanation;
    readonly violation: { readonly details: unknown };
  },
  run: RunResult,
): StartCounterexample {
  const steps = sequenceStepsOf(causalWindow(run.trace, c.explanation), describerOf(run));
  return {
    mode: c.mode, property: c.property, summary: c.summary, replay: c.replay,
    // formatDetails counts the items it leaves out and points to --json; on the page that is the
    // replay command's (explore's JSON carries no details).
    detailLines: formatDetails(c.violation.details, { indent: '' })
      .map((l) => l.replace(/\(--json has them all\)$/, '(the replay command with --json has them all)')),
    explanationLines: formatExplanation(c.explanation),
    mermaid: mermaidSequence(steps, { title: `${c.mode}: ${c.property}`, showTimes: true }),
  };
}

const require = createRequire(import.meta.url);
let bundle: { readonly version: string; readonly code: string } | undefined;

/**
 * Mermaid's browser bundle and version, read once. @throws Error if the bundle holds `<script`
 * or `</script` (it could not be inlined in a script element as it is), or if mermaid is not
 * installed (see {@link mermaidInstalled}).
 */
export function mermaidBundle(): { readonly version: string; readonly code: string } {
  if (bundle === undefined) {
    const code = readFileSync(require.resolve('mermaid/dist/mermaid.min.js'), 'utf8');
    if (/<\/?script/i.test(code)) throw new Error('mermaid.min.js holds "<script" or "</script": it cannot be inlined as it is');
    const version = (JSON.parse(readFileSync(require.resolve('mermaid/package.json'), 'utf8')) as { version: string }).version;
    bundle = { version, code };
  }
  return bundle;
}

/**
 * Whether mermaid can be inlined here. It is a development dependency (about 160 MB installed,
 * too much for every project that installs checkpoint-sim): a clone has it, so `npm start` draws
 * the diagrams; an installed package may not, and then the page shows each diagram's text.
 */
export function mermaidInstalled(): boolean {
  try {
    require.resolve('mermaid/dist/mermaid.min.js');
    return true;
  } catch {
    return false;
  }
}

/**
 * Draws every `.diagram` container's Mermaid text (from the start-data JSON) as an SVG inside it;
 * at its own size (wider ones scroll in their container, rather than shrink to unreadable text);
 * marks each `data-rendered="ok"` or `"error"` (Mermaid's message in the container), and the
 * body `data-diagrams="done"` when all are through. Plain ES2017, run in the reader's browser.
 */
const DRAW_SCRIPT = `
(async function () {
  var data = JSON.parse(document.getElementById(${JSON.stringify(START_DATA_ID)}).textContent);
  mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', sequence: { useMaxWidth: false } });
  var containers = document.querySelectorAll('.diagram');
  for (var i = 0; i < containers.length; i++) {
    var box = containers[i];
    var k = Number(box.getAttribute('data-counterexample'));
    try {
      var out = await mermaid.render('diagram-svg-' + k, data.counterexamples[k].mermaid);
      box.querySelector('.drawn').innerHTML = out.svg;
      box.setAttribute('data-rendered', 'ok');
    } catch (e) {
      box.setAttribute('data-rendered', 'error');
      box.querySelector('.drawn').textContent = 'Mermaid could not draw this diagram: ' + (e && e.message ? e.message : String(e));
      console.error('mermaid: diagram ' + k + ': ' + (e && e.message ? e.message : String(e)));
    }
  }
  document.body.setAttribute('data-diagrams', 'done');
})();
`;

/**
 * Why the Mermaid text reads `v0#35;0`: names and texts are escaped for Mermaid
 * (reports/mermaidSequence.ts), which decodes the codes only when it draws.
 */
const ENTITY_NOTE = 'In the text, codes such as <code>#35;</code> (#), <code>#59;</code> (;) and <code>#60;</code> (&lt;) stand for '
  + 'characters Mermaid would otherwise read as its own syntax; Mermaid turns them back when it draws.';

const td = (n: number): string => `<span class="${n > 0 ? 'bad' : ''}">${n}</span>`;

/** A summed count with its per-run rate: `192 (10.11 per run)`. */
const withRate = (sum: number, rate: number | null | undefined): string => (rate === null || rate === undefined ? String(sum)
  : `${sum} <span class="per-run">(${rate} per run)</span>`);

/**
 * explore's figures per mode (checkpoints, restores and duplicates with their per-run rates), a
 * note when the modes ran different numbers of runs, the reasons for unjudged state and the
 * fan-out line.
 */
function summarySection(s: StartSummary): string {
  const modes = Object.entries(s.modes);
  const rates = perRunFigures(s.modes);
  const rows = modes.map(([m, x]) => [escapeHtml(m), String(x.runs), td(x.violations), withRate(x.checkpointsCompleted, rates[m]?.checkpointsCompleted),
    withRate(x.restores, rates[m]?.restores), withRate(x.duplicatesAfterRestore, rates[m]?.duplicatesAfterRestore), td(x.missingRecords),
    String(x.unfiredFaults), String(x.stateUnjudged), String((x.unattributed?.aborts ?? 0) + (x.unattributed?.failovers ?? 0))]);
  const note = runCountsNote(s.modes);
  const reasons = modes.flatMap(([m, x]) => {
    const r = Object.entries(x.stateUnjudgedReasons).map(([k, n]) => `${n} ${k}`);
    const unjudged = r.length === 0 ? [] : [`<li>${escapeHtml(m)}: final keyed state not judged in ${x.stateUnjudged} run(s): ${escapeHtml(r.join(', '))}</li>`];
    // Savepoint actions that never fired tested nothing: said, as explore's text says them.
    const unfired = x.unfiredActions > 0
      ? [`<li>${escapeHtml(m)}: ${x.unfiredActions} action(s) (savepoints, stops) never fired (their time or point never came)</li>`] : [];
    const stuck = x.knownStuck > 0
      ? [`<li>${escapeHtml(m)}: ${x.knownStuck} run(s) stuck in stop-with-savepoint (a lost confirmation or abort: known in Flink 1.20), liveness not judged</li>`] : [];
    // Aborts and failovers nothing on their cause chain explains (each a violation of property attribution), with an example.
    const u = x.unattributed;
    const example = u?.examples[0];
    const unattributed = u === undefined || u.aborts + u.failovers === 0 ? []
      : [`<li>${escapeHtml(m)}: ${u.aborts} abort(s) and ${u.failovers} failover(s) in ${u.runs} run(s) unattributed (no fault, action, `
        + `limit, subsumption, finishing task or slow path on their cause chain)${example === undefined ? ''
          : `, e.g. ${escapeHtml(describeUnattributed(example))}`}</li>`];
    return [...unjudged, ...unfired, ...stuck, ...unattributed];
  });
  const marks = modes.map(([m, x]) => `<li>${escapeHtml(m)}: ${Object.entries(x.marks).map(([k, n]) => `${escapeHtml(k)} ${n}`).join(', ') || 'none'}</li>`);
  const fanOut = s.fanOut.runs === 0 ? '' : `<p>Restore fan-out: ${s.fanOut.runs} forked runs, ${s.fanOut.violations} violations`
    + `${s.fanOut.unfired > 0 ? `, ${s.fanOut.unfired} whose failover never fired (no restore tested)` : ''}.</p>`;
  return '<section id="summary"><h2>Summary per mode</h2>'
    + htmlTable(['mode', 'runs', 'violations', 'checkpoints completed', 'restores', 'duplicates after restore', 'missing records',
      'unfired faults', 'state unjudged', 'unattributed'], rows, ' class="summary"')
    + '<p class="note">Summed over each mode\'s runs (restore fan-out forks and determinism reruns not counted). Restores count restores '
    + 'of the job from a checkpoint; duplicates are committed copies beyond the reference fold\'s count; missing records are the fold\'s '
    + 'records never committed; unfired faults never reached their trigger; unattributed are checkpoint aborts and failovers whose cause '
    + 'chain reaches no fault, action, limit, subsumption, finishing task or slow path. Checkpoints, restores and duplicates also per run.</p>'
    + `${note === null ? '' : `<p class="note run-counts">${escapeHtml(note)}</p>`}`
    + `${reasons.length === 0 ? '' : `<ul>${reasons.join('')}</ul>`}${fanOut}`
    + `<details><summary>Marks (occurrences, for instance once per restored task)</summary><ul>${marks.join('')}</ul></details></section>`;
}

/** One counterexample: what failed, the replay command, the explanation and the diagram. */
function counterexampleSection(c: StartCounterexample, k: number): string {
  return `<article class="counterexample" id="counterexample-${k}">`
    + `<h3>Violation in mode ${escapeHtml(c.mode)}: ${escapeHtml(c.property)}</h3><p>${escapeHtml(c.summary)}</p>`
    + (c.detailLines.length === 0 ? '' : `<h4>Details</h4><pre class="details">${escapeHtml(c.detailLines.join('\n'))}</pre>`)
    + `<h4>Replay</h4><pre class="replay"><code>${escapeHtml(c.replay)}</code></pre>`
    + `<h4>Why it failed</h4><pre class="explanation">${escapeHtml(c.explanationLines.join('\n'))}</pre>`
    + `<h4>Sequence diagram</h4><div class="diagram" id="diagram-${k}" data-counterexample="${k}"><div class="drawn"></div>`
    + `<details><summary>Mermaid text</summary><pre class="diagram-source">${escapeHtml(c.mermaid)}</pre></details></div></article>`;
}

/**
 * Said when the exploration ran with planted bugs: the comparison always runs the correct engine,
 * so its figures are what the modes cost and keep, not what the bug does (the counterexamples show that).
 */
function mutantsNote(s: StartSummary): string {
  if (s.mutants.length === 0) return '';
  return `<p class="note mutants">${escapeHtml(`The exploration above ran with the planted bug${s.mutants.length === 1 ? '' : 's'} `
    + `${s.mutants.join(', ')} switched on; this comparison runs the correct engine, without ${s.mutants.length === 1 ? 'it' : 'them'}, `
    + 'so it shows what each mode costs and keeps, not what the bug does (the counterexamples show that).')}</p>`;
}

/** Where the comparison's own files are, when the summary names them (start writes them beside the page). */
function compareFilesNote(s: StartSummary): string {
  if (s.compare === undefined) return '';
  return `<p class="note compare-files">${escapeHtml(`This comparison is also written beside this page as ${s.compare.json} `
    + `(the report) and ${s.compare.markdown} (its tables), as compare writes them.`)}</p>`;
}

/** The page for `input` (see the file comment). */
export function startPage(input: StartPageInput): string {
  const s = input.summary;
  const runs = s.runsPerMode === null ? 'time-budgeted' : String(s.runsPerMode);
  const params = `<dl class="params"><dt>job</dt><dd>${escapeHtml(s.job)}</dd><dt>fast-check seed</dt><dd>${s.seed}</dd>`
    + `<dt>runs per mode</dt><dd>${escapeHtml(runs)}</dd><dt>modes</dt><dd>${escapeHtml(Object.keys(s.modes).join(', '))}</dd>`
    + `<dt>planted bugs</dt><dd>${s.mutants.length === 0 ? 'none (the correct engine)'
      : escapeHtml(`${s.mutants.join(', ')} (switched on in every explored run)`)}</dd>`
    + `<dt>wall time</dt><dd>${(s.timing.wallMs / 1000).toFixed(1)} s</dd></dl>`;
  const cxs = input.counterexamples;
  const mermaid = cxs.length > 0 && mermaidInstalled() ? mermaidBundle() : undefined;
  const drawnBy = mermaid === undefined
    ? '<p class="note">Mermaid is not installed here (it is a development dependency of checkpoint-sim), so the '
      + `diagrams are not drawn: open "Mermaid text" under each and paste it into any Mermaid viewer. ${ENTITY_NOTE}</p>`
    : `<p class="note">Each sequence diagram is drawn in this page by Mermaid ${escapeHtml(mermaid.version)}, whose browser `
      + 'bundle is inlined once at the end of the page (nothing is fetched); without JavaScript, open "Mermaid text" under each '
      + `diagram. ${ENTITY_NOTE}</p>`;
  const counterexamples = '<section id="counterexamples"><h2>Counterexamples</h2>'
    + (cxs.length === 0 ? '<p>No run violated a property: there is no counterexample to explain.</p>'
      : `${drawnBy}${cxs.map((c, k) => counterexampleSection(c, k)).join('\n')}`)
    + '</section>';
  const compare = input.compare === undefined ? ''
    : `<section id="compare"><h2>The modes compared</h2>${compareParameters(input.compare)}${mutantsNote(s)}${compareFilesNote(s)}</section>\n`
      + `${compareSections(input.compare)}\n`
      + jsonScript(COMPARE_DATA_ID, input.compare);
  const scripts = mermaid === undefined ? '' : `<script>${mermaid.code}</script><script>${DRAW_SCRIPT}</script>`;
  return htmlDocument(`checkpoint-sim: ${s.job}`,
    `<header><h1>${escapeHtml(`checkpoint-sim explored ${s.job}`)}</h1>${params}</header>\n${summarySection(s)}\n${counterexamples}\n`
    + `${compare}\n${jsonScript(START_DATA_ID, { summary: s, counterexamples: cxs })}${scripts}`,
    '.diagram { border: 1px solid #d0d4da; padding: 0.4rem; overflow-x: auto; } h4 { margin: 0.8rem 0 0.2rem; font-size: 0.95rem; } '
    + COMPARE_STYLE);
}
