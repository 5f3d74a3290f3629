// Browser test: the page `npm start` writes, with counterexamples forced by a planted bug
// (`start --mutant`), opens in headless Chromium with every counterexample's sequence diagram
// drawn by the inlined Mermaid bundle, its explanation shown, no console errors; a screenshot goes
// to reports/out/screenshots/start-mutant.png. Skipped (one line for the whole run) without
// Chromium; failed instead under CHECKPOINT_SIM_BROWSER_TESTS=required (.ci/run).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { skipBrowserTests } from '../reports/testing/browserAvailability.ts';
import { withPage } from '../reports/testing/launchBrowser.ts';
import { drawnPlots, openPage, screenshot } from '../reports/testing/pageInBrowser.ts';
import { runCli } from './testing/runCli.ts';

describe.skipIf(skipBrowserTests())('the npm start page with counterexamples', () => {
  test('start --mutant writes a page whose diagrams and plots render, with no console errors', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'checkpoint-sim-start-page-')), 'out');
    const r = await runCli('start', '--time-budget', '2s', '--seed', '1', '--mutant', 'pending-completes-one-ack-short', '--out', out);
    expect(r.code).toBe(1);
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { mutants: string[] };
    expect(summary.mutants).toEqual(['pending-completes-one-ack-short']);
    await withPage(async (page) => {
      await page.setViewportSize({ width: 1000, height: 800 });
      const { errors } = await openPage(page, html);
      await page.waitForSelector('body[data-diagrams="done"]');
      const states = await page.$$eval('.diagram', (boxes) => boxes.map((b) => ({
        rendered: b.getAttribute('data-rendered'), kind: b.querySelector('.drawn > svg')?.getAttribute('aria-roledescription') ?? null,
      })));
      expect(states.length).toBeGreaterThan(0);
      for (const s of states) expect(s).toEqual({ rendered: 'ok', kind: 'sequence' });
      expect(await page.textContent('#counterexamples')).toContain('why it failed');
      expect(await page.textContent('header dl.params')).toContain('pending-completes-one-ack-short (switched on in every explored run)');
      expect(await page.textContent('#compare .mutants')).toContain('this comparison runs the correct engine, without it');
      // The comparison on the page: its plots drew marks.
      const plots = await drawnPlots(page, 'figure.metric');
      expect(plots.length).toBeGreaterThanOrEqual(6);
      expect(errors).toEqual([]);
      console.log(`screenshot: ${await screenshot(page, 'start-mutant.png')}`);
    });
  });
});
