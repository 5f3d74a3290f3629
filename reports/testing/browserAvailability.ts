/**
 * browserAvailability: whether this machine can run the browser tests, and how they behave when
 * it cannot.
 *
 * Browser tests drive Debian's `chromium` with playwright-core; nothing ever downloads a browser.
 * The executable is, in this order: `CHROMIUM_PATH` (when set it is the only candidate, so a wrong
 * path is reported instead of silently replaced), `chromium` or `chromium-browser` on `PATH`, then
 * `/usr/bin/chromium`.
 *
 * Without a browser the browser tests are skipped and the test run prints {@link
 * browserSkipLine} once (browserGlobalSetup.ts), unless `CHECKPOINT_SIM_BROWSER_TESTS=required`
 * (set by `.ci/run`): then they run and fail with the reason.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The environment variable that turns a missing browser from a skip into a failure. */
export const BROWSER_TESTS_ENV = 'CHECKPOINT_SIM_BROWSER_TESTS';

/** Where a browser was found, or why none was. */
export type BrowserAvailability =
  | { readonly available: true; readonly executablePath: string; readonly required: boolean }
  | { readonly available: false; readonly reason: string; readonly required: boolean };

/** The environment variables this module reads (a parameter so tests can pass their own). */
export type BrowserEnv = Readonly<Record<string, string | undefined>>;

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian's Chromium, the last place looked at. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Finds the Chromium executable for `env` (default `process.env`; `fallback` is the last path
 * tried, Debian's by default): `{ available: true, executablePath }` or `{ available: false,
 * reason }`, plus `required`, which is true when `env.CHECKPOINT_SIM_BROWSER_TESTS` is
 * `required`. Throws nothing; only looks at files.
 */
export function browserAvailability(env: BrowserEnv = process.env, fallback = DEBIAN_CHROMIUM): BrowserAvailability {
  const required = env[BROWSER_TESTS_ENV] === 'required';
  const explicit = env['CHROMIUM_PATH'];
  if (explicit !== undefined && explicit !== '') {
    return isExecutableFile(explicit)
      ? { available: true, executablePath: explicit, required }
      : { available: false, reason: `CHROMIUM_PATH=${explicit} is not an executable file`, required };
  }
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of ['chromium', 'chromium-browser']) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (isExecutableFile(path)) return { available: true, executablePath: path, required };
    }
  }
  if (isExecutableFile(fallback)) return { available: true, executablePath: fallback, required };
  return { available: false, reason: `no chromium or chromium-browser on PATH and no ${fallback}`, required };
}

/** Why no browser was found for `a` and how to get one, in one line. */
export function browserMissing(a: Extract<BrowserAvailability, { available: false }>): string {
  return `${a.reason}; install Chromium (sudo apt-get install chromium) or set CHROMIUM_PATH to its executable`;
}

/** The one line a test run prints when it skips the browser tests, for an unavailable `a`. */
export function browserSkipLine(a: Extract<BrowserAvailability, { available: false }>): string {
  return `browser tests were not run: ${browserMissing(a)} (${BROWSER_TESTS_ENV}=required makes them fail instead)`;
}

/** True when the browser tests must be skipped: no browser, and not required. */
export function skipBrowserTests(a: BrowserAvailability = browserAvailability()): boolean {
  return !a.available && !a.required;
}
