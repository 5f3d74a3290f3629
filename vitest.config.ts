import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Two workers: CI has 2 cores and vitest's default would use only one (cpus - 1).
// The global setup prints, once per run, that the browser tests were skipped when no Chromium is
// found (reports/testing/browserAvailability.ts).
// `checkpoint-sim` inside a job module a test loads (from examples/ or a temporary directory)
// means this source tree, as the CLI's resolve hook makes it mean the running package.
export default defineConfig({
  resolve: { alias: { 'checkpoint-sim': fileURLToPath(new URL('./index.ts', import.meta.url)) } },
  test: {
    globalSetup: ['reports/testing/browserGlobalSetup.ts'],
    include: ['**/*.test.ts'],
    // examples/ is a project of its own (its test runs from the packed tarball: scripts/packed).
    exclude: ['**/node_modules/**', 'dist/**', 'examples/**'],
    maxWorkers: 2,
    testTimeout: 120_000,
    // Launching Chromium on a loaded 2-core machine can take more than the default 10 s.
    hookTimeout: 120_000,
    coverage: {
      provider: 'v8',
      include: ['sim/**/*.ts', 'engine/**/*.ts', 'properties/**/*.ts'],
      exclude: ['**/*.test.ts', '**/testing/**'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: {
        'sim/**/*.ts': { lines: 85 },
        'engine/**/*.ts': { lines: 80 },
      },
      reportOnFailure: true,
    },
  },
});
