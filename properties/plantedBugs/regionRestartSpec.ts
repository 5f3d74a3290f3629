/**
 * The schedule that shows `plan-terminal-as-finished` (FLINK-40482) where Flink shows it too: a
 * job of three pipelined regions (a generated job whose source, map and sink are chained, one
 * chain per subtask, so each subtask is its own failover region), one TaskManager per region.
 * Subtask 0 gets the one-record split (the enumerator hands splits out on request) and FINISHED early; subtask 1's TaskManager pauses past the heartbeat
 * timeout, so only its region fails (FAILED) and the job goes RESTARTING while subtask 2 still
 * runs; `action` is asked for at that RESTARTING. The buggy plan counts the FAILED attempt as
 * finished and waits for subtask 2 alone (a non-empty plan: Flink's PendingCheckpoint accepts it);
 * the correct one refuses (subtask 1 is to be waited for and does not run). Used by the planted
 * bug's test and by the mutant suite.
 */
import { RUN_SPEC_VERSION, type Action, type RunSpec } from '../../sim/run/RunSpec.ts';

export function regionRestartSpec(action: Action, mutations: readonly string[], pauseAtMs = 100): RunSpec {
  return {
    version: RUN_SPEC_VERSION, seed: 'plan-terminal-as-finished-regions',
    job: {
      kind: 'generated',
      spec: {
        records: [Array.from({ length: 60 }, (_x, i) => i % 7), [1], Array.from({ length: 60 }, (_x, i) => i % 5)],
        stages: [{ kind: 'map', fn: 0, parallelism: 3, rebalance: false }],
        sourceParallelism: 3, sinkParallelism: 3, maxParallelism: 128,
      },
    },
    parallelism: {}, taskManagers: 3, slotsPerTaskManager: 1, costsMs: { 'gen-source': 5 },
    checkpoint: { mode: 'aligned', intervalMs: 20, maxConcurrent: 1, tolerableFailures: 0 },
    restartStrategy: { kind: 'fixed-delay', attempts: 'unlimited', delayMs: 10 },
    faults: [{ type: 'pause', host: 'v0#1', when: { atMs: pauseAtMs }, durationMs: 40 }],
    actions: [action],
    healTimeMs: 2000, budgets: { maxEvents: 2_000_000, maxTimeMs: 30_000 }, overrides: [], mutations: [...mutations],
  };
}
