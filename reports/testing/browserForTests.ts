/**
 * For a browser test's describe block: launches Chromium before its tests, closes it after them,
 * and returns a getter of that browser (one browser per block, not per test).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from './launchBrowser.ts';

export function browserForTests(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error('browserForTests: no browser (called outside a test?)');
    return browser;
  };
}
