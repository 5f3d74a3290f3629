import { describe, expect, test } from 'vitest';
import type { CompareReport, CostMetricKey } from '../properties/compare/CompareReport.ts';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { differentFaultSeeds, pairedComparisons } from '../properties/compare/pairedDifferences.ts';
import { formatPaired } from './compareMarkdown.ts';
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
        // A correctness count has dots only: its median is 0 in most runs and would hide the runs that count.
        if (d?.median === null || m.kind === 'correctness') {
          expect(p?.box, `${m.key} ${mode}`).toBeUndefined();
          expect(p?.medianTick, `${m.key} ${mode}`).toBeUndefined();
        } else {
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

  test('a correctness count\'s caption gives per mode its sum, the runs it occurred in and the most in one', () => {
    const page = readComparePage(comparePage(fixture));
    let counted = 0;
    for (const m of COMPARE_METRICS.filter((x) => x.kind === 'correctness')) {
      const caption = page.document.querySelector(`figure[data-metric="${m.key}"] figcaption`)?.textContent ?? '';
      const expected = fixture.modes.map((mode) => {
        const values = fixture.runs.filter((r) => r.mode === mode).map((r) => r.metrics[m.key] ?? 0);
        const sum = values.reduce((a, v) => a + v, 0);
        if (sum > 0) counted++;
        return `${mode}: ${sum === 0 ? '0' : `${sum} (in ${values.filter((v) => v > 0).length} of ${values.length} runs, at most ${Math.max(...values)} in one)`}`;
      });
      expect(caption).toContain(`Summed: ${expected.join('; ')}.`);
      expect(caption).toContain('no box or median');
    }
    expect(counted).toBeGreaterThan(0);
  });

  test('each cost\'s caption gives the paired figure per seed index of compare.json, with the seeds left out', () => {
    const page = readComparePage(comparePage(fixture));
    const [paired] = fixture.paired;
    if (paired === undefined) throw new Error('the fixture has no paired comparison');
    for (const m of COMPARE_METRICS) {
      const drawn = page.paired.get(m.key);
      if (m.kind === 'correctness') {
        expect(drawn?.size, m.key).toBe(0);
        continue;
      }
      const d = paired.metrics[m.key as CostMetricKey];
      const got = drawn?.get(paired.mode);
      expect(got, m.key).toEqual({
        baseline: paired.baseline, count: d.count, p25: d.p25, median: d.median, p75: d.p75, higher: d.higher, lower: d.lower, equal: d.equal,
        text: `Paired per seed index, ${paired.mode} minus ${paired.baseline}: ${formatPaired(d, m.unit)}.`
          + (d.leftOut.noValue.length === 0 ? '' : ` Seed indexes left out: ${d.leftOut.noValue.join(', ')} (no value in one run or both).`),
      });
    }
    expect(paired.metrics.recoveryMs.leftOut.noValue.length).toBeGreaterThan(0);
    expect(page.document.querySelector('#metrics .note')?.textContent).toContain('read that one to compare the modes');
  });

  test('seed indexes where the modes met different faults are named above the plots and left out of the paired figures', () => {
    const plain = readComparePage(comparePage(fixture));
    expect(plain.document.querySelector('#metrics ul.notes')?.textContent).toContain('The same faults acted in every mode at every seed index.');
    const runs = fixture.runs.map((r) => (r.seedIndex === 2 && r.mode === 'at-least-once' ? { ...r, actedFaults: [...r.actedFaults, 42] } : r));
    const doctored: CompareReport = { ...fixture, runs, differentFaults: differentFaultSeeds(fixture.modes, runs), paired: pairedComparisons(fixture.modes, runs) };
    const page = readComparePage(comparePage(doctored));
    expect([...page.document.querySelectorAll('#metrics ul.notes li')].map((li) => li.textContent)).toContain(
      'Seed index where the modes met different faults: 2: left out of the paired figures (the per-mode figures are over all runs, these included).');
    const latency = page.paired.get('latencyP50Ms')?.get('at-least-once');
    expect(latency?.count).toBe(fixture.seeds - 1);
    expect(latency?.text).toContain('Seed indexes left out: 2 (the modes met different faults).');
    expect(page.json(COMPARE_DATA_ID)).toEqual(doctored);
  });

  test('a cost that is 0 in every run of every mode says so above the plots and in its caption', () => {
    const page = readComparePage(comparePage(fixture));
    const line = 'Time back-pressured is 0 in every run of every mode: nothing filled the network buffers: this workload never '
      + 'back-pressured, so the comparison cannot show alignment\'s cost under back-pressure.';
    expect([...page.document.querySelectorAll('#metrics ul.notes li')].map((li) => li.textContent)).toContain(line);
    expect(page.document.querySelector('figure[data-metric="backPressuredMs"] .all-zero')?.textContent).toBe(line);
    expect(page.document.querySelector('figure[data-metric="checkpointEndToEndMs"] .all-zero')).toBeNull();
  });

  test('every timeline has one time axis, 0 to the latest end among them, so a time sits at the same place in each', () => {
    const page = readComparePage(comparePage(fixture));
    const ends = fixture.modes.map((m) => fixture.timelines[m]?.endMs ?? 0);
    // The fixture's runs end at different times, so this would fail with a domain per run.
    expect(new Set(ends).size).toBe(ends.length);
    const [first, ...rest] = fixture.modes.map((m) => page.timelines.get(m));
    expect(first?.domainEndMs).toBe(Math.max(...ends));
    expect(first?.xTicks.length).toBeGreaterThan(3);
    for (const t of rest) {
      expect(t?.domainEndMs).toBe(first?.domainEndMs);
      expect(t?.xTicks).toEqual(first?.xTicks);
    }
    expect(page.document.querySelector('#timelines .note')?.textContent).toContain(`Every timeline runs from 0 to ${Math.max(...ends)} ms`);
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
        return hit === 0 ? sum : `${sum} (in ${hit} of ${runs.length} runs, at most ${Math.max(...runs.map((r) => r.metrics[k]))} in one)`;
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
