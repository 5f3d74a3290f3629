import { describe, expect, test } from 'vitest';
import type { ModeSummary } from '../properties/explore/explore.ts';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { COMPARE_DATA_ID } from './comparePage.ts';
import { mermaidBundle, START_DATA_ID, startPage, type StartPageInput } from './startPage.ts';
import { HOSTILE } from './testing/compareFixture.ts';
import { readComparePage } from './testing/readComparePage.ts';
import { startFixture } from './testing/startFixture.ts';

const input = startFixture();
const cx = input.counterexamples[0];
if (cx === undefined) throw new Error('the start fixture has no counterexample');

/** How often `needle` occurs in `s`. */
const occurrences = (s: string, needle: string): number => s.split(needle).length - 1;

describe('startPage', () => {
  test('the same input gives a byte-identical page', () => {
    expect(startPage(startFixture()) === startPage(input)).toBe(true);
  });

  test('the summary per mode', () => {
    const page = readComparePage(startPage(input));
    const rows = [...page.document.querySelectorAll('table.summary tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    // Checkpoints, restores and duplicates with their rate per run (the modes ran 100 and 37 runs).
    const rate = (sum: number, runs: number): string => `${sum} (${Math.round((sum / runs) * 100) / 100} per run)`;
    expect(rows).toEqual(Object.entries(input.summary.modes).map(([m, x]) => [m, String(x.runs), String(x.violations),
      rate(x.checkpointsCompleted, x.runs), rate(x.restores, x.runs), rate(x.duplicatesAfterRestore, x.runs), String(x.missingRecords),
      String(x.unfiredFaults), String(x.stateUnjudged), String((x.unattributed?.aborts ?? 0) + (x.unattributed?.failovers ?? 0))]));
    expect(rows[1]?.slice(3, 6)).toEqual(['548 (14.81 per run)', '20 (0.54 per run)', '14 (0.38 per run)']);
    expect(page.document.querySelector('#summary .run-counts')?.textContent)
      .toContain('The modes ran different numbers of runs (aligned 100, at-least-once 37)');
    const same = readComparePage(startPage({ ...input, summary: { ...input.summary, modes: { aligned: input.summary.modes['aligned'] as never } } }));
    expect(same.document.querySelector('#summary .run-counts')).toBeNull();
    const text = page.document.querySelector('#summary')?.textContent ?? '';
    expect(text).toContain('at-least-once: final keyed state not judged in 2 run(s): 2 duplicates-after-keyed-state');
    expect(text).not.toContain('action(s) (savepoints, stops) never fired');
    const withUnfired = { ...input, summary: { ...input.summary, modes: { ...input.summary.modes,
      aligned: { ...(input.summary.modes['aligned'] as ModeSummary), unfiredActions: 2 } } } };
    expect(readComparePage(startPage(withUnfired)).document.querySelector('#summary')?.textContent)
      .toContain('aligned: 2 action(s) (savepoints, stops) never fired (their time or point never came)');
    expect(text).toContain('Restore fan-out: 13 forked runs, 0 violations, 2 whose failover never fired');
    expect(text).not.toContain('unattributed (no fault');
    // Aborts and failovers nothing explains are said per mode, with an example.
    const unattributed = { aborts: 1, failovers: 2, runs: 2, attributed: { fault: 40 }, examples: [{
      run: 7, path: '6', seed: 's9', seq: 1234, timeMs: 56.5, type: 'scheduler.taskFailed', reason: 'boom', chain: ['scheduler.taskFailed', 'host.boot'],
    }] };
    const withUnattributed = { ...input, summary: { ...input.summary, modes: { ...input.summary.modes,
      aligned: { ...(input.summary.modes['aligned'] as ModeSummary), unattributed } } } };
    const page2 = readComparePage(startPage(withUnattributed));
    expect(page2.document.querySelector('#summary')?.textContent).toContain('aligned: 1 abort(s) and 2 failover(s) in 2 run(s) '
      + 'unattributed (no fault, action, limit, subsumption, finishing task or slow path on their cause chain), e.g. run 7 (path 6, '
      + 'seed s9): task failure (boom) at 56.5 ms, event #1234; its cause chain ends at host.boot');
    expect([...([...page2.document.querySelectorAll('table.summary tbody tr')][0]?.querySelectorAll('td') ?? [])].at(-1)?.textContent).toBe('3');
  });

  test('every counterexample with its explanation, replay command and diagram, drawn in the page by the inlined bundle', () => {
    const html = startPage(input);
    const page = readComparePage(html);
    const article = page.document.querySelector('#counterexample-0');
    expect(article?.querySelector('h3')?.textContent).toBe(`Violation in mode ${cx.mode}: ${cx.property}`);
    expect(article?.querySelector('pre.replay')?.textContent).toBe(cx.replay);
    // The violation's details, as the terminal prints them: the state that differs, key by key.
    expect(article?.querySelector('pre.details')?.textContent).toBe(cx.detailLines.join('\n'));
    expect(cx.detailLines).toContain('stateDiffCount: 26');
    expect(cx.detailLines.some((l) => /^ {2}- operator airport-stats, state stats, key DTW, expected \{"count":47,.*\}, actual \{"count":48,/.test(l))).toBe(true);
    expect(cx.detailLines).toContain('  ... 10 more (the replay command with --json has them all)');
    expect(readComparePage(startPage({ ...input, counterexamples: [{ ...cx, detailLines: [] }] })).document.querySelector('pre.details')).toBeNull();
    expect(article?.querySelector('pre.explanation')?.textContent).toBe(cx.explanationLines.join('\n'));
    // The real explanation names the lost trigger, the crash and the restore.
    expect(cx.explanationLines.join('\n')).toMatch(/loses triggerCheckpoint[\s\S]*taskmanager-2 crashes[\s\S]*restore from checkpoint 2/);
    expect(article?.querySelector('pre.diagram-source')?.textContent).toBe(cx.mermaid);
    expect(cx.mermaid).toMatch(/^sequenceDiagram\n/);
    expect(page.json(START_DATA_ID)).toEqual({ summary: input.summary, counterexamples: input.counterexamples });
    const { code, version } = mermaidBundle();
    expect(version).toMatch(/^11\./);
    expect(occurrences(html, code)).toBe(1);
    expect(page.document.querySelector('#counterexamples')?.textContent).toContain(`drawn in this page by Mermaid ${version}`);
    // The diagram text's escapes are explained, since a reader without JavaScript reads them.
    expect(cx.mermaid).toContain('#35;');
    expect(page.document.querySelector('#counterexamples')?.textContent).toContain('codes such as #35; (#), #59; (;) and #60; (<)');
    // Outside the bundle (whose code names attributes and at-rules) the page links nothing.
    expect(html.replace(code, '').match(/\b(src|href)=|<link|@import|https?:\/\//gi)).toBeNull();
  });

  test('the planted bugs switched on are named, and the comparison says it ran without them', () => {
    const plain = readComparePage(startPage(input));
    const paramOf = (p: typeof plain, name: string): string | null | undefined => [...p.document.querySelectorAll('dl.params dt')]
      .find((dt) => dt.textContent === name)?.nextElementSibling?.textContent;
    expect(paramOf(plain, 'planted bugs')).toBe('none (the correct engine)');
    expect(plain.document.querySelector('#compare .mutants')).toBeNull();
    const mutated = readComparePage(startPage({ ...input, summary: { ...input.summary, mutants: ['lost-trigger', 'tracker-late-completion'] } }));
    expect(paramOf(mutated, 'planted bugs')).toBe('lost-trigger, tracker-late-completion (switched on in every explored run)');
    expect(mutated.document.querySelector('#compare .mutants')?.textContent)
      .toContain('planted bugs lost-trigger, tracker-late-completion switched on; this comparison runs the correct engine, without them');
  });

  test('the comparison\'s files are named when the summary names them', () => {
    const named = readComparePage(startPage({ ...input, summary: { ...input.summary, compare: { json: 'compare.json', markdown: 'compare.md', seeds: 10, seed: 1 } } }));
    expect(named.document.querySelector('#compare .compare-files')?.textContent)
      .toBe('This comparison is also written beside this page as compare.json (the report) and compare.md (its tables), as compare writes them.');
    expect(readComparePage(startPage(input)).document.querySelector('#compare .compare-files')).toBeNull();
  });

  test('the comparison\'s plots and data when given, none without', () => {
    const page = readComparePage(startPage(input));
    expect(page.plots).toBe(COMPARE_METRICS.length);
    expect(page.json(COMPARE_DATA_ID)).toEqual(input.compare);
    expect(page.timelines.size).toBe(input.compare?.modes.length);
    const { compare: _compare, ...without } = input;
    const plain = readComparePage(startPage(without));
    expect(plain.plots).toBe(0);
    expect(plain.json(COMPARE_DATA_ID)).toBeUndefined();
  });

  test('no counterexample: no diagram and no Mermaid bundle', () => {
    const html = startPage({ ...input, counterexamples: [] });
    expect(html.includes(mermaidBundle().code.slice(0, 200))).toBe(false);
    expect(html.match(/<script>/g)).toBeNull();
    expect(readComparePage(html).document.querySelector('#counterexamples')?.textContent).toContain('No run violated a property');
  });

  test('hostile texts in a counterexample and the job are escaped and parse back', () => {
    const hostile: StartPageInput = {
      summary: { ...input.summary, job: `flights${HOSTILE}` },
      counterexamples: [{ ...cx, property: `p${HOSTILE}`, summary: HOSTILE, replay: `replay ${HOSTILE}`, explanationLines: [HOSTILE],
        detailLines: [`key ${HOSTILE}`] }],
    };
    const html = startPage(hostile);
    expect(html.includes(HOSTILE)).toBe(false);
    expect(html.includes('<b>bold</b>')).toBe(false);
    // The JSON, the bundle and the drawing script are the only script elements.
    expect(html.match(/<\/script/gi)).toHaveLength(3);
    const page = readComparePage(html);
    expect(page.json(START_DATA_ID)).toEqual(hostile);
    expect(page.document.querySelector('h1')?.textContent).toBe(`checkpoint-sim explored flights${HOSTILE}`);
    expect(page.document.querySelector('pre.replay')?.textContent).toBe(`replay ${HOSTILE}`);
    expect(page.document.querySelector('pre.details')?.textContent).toBe(`key ${HOSTILE}`);
    expect(page.document.querySelector('b')).toBeNull();
  });
});
