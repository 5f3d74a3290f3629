import { describe, expect, test } from 'vitest';
import type { CompareReport } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { MODE_PROMISES } from '../properties/compare/modePromises.ts';
import * as Plot from '@observablehq/plot';
import { COMPARE_DATA_ID, comparePage } from './comparePage.ts';
import { renderPlot } from './comparePlots.ts';
import { jsonForScript } from './html.ts';
import { compareFixture, HOSTILE, hostileCompareReport } from './testing/compareFixture.ts';
import { readComparePage } from './testing/readComparePage.ts';

const fixture = compareFixture();

describe('comparePage', () => {
  test('the same report gives a byte-identical page, whatever was drawn before', () => {
    const first = comparePage(fixture);
    const other = comparePage(hostileCompareReport());
    expect(other).not.toBe(first);
    expect(comparePage(compareFixture())).toBe(first);
    expect(comparePage(JSON.parse(JSON.stringify(fixture)) as CompareReport)).toBe(first);
  });

  test('a plot with a generated id (a clip path) is refused: it would depend on the plots drawn before', () => {
    expect(() => renderPlot({ marks: [Plot.dot([{ x: 1, y: 1 }], { x: 'x', y: 'y', clip: true })] })).toThrow(/generated id/);
    expect(renderPlot({ marks: [Plot.dot([{ x: 1, y: 1 }], { x: 'x', y: 'y' })] })).toMatch(/^<svg /);
  });

  test('one plot per metric, at least six, each with the metric\'s unit and definition', () => {
    const page = readComparePage(comparePage(fixture));
    expect(page.plots).toBe(COMPARE_METRICS.length);
    expect(page.plots).toBeGreaterThanOrEqual(6);
    for (const m of COMPARE_METRICS) {
      const fig = page.document.querySelector(`figure[data-metric="${m.key}"]`);
      expect(fig?.querySelector('[aria-label="x-axis label"]')?.textContent).toBe(`${m.label} (${m.unit})`);
      expect(fig?.querySelector('figcaption')?.textContent?.toLowerCase()).toContain(m.definition.toLowerCase());
    }
  });

  test('every dot, box and median tick equals the report\'s distribution of its mode', () => {
    const page = readComparePage(comparePage(fixture));
    let dots = 0;
    for (const m of COMPARE_METRICS) {
      const drawn = page.metrics.get(m.key);
      expect(drawn, m.key).toBeDefined();
      expect([...(drawn?.keys() ?? [])].sort()).toEqual([...fixture.modes].sort());
      for (const mode of fixture.modes) {
        const d = fixture.byMode[mode]?.distributions[m.key];
        const p = drawn?.get(mode);
        expect(p?.values, `${m.key} ${mode}`).toEqual(d?.values);
        dots += p?.values.length ?? 0;
        // The seeds named are those of the runs with a value, in seed order.
        expect(p?.seeds).toEqual(fixture.runs.filter((r) => r.mode === mode && r.metrics[m.key] !== null).map((r) => r.seedIndex));
        if (d?.median === null) expect(p?.box).toBeUndefined();
        else {
          expect(p?.box).toEqual({ p25: d?.p25, median: d?.median, p75: d?.p75 });
          expect(p?.medianTick).toBe(d?.median);
        }
      }
    }
    expect(dots).toBeGreaterThan(100);
  });

  test('the read-back sees a wrong value (the check can fail)', () => {
    const changed = compareFixture() as unknown as { byMode: Record<string, { distributions: Record<string, { values: number[] }> }> };
    const d = changed.byMode['aligned']?.distributions['checkpointEndToEndMs'];
    if (d === undefined) throw new Error('fixture lost its aligned checkpointEndToEndMs');
    d.values = d.values.map((v, i) => (i === 0 ? v + 0.001 : v));
    const drawn = readComparePage(comparePage(changed as unknown as CompareReport)).metrics.get('checkpointEndToEndMs')?.get('aligned');
    expect(drawn?.values).not.toEqual(fixture.byMode['aligned']?.distributions.checkpointEndToEndMs.values);
    // The values changed no longer match the runs one for one: the dots name no seeds then.
    expect(drawn?.seeds.every((s) => s === undefined)).toBe(true);
  });

  test('each mode\'s timeline draws its checkpoints, faults and restores as in the report', () => {
    const page = readComparePage(comparePage(fixture));
    expect([...page.timelines.keys()]).toEqual([...fixture.modes]);
    for (const mode of fixture.modes) {
      const t = fixture.timelines[mode];
      const drawn = page.timelines.get(mode);
      expect(drawn?.checkpoints).toEqual(t?.checkpoints);
      expect(drawn?.faults).toEqual(t?.faults.map((f) => ({ index: f.index, timeMs: f.timeMs })));
      expect(drawn?.restores).toEqual(t?.restores);
    }
    // The fixture's first seed has a failed checkpoint, a fault and a restore: every kind of mark is tested.
    const aligned = page.timelines.get('aligned');
    expect(aligned?.checkpoints.some((c) => c.status === 'FAILED')).toBe(true);
    expect(aligned?.faults.length).toBeGreaterThan(0);
    expect(aligned?.restores.length).toBeGreaterThan(0);
  });

  test('the correctness table sums each mode\'s runs and says in how many they occurred, and each mode\'s promise', () => {
    const page = readComparePage(comparePage(fixture));
    const rows = [...page.document.querySelectorAll('table.correctness tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows).toEqual(fixture.modes.map((mode) => {
      const runs = fixture.runs.filter((r) => r.mode === mode);
      const f = fixture.byMode[mode];
      const summed = (k: 'recordsLost' | 'duplicates'): string => {
        const hit = runs.filter((r) => r.metrics[k] > 0).length;
        const sum = String(runs.reduce((a, r) => a + r.metrics[k], 0));
        return hit === 0 ? sum : `${sum} (in ${hit} of ${runs.length} runs)`;
      };
      return [mode, String(f?.runs), String(f?.violations), summed('recordsLost'), summed('duplicates'), String(f?.unfiredFaults), 'none'];
    }));
    expect(rows.some((r) => r[4] !== '0')).toBe(true);
    expect([...page.document.querySelectorAll('ul.promises li')].map((li) => li.textContent))
      .toEqual(fixture.modes.map((m) => `${m}: ${MODE_PROMISES[m]}`));
  });

  test('the faults that never fired, per mode and seed index, and the timelines\' seed index', () => {
    const page = readComparePage(comparePage(fixture));
    const items = [...page.document.querySelectorAll('details.unfired li')].map((li) => li.textContent);
    const expected = fixture.modes.flatMap((mode) => fixture.runs.filter((r) => r.mode === mode && r.unfiredFaults.length > 0)
      .map((r) => `${mode}, seed index ${r.seedIndex}: ${r.unfiredFaults.map((i, k) => `fault ${i}: ${r.unfiredFaultTexts[k]}`).join('; ')}`));
    expect(items).toEqual(expected);
    expect(items.length).toBeGreaterThan(0);
    const seedIndex = fixture.runs.find((r) => r.runSeed === fixture.timelines['aligned']?.runSeed)?.seedIndex;
    expect(page.document.querySelector('#timeline-aligned h3')?.textContent)
      .toBe(`aligned: seed index ${seedIndex}, run seed ${fixture.timelines['aligned']?.runSeed}`);
    expect(page.document.querySelector('#timelines .note')?.textContent).toContain(`The run of seed index ${seedIndex} in each mode`);
  });

  test('the page embeds the report, which parses back to it', () => {
    const html = comparePage(fixture);
    expect(readComparePage(html).json(COMPARE_DATA_ID)).toEqual(fixture);
    expect(html).toContain(`<script type="application/json" id="compare-data">${jsonForScript(fixture)}</script>`);
  });

  test('self-contained: nothing is fetched, no script runs', () => {
    const html = comparePage(fixture);
    expect(html).not.toMatch(/\b(src|href)=|<link|@import|url\(|https?:\/\//i);
    expect(html.match(/<script/g)).toEqual(['<script']);
  });

  test('a hostile job name, run seed, violation and fault text are escaped, and the JSON still parses back', () => {
    const report = hostileCompareReport();
    const html = comparePage(report);
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('<b>bold</b>');
    // Only the page's own script element ends a script.
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html.match(/<!--/g)).toBeNull();
    const page = readComparePage(html);
    expect(page.json(COMPARE_DATA_ID)).toEqual(report);
    expect(page.document.querySelector('h1')?.textContent).toBe(`Checkpointing modes compared: ${report.job}`);
    expect(page.document.querySelector('title')?.textContent).toBe(`checkpoint-sim compare: ${report.job}`);
    expect(page.document.querySelector('table.correctness')?.textContent).toContain(HOSTILE);
    const faultRows = [...page.document.querySelectorAll('table.faults td')].map((td) => td.textContent);
    expect(faultRows).toContain(report.timelines['aligned']?.faults[0]?.text);
    const titles = [...page.document.querySelectorAll('figure.timeline title')].map((t) => t.textContent ?? '');
    expect(titles.some((t) => t.endsWith(HOSTILE))).toBe(true);
    expect(page.document.querySelector('b')).toBeNull();
  });

  test('a metric no run has a value of is drawn empty and says so', () => {
    const r = compareFixture() as unknown as { byMode: Record<string, { distributions: Record<string, unknown> }> };
    for (const f of Object.values(r.byMode)) {
      f.distributions['recoveryMs'] = { count: 0, missing: 8, min: null, p25: null, median: null, p75: null, max: null, mean: null, values: [] };
    }
    const report = r as unknown as CompareReport;
    const page = readComparePage(comparePage(report));
    expect(page.plots).toBe(COMPARE_METRICS.length);
    for (const mode of fixture.modes) expect(page.metrics.get('recoveryMs')?.get(mode)).toBeUndefined();
    expect(page.document.querySelector('figure[data-metric="recoveryMs"] svg')?.textContent).toContain('no run has a value');
    expect(page.document.querySelector('figure[data-metric="checkpointEndToEndMs"] svg')?.textContent).not.toContain('no run has a value');
    expect(page.document.querySelector('figure[data-metric="recoveryMs"] figcaption')?.textContent)
      .toContain('aligned: 0 of 8 runs (8 without a value)');
  });
});
