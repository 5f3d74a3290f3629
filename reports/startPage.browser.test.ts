// Browser test: the `npm start` page in headless Chromium: the inlined Mermaid bundle draws the
// counterexample's sequence diagram in its container, every comparison plot renders, the console
// shows no error, and a full-page screenshot goes to reports/out/screenshots/. Skipped (one line
// for the whole run) without Chromium; failed instead under CHECKPOINT_SIM_BROWSER_TESTS=required.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { COMPARE_METRICS } from '../properties/compare/compareMetrics.ts';
import { startPage } from './startPage.ts';
import { skipBrowserTests } from './testing/browserAvailability.ts';
import { browserForTests } from './testing/browserForTests.ts';
import { withPage } from './testing/launchBrowser.ts';
import { drawnPlots, openPage, screenshot } from './testing/pageInBrowser.ts';
import { startFixture } from './testing/startFixture.ts';

/** Each diagram container's state once the page's script is through: rendered, diagram kind, texts. */
async function diagrams(page: Page): Promise<{ rendered: string | null; kind: string | null; texts: string[] }[]> {
  await page.waitForSelector('body[data-diagrams="done"]');
  return page.$$eval('.diagram', (boxes) => boxes.map((box) => {
    const svg = box.querySelector('.drawn > svg');
    return {
      rendered: box.getAttribute('data-rendered'),
      kind: svg?.getAttribute('aria-roledescription') ?? null,
      texts: [...(svg?.querySelectorAll('text, foreignObject') ?? [])].map((t) => t.textContent ?? ''),
    };
  }));
}

describe.skipIf(skipBrowserTests())('the npm start page in Chromium', () => {
  const browser = browserForTests();

  test('the counterexample\'s diagram is drawn in the page, the plots render, no console errors; a screenshot', async () => {
    const input = startFixture();
    await withPage(async (page) => {
      await page.setViewportSize({ width: 1000, height: 800 });
      const { errors } = await openPage(page, startPage(input));
      const drawn = await diagrams(page);
      expect(drawn).toHaveLength(input.counterexamples.length);
      expect(drawn[0]).toMatchObject({ rendered: 'ok', kind: 'sequence' });
      // The participants (the crashed TaskManager's two incarnations grouped in a box) and the lost trigger.
      for (const t of ['JobMaster', 'TaskExecutor taskmanager-1', 'TaskExecutor taskmanager-2 (boot 0 ms)', 'sim']) expect(drawn[0]?.texts).toContain(t);
      expect(drawn[0]?.texts.some((t) => /triggerCheckpoint.* lost: message fault$/.test(t))).toBe(true);
      const box = await page.$eval('#diagram-0 .drawn > svg', (svg) => svg.getBoundingClientRect().height);
      expect(box).toBeGreaterThan(200);
      const plots = await drawnPlots(page, 'figure.metric');
      expect(plots).toHaveLength(COMPARE_METRICS.length);
      for (const p of plots) expect(p.marks['circle'] ?? 0, p.id).toBeGreaterThan(0);
      expect(await drawnPlots(page, 'figure.timeline')).toHaveLength(input.compare?.modes.length ?? -1);
      const path = await screenshot(page, 'start.png');
      console.log(`npm start page screenshot: ${path}`);
      expect(errors).toEqual([]);
    }, browser());
  });

  test('the check can fail: a diagram Mermaid cannot parse is marked and logged as an error', async () => {
    const input = startFixture();
    const cx = input.counterexamples[0];
    if (cx === undefined) throw new Error('the start fixture has no counterexample');
    await withPage(async (page) => {
      const { errors } = await openPage(page, startPage({ summary: input.summary, counterexamples: [{ ...cx, mermaid: `${cx.mermaid}\n  end` }] }));
      expect(await diagrams(page)).toEqual([{ rendered: 'error', kind: null, texts: [] }]);
      expect(errors.join('\n')).toMatch(/mermaid: diagram 0:/);
    }, browser());
  });

});
