import { describe, expect, test } from 'vitest';
import { skipBrowserTests } from './browserAvailability.ts';
import { browserForTests } from './browserForTests.ts';
import { withPage } from './launchBrowser.ts';

describe.skipIf(skipBrowserTests())('withPage', () => {
  const browser = browserForTests();

  test('runs fn with a blank page of a browser it launches, and returns its result', async () => {
    expect(await withPage(async (page) => [page.url(), await page.evaluate(() => 6 * 7)])).toEqual(['about:blank', 42]);
  });

  test('in a given browser it closes only the page\'s context, also when fn throws', async () => {
    await expect(withPage(async () => {
      expect(browser().contexts()).toHaveLength(1);
      throw new Error('from fn');
    }, browser())).rejects.toThrow('from fn');
    expect(browser().contexts()).toHaveLength(0);
    expect(browser().isConnected()).toBe(true);
  });
});
