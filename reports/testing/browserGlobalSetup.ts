/**
 * Vitest global setup (vitest.config.ts): runs once per test run, in the main process, whatever
 * the number of workers, so the line saying the browser tests were skipped is printed once and
 * not by every browser test file.
 */
import { browserAvailability, browserSkipLine } from './browserAvailability.ts';

export default function browserGlobalSetup(): void {
  const a = browserAvailability();
  if (!a.available && !a.required) console.log(browserSkipLine(a));
}
