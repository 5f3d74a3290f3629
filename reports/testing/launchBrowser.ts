/**
 * launchBrowser / withPage: headless Chromium for the browser tests (a rendered Mermaid diagram
 * now, the report page later), driven by playwright-core against the machine's own Chromium
 * (browserAvailability.ts finds it). Playwright's own browser downloads are never used.
 *
 * A browser test file skips itself with `describe.skipIf(skipBrowserTests())`; when it runs and no
 * browser is found, {@link launchBrowser} throws, so under `CHECKPOINT_SIM_BROWSER_TESTS=required`
 * the tests fail with the reason instead of passing untested.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { browserAvailability, browserMissing, type BrowserEnv } from './browserAvailability.ts';

/**
 * Chromium's flags: no sandbox (tests run as root on CI), no GPU, and none of the background
 * connections (component updates, sync, QUIC probes) that a machine without a network refuses,
 * many at a time, at every start.
 */
const CHROMIUM_ARGS = [
  '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

/**
 * Starts headless Chromium with a fresh profile. Throws an Error naming what was looked for when
 * no executable is found (for `env`, default `process.env`), or playwright's error when it does
 * not start. The caller closes the browser.
 */
export async function launchBrowser(env: BrowserEnv = process.env): Promise<Browser> {
  const a = browserAvailability(env);
  if (!a.available) throw new Error(`no browser for the browser tests: ${browserMissing(a)}`);
  return chromium.launch({ executablePath: a.executablePath, headless: true, chromiumSandbox: false, args: CHROMIUM_ARGS });
}

/**
 * Runs `fn` with a new blank page (about:blank) and returns its result. With `browser` the page
 * is opened in it and the browser stays open; without, a browser is launched for this call and
 * closed after it. The page's context is closed whatever `fn` does; `fn`'s error is rethrown.
 */
export async function withPage<T>(fn: (page: Page) => Promise<T>, browser?: Browser): Promise<T> {
  const own = browser === undefined ? await launchBrowser() : undefined;
  try {
    const context = await (browser ?? own as Browser).newContext();
    try {
      return await fn(await context.newPage());
    } finally {
      await context.close();
    }
  } finally {
    await own?.close();
  }
}
