/**
 * The ledger job under the harness, as a user's test file: explore it under crashes, partitions
 * and lost messages in both checkpointing modes and expect no violation; then explore the same
 * job with the classic two-phase-commit mistake planted in its sink and expect the harness to
 * catch it. Run with `npx vitest run` in a project that has checkpoint-sim and vitest installed.
 */
import { describe, expect, test } from 'vitest';
import { explore, ExploreFailure } from 'checkpoint-sim';

// The job is named by its module's URL, so a failure's repro names a file `checkpoint-sim replay` can load.
const ledger = new URL('./ledger.ts', import.meta.url);
const commitsInSnapshot = new URL('./ledger.ts#commitsInSnapshotJob', import.meta.url);

describe('the ledger job', () => {
  test('keeps its promise in every mode, across restores', async () => {
    const report = await explore({ job: ledger, modes: 'all', runs: 30, seed: 41 });
    for (const [mode, summary] of Object.entries(report.modes)) {
      expect(summary.violations, mode).toBe(0);
      // Explored runs that never failed over would prove little: some must have restored.
      expect(summary.restores, mode).toBeGreaterThan(0);
    }
  }, 180_000);

  test('a sink that commits in snapshotState is caught, with a repro to replay', async () => {
    const failure = await explore({ job: commitsInSnapshot, modes: ['aligned'], runs: 100, seed: 41 })
      .then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(ExploreFailure);
    expect((failure as ExploreFailure).message).toMatch(/end-to-end-exactly-once violated in mode aligned/);
    expect((failure as ExploreFailure).message).toMatch(/replay: npx checkpoint-sim replay .*repro-ledger-commitsInSnapshotJob-aligned-41\.json/);
  }, 180_000);
});
