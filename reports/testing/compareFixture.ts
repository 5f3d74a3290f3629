/**
 * compareFixture: a CompareReport from real runs (compareFixture.json, written by
 * makeCompareFixture.ts with compare's own compareModes: 8 seeds of the flights job in aligned and
 * at-least-once mode; the timelines' run has a failed checkpoint, a global failure and a restore,
 * and duplicates in at-least-once mode; faults that never fired), and a
 * hostile copy whose job name and texts hold what must not reach the page unescaped.
 */
import { readFileSync } from 'node:fs';
import type { CompareReport } from '../../properties/compare/CompareReport.ts';

/** A fresh copy of the fixture (tests may change it). */
export function compareFixture(): CompareReport {
  return JSON.parse(readFileSync(new URL('./compareFixture.json', import.meta.url), 'utf8')) as CompareReport;
}

/** What a hostile string holds: the end of a script element, markup, an entity, quotes. */
export const HOSTILE = '</script><b>bold</b> &amp; "quoted" \'x\' <!-- \u2028';

/** The fixture with {@link HOSTILE} in the job name, a run seed, a violation and every fault text. */
export function hostileCompareReport(): CompareReport {
  const r = compareFixture();
  const timelines = Object.fromEntries(Object.entries(r.timelines).map(([m, t]) => [m, {
    ...t, runSeed: `${t.runSeed}${HOSTILE}`, faults: t.faults.map((f) => ({ ...f, text: `${f.text} ${HOSTILE}` })),
  }]));
  const runs = r.runs.map((x, i) => (i === 0 ? { ...x, violations: [{ property: `p${HOSTILE}`, summary: HOSTILE }] } : x));
  return { ...r, job: `flights${HOSTILE}`, runs, timelines };
}
