/**
 * explore's summary of the aborts and failovers that nothing explains (attribution.ts): a column
 * of the table, a line per mode with examples and the command that regenerates each run, and
 * modes.<mode>.unattributed in the JSON.
 */
import { describe, expect, test } from 'vitest';
import type { ExploreReport } from '../properties/explore/explore.ts';
import { printReport, toJson } from './commands/exploreCommand.ts';
import type { Io } from './program.ts';

/** An Io that keeps what is written. */
function capture(): Io & { stdout: string } {
  const io = {
    stdout: '',
    out(t: string) {
      io.stdout += t;
    },
    err() {},
  };
  return io;
}

describe('explore summary: unattributed aborts and failovers', () => {
  const mode = {
    runs: 10, violations: 0, checkpointsCompleted: 40, restores: 3, duplicatesAfterRestore: 7, missingRecords: 0, knownStuck: 0,
    unfiredFaults: 1, unfiredActions: 0, stateUnjudged: 0, stateUnjudgedReasons: {}, marks: {},
  };
  const report: ExploreReport = {
    job: 'generated', seed: 5, strategy: 'mixed', runsPerMode: 10, mutants: [], counterexamples: [], fanOut: { runs: 0, violations: 0, unfired: 0, rescaleRuns: 0, rescaleViolations: 0, rescaleUnfired: 0 },
    timing: { wallMs: 1000 },
    modes: { aligned: mode, 'at-least-once': mode },
  };

  test('aborts and failovers nothing explains are a column, a line per mode with examples and their replay command, '
    + 'and modes.<mode>.unattributed in the JSON', () => {
    const unattributed = { aborts: 1, failovers: 2, runs: 2, attributed: { fault: 9 }, examples: [
      { run: 7, path: '6', seed: 's9', seq: 1234, timeMs: 56.5, type: 'scheduler.taskFailed', reason: 'boom', chain: ['scheduler.taskFailed', 'host.boot'] },
      { run: 7, path: '6', seed: 's9', seq: 1240, timeMs: 56.5, type: 'checkpoint.aborted', checkpointId: 3,
        reason: 'CHECKPOINT_COORDINATOR_SUSPEND', chain: ['checkpoint.aborted', 'scheduler.taskFailed', 'host.boot'] },
      { run: 9, path: '8', seed: 's1', seq: 99, timeMs: 1, type: 'scheduler.globalFailure', reason: 'x', chain: ['scheduler.globalFailure'] },
    ] };
    const withUnattributed: ExploreReport = {
      ...report, mutants: ['sink-requires-notified-pending'], modes: { ...report.modes, aligned: { ...(report.modes['aligned'] as typeof mode), unattributed } },
    };
    const io = capture();
    // Every flag that decides the run is in the command (the mutant, the strategy, the record limit), or replay draws another.
    printReport(withUnattributed, io, [], { job: 'generated', expect: undefined, maxRecords: 10, maxParallelism: undefined });
    const lines = io.stdout.split('\n');
    expect(lines[2]).toMatch(/^aligned +10 +0 +40 +3 +7 +0 +1 +0 +3 *$/);
    expect(lines).toContain('aligned: 1 abort(s) and 2 failover(s) in 2 run(s) unattributed (no fault, action, limit, subsumption, '
      + 'finishing task or slow path on their cause chain; each a violation of property attribution)');
    expect(lines).toContain('  run 7 (path 6, seed s9): task failure (boom) at 56.5 ms, event #1234; its cause chain ends at host.boot '
      + '(npx checkpoint-sim replay --seed 5 --path 6 --mode aligned --job generated --strategy mixed --mutant sink-requires-notified-pending --max-records 10 --events)');
    expect(lines).toContain('  run 7 (path 6, seed s9): abort of checkpoint 3 (CHECKPOINT_COORDINATOR_SUSPEND) at 56.5 ms, event #1240; '
      + 'its cause chain ends at host.boot (npx checkpoint-sim replay --seed 5 --path 6 --mode aligned --job generated --strategy mixed --mutant sink-requires-notified-pending --max-records 10 --events)');
    expect(io.stdout).not.toContain('run 9');
    const json = toJson(withUnattributed) as { modes: Record<string, { unattributed?: unknown }>; counts: Record<string, string> };
    expect(json.modes['aligned']?.unattributed).toEqual(unattributed);
    expect(json.counts['unattributed']).toMatch(/a violation of property attribution/);
  });

});
