import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { browserAvailability, browserSkipLine, skipBrowserTests } from './browserAvailability.ts';
import { launchBrowser } from './launchBrowser.ts';

const dir = mkdtempSync(join(tmpdir(), 'browser-availability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file at `dir/name`, executable when `exec`. */
function file(name: string, exec: boolean): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, exec ? 0o755 : 0o644);
  return path;
}

const NONE = join(dir, 'no-such-chromium');

test('CHROMIUM_PATH, when set, is the only candidate', () => {
  const exe = file('my-chromium', true);
  expect(browserAvailability({ CHROMIUM_PATH: exe, PATH: '' }, NONE)).toEqual({ available: true, executablePath: exe, required: false });
  const plain = file('not-executable', false);
  expect(browserAvailability({ CHROMIUM_PATH: plain, PATH: dir }, NONE)).toMatchObject({
    available: false, reason: `CHROMIUM_PATH=${plain} is not an executable file`,
  });
  expect(browserAvailability({ CHROMIUM_PATH: NONE }).available).toBe(false);
});

test('then chromium or chromium-browser on PATH, then the fallback path', () => {
  const sub = join(dir, 'bin');
  rmSync(sub, { recursive: true, force: true });
  const exe = file('chromium-browser', true);
  expect(browserAvailability({ PATH: `${sub}:${dir}` }, NONE)).toMatchObject({ available: true, executablePath: exe });
  const fallback = file('fallback-chromium', true);
  expect(browserAvailability({ PATH: sub }, fallback)).toMatchObject({ available: true, executablePath: fallback });
  expect(browserAvailability({ PATH: sub }, NONE)).toMatchObject({
    available: false, reason: `no chromium or chromium-browser on PATH and no ${NONE}`,
  });
});

test('without a browser the tests skip and say so in one line, unless required', () => {
  const missing = browserAvailability({ CHROMIUM_PATH: NONE });
  expect(skipBrowserTests(missing)).toBe(true);
  if (missing.available) throw new Error('unreachable');
  const line = browserSkipLine(missing);
  expect(line).not.toContain('\n');
  expect(line).toContain('browser tests were not run');
  expect(line).toContain('sudo apt-get install chromium');
  expect(line).toContain('CHROMIUM_PATH');
  const required = browserAvailability({ CHROMIUM_PATH: NONE, CHECKPOINT_SIM_BROWSER_TESTS: 'required' });
  expect(required).toMatchObject({ available: false, required: true });
  expect(skipBrowserTests(required)).toBe(false);
});

test('launchBrowser without a browser fails with the reason (what a required browser test sees)', async () => {
  await expect(launchBrowser({ CHROMIUM_PATH: NONE, CHECKPOINT_SIM_BROWSER_TESTS: 'required' }))
    .rejects.toThrow(`no browser for the browser tests: CHROMIUM_PATH=${NONE} is not an executable file`);
});
