/**
 * Vitest global setup (vitest.config.ts). It runs once per test run in the main process, whatever
 * the number of workers, so the line saying the browser tests were skipped is printed once, not
 * by every browser test file; and at the end of the run, under the summary, where it is seen.
 * Browser test files are named `*.browser.test.ts`: the line is printed only when the run had
 * one (a run of other files says nothing).
 */
import type { TestProject } from 'vitest/node';
import { browserAvailability, browserSkipLine } from './browserAvailability.ts';

/** Whether the run included a browser test file (true when vitest's state cannot tell). */
function ranBrowserTestFile(project: TestProject): boolean {
  try {
    // The state API is experimental; vitest is pinned, and a change only makes the line unconditional.
    return project.vitest.state.getFiles().some((f) => f.name.endsWith('.browser.test.ts'));
  } catch {
    return true;
  }
}

export default function browserGlobalSetup(project: TestProject): () => void {
  const a = browserAvailability();
  return () => {
    if (!a.available && !a.required && ranBrowserTestFile(project)) console.log(browserSkipLine(a));
  };
}
