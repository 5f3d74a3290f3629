// Browser test: the compare page as a reader sees it, in headless Chromium: every plot drawn
// with its marks inside it, dots placed in the order of their values, no console error, nothing
// fetched, and a full-page screenshot in reports/out/screenshots/. Skipped (one line for the
// whole run) without Chromium; failed instead under CHECKPOINT_SIM_BROWSER_TESTS=required.
import { describe, expect, test } from 'vitest';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { comparePage } from './comparePage.ts';
import { skipBrowserTests } from './testing/browserAvailability.ts';
import { compareFixture, hostileCompareReport } from './testing/compareFixture.ts';
import { browserForTests } from './testing/browserForTests.ts';
import { withPage } from './testing/launchBrowser.ts';
import { drawnPlots, openPage, screenshot } from './testing/pageInBrowser.ts';

describe.skipIf(skipBrowserTests())('the compare page in Chromium', () => {
  const browser = browserForTests();

  test('every plot rendered with its marks, no console errors; a screenshot', async () => {
    const report = compareFixture();
    await withPage(async (page) => {
      await page.setViewportSize({ width: 1000, height: 800 });
      const { errors } = await openPage(page, comparePage(report));
      const metrics = await drawnPlots(page, 'figure.metric');
      expect(metrics.map((p) => p.id)).toEqual(COMPARE_METRICS.map((m) => `metric-${m.key}`));
      for (const p of metrics) {
        expect(p.width, p.id).toBeGreaterThan(300);
        expect(p.height, p.id).toBeGreaterThan(50);
        // A cost: a box (rect), a median tick (line) and dots (circle) for each mode with values; a
        // correctness count: the dots only (the lines are the grid's).
        const kind = COMPARE_METRICS.find((m) => `metric-${m.key}` === p.id)?.kind;
        if (kind === 'correctness') {
          expect(p.marks['circle'], p.id).toBeGreaterThan(0);
          expect(p.marks['rect'], p.id).toBeUndefined();
        } else {
          expect(p.marks, p.id).toMatchObject({ circle: expect.any(Number), rect: expect.any(Number), line: expect.any(Number) });
        }
        expect(p.outside, p.id).toBe(0);
        // Dots further right have values at least as large: the x scale drew what data-value says.
        expect(p.valuesByX, p.id).toEqual([...p.valuesByX].sort((a, b) => a - b));
      }
      const dots = metrics.reduce((a, p) => a + (p.marks['circle'] ?? 0), 0);
      expect(dots).toBe(COMPARE_METRICS.reduce((a, m) => a + report.modes.reduce((b, mode) => b + (report.byMode[mode]?.distributions[m.key].count ?? 0), 0), 0));
      const timelines = await drawnPlots(page, 'figure.timeline');
      expect(timelines.map((p) => p.id)).toEqual(report.modes.map((m) => `timeline-${m}`));
      for (const p of timelines) {
        expect(p.width, p.id).toBeGreaterThan(300);
        // Checkpoint bars (rect), fault crosses and restore triangles (path), the rules (line).
        expect(p.marks['rect'], p.id).toBe(report.timelines[p.id.slice('timeline-'.length)]?.checkpoints.length);
        expect(p.marks['path'], p.id).toBeGreaterThan(0);
        expect(p.outside, p.id).toBe(0);
      }
      // One time axis: each tick label sits at the same place in every timeline.
      const ticks = await page.$$eval('figure.timeline', (figs) => figs.map((fig) => [...fig.querySelectorAll('[aria-label="x-axis tick label"] text')]
        .map((t) => `${t.textContent ?? ''}@${Math.round(t.getBoundingClientRect().left)}`)));
      expect(ticks[0]?.length).toBeGreaterThan(3);
      for (const t of ticks.slice(1)) expect(t).toEqual(ticks[0]);
      const path = await screenshot(page, 'compare.png');
      console.log(`compare page screenshot: ${path}`);
      expect(errors).toEqual([]);
    }, browser());
  });

  test('a hostile report draws the same plots and runs no script of its strings', async () => {
    await withPage(async (page) => {
      const { errors } = await openPage(page, comparePage(hostileCompareReport()));
      expect((await drawnPlots(page, 'figure.metric')).length).toBe(COMPARE_METRICS.length);
      expect(await page.$$eval('b', (bs) => bs.length)).toBe(0);
      expect(await page.$$eval('script', (ss) => ss.length)).toBe(1);
      expect(errors).toEqual([]);
    }, browser());
  });

  test('the error check can fail: a page that throws or fetches is reported', async () => {
    await withPage(async (page) => {
      const { errors } = await openPage(page, '<!DOCTYPE html><img src="http://example.invalid/x.png"><script>throw new Error("boom")</script>');
      await page.evaluate(() => 0); // one more round trip: the events sent before it have arrived
      expect(errors.join('\n')).toMatch(/boom/);
      expect(errors.join('\n')).toMatch(/request: http:\/\/example\.invalid/);
    }, browser());
  });
});
