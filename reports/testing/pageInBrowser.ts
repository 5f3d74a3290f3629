/**
 * pageInBrowser: what the browser tests of the report pages check in headless Chromium: a page
 * opened with `page.setContent`, its console errors and uncaught page errors collected, the
 * plots it drew measured, and a full-page screenshot written under reports/out/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/** Where the browser tests' screenshots go (git-ignored with the rest of reports/out). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../out/screenshots/', import.meta.url));

/** What the page logged as errors while it loaded and ran. */
export interface PageErrors {
  readonly errors: string[];
}

/**
 * Listens to `page`'s console errors and page errors (uncaught exceptions), then sets `html` as
 * its content and waits for it to load. Also fails every request the page makes, so a page that
 * fetches anything shows it as an error.
 */
export async function openPage(page: Page, html: string): Promise<PageErrors> {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.route('**/*', async (route) => {
    errors.push(`request: ${route.request().url()}`);
    await route.abort();
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { errors };
}

/** One plot as drawn: its figure's id, its SVG's size in CSS px, and its marks by element name. */
export interface DrawnPlot {
  readonly id: string;
  readonly width: number;
  readonly height: number;
  readonly marks: Readonly<Record<string, number>>;
  /** Data-marked elements whose box lies outside the SVG's box (should be none). */
  readonly outside: number;
  /** data-value of the run dots in order of their horizontal position on screen. */
  readonly valuesByX: readonly number[];
}

/** Every `figure` matching `selector` with an `<svg>` in it, measured in the page. */
export async function drawnPlots(page: Page, selector: string): Promise<DrawnPlot[]> {
  return page.$$eval(selector, (figures) => figures.map((fig) => {
    // The plot's svg is the largest one (a legend's swatches are small svgs too).
    const svgs = [...fig.querySelectorAll('svg')];
    const svg = svgs.sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
    const box = svg?.getBoundingClientRect();
    const marks: Record<string, number> = {};
    for (const el of svg?.querySelectorAll('g[aria-label] > circle, g[aria-label] > rect, g[aria-label] > path, g[aria-label] > line') ?? []) {
      if (el.closest('[aria-hidden="true"]') !== null) continue;
      marks[el.tagName] = (marks[el.tagName] ?? 0) + 1;
    }
    let outside = 0;
    for (const el of svg?.querySelectorAll('[data-mark]') ?? []) {
      const r = el.getBoundingClientRect();
      if (box === undefined || r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) outside++;
    }
    const valuesByX = [...(svg?.querySelectorAll('[data-mark="run"]') ?? [])]
      .map((el) => ({ x: el.getBoundingClientRect().left, v: Number(el.getAttribute('data-value')) }))
      .sort((a, b) => a.x - b.x || a.v - b.v).map((d) => d.v);
    return { id: fig.id, width: box?.width ?? 0, height: box?.height ?? 0, marks, outside, valuesByX };
  }));
}

/** Takes a full-page screenshot of `page` as SCREENSHOT_DIR/`name`; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name}`;
  await page.screenshot({ path, fullPage: true });
  return path;
}
