/**
 * renderMermaid: has Mermaid (the pinned 11.x browser bundle) parse and draw a diagram's text in a
 * headless Chromium page, as a Markdown viewer would, and says what came out.
 */
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from './launchBrowser.ts';

/**
 * What rendering gave: the kind of diagram drawn (the SVG's `aria-roledescription`, `sequence`
 * for a sequence diagram) and the texts in it, or the error Mermaid reported.
 */
export type MermaidRendering =
  | { readonly ok: true; readonly diagramType: string; readonly svgTexts: readonly string[] }
  | { readonly ok: false; readonly error: string };

/** The path of Mermaid's self-contained browser bundle in node_modules. */
export const MERMAID_BUNDLE = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

/**
 * Loads Mermaid into `page` (a blank page; once per page), without rendering anything on load.
 */
export async function loadMermaid(page: Page): Promise<void> {
  await page.addScriptTag({ path: MERMAID_BUNDLE });
  await page.evaluate(() => {
    (globalThis as unknown as { mermaid: { initialize(c: object): void } }).mermaid
      .initialize({ startOnLoad: false, securityLevel: 'strict' });
  });
}

let renders = 0;

/**
 * `mermaid.parse(text)`, then `mermaid.render` in `page` (after {@link loadMermaid}):
 * `{ ok: true, diagramType, svgTexts }` with the text of every SVG `<text>` and `<foreignObject>`
 * element when it yields an `<svg>`, else `{ ok: false, error }` with Mermaid's message (a parse
 * error, or no SVG). Mermaid draws an over-long text as a "maximum text size" flowchart instead
 * of failing: callers check `diagramType` and `svgTexts`.
 */
export async function renderMermaid(page: Page, text: string): Promise<MermaidRendering> {
  const id = `mermaid-render-${++renders}`;
  return page.evaluate(async ([t, id]) => {
    interface Mermaid {
      parse(text: string): Promise<unknown>;
      render(id: string, text: string): Promise<{ svg: string }>;
    }
    // The project compiles without DOM types: the few DOM members used here, declared.
    interface Element {
      innerHTML: string;
      readonly textContent: string | null;
      getAttribute(name: string): string | null;
      querySelector(selector: string): Element | null;
      querySelectorAll(selector: string): Iterable<Element>;
    }
    const { mermaid, document } = globalThis as unknown as {
      mermaid: Mermaid; document: { createElement(tag: string): Element };
    };
    try {
      await mermaid.parse(t);
      const { svg } = await mermaid.render(id, t);
      const holder = document.createElement('div');
      holder.innerHTML = svg;
      const root = holder.querySelector('svg');
      if (root === null) return { ok: false as const, error: 'mermaid.render gave no <svg>' };
      const svgTexts = [...root.querySelectorAll('text, foreignObject')].map((n) => n.textContent ?? '');
      return { ok: true as const, diagramType: root.getAttribute('aria-roledescription') ?? '', svgTexts };
    } catch (e) {
      return { ok: false as const, error: e instanceof Error ? e.message : String(e) };
    }
  }, [text, id] as const);
}

/**
 * For a browser test's describe block: launches Chromium before its tests with one page that
 * has Mermaid loaded, closes it after them, and returns a getter of that page.
 */
export function mermaidPageForTests(): () => Page {
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    await loadMermaid(page);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (page === undefined) throw new Error('mermaidPageForTests: no page (called outside a test?)');
    return page;
  };
}
