/**
 * scenarioDefaults: what a scenario runs with unless it says otherwise (docs/scenarios.md,
 * "Defaults"). Sized so that a default run takes about twenty checkpoints: flights records
 * 0..2000 in 16 splits at parallelism 2 (two TaskManagers of one slot each, so a crash of one
 * leaves the other running), a checkpoint every 20 ms: the job finishes at about 450 virtual ms
 * after 22 completed checkpoints (measured: seed `scenario:probe`).
 *
 * - `timeoutMs` 200 (ten intervals; Flink's default is ten minutes): a lost ack lets its
 *   checkpoint expire well inside the run.
 * - The heal time comes late (5 s, about ten times the job's length), so every step can fire
 *   before it; the budgets (20 s of virtual time, 3 million events) let a job that restarts
 *   several times finish, and stop one that never does.
 * - A crash without `downMs` keeps the TaskManager down for three heartbeat timeouts
 *   (`crashDownHeartbeats` x heartbeat.timeoutMs, 75 ms by default), so the JobMaster notices
 *   it by heartbeat and the job can run again long before the heal time.
 */
import type { JobSpec } from '../sim/run/RunSpec.ts';

export const SCENARIO_DEFAULTS = {
  job: { kind: 'flights', selection: { from: 0, to: 2000 } } satisfies JobSpec as JobSpec,
  parallelism: 2,
  slotsPerTaskManager: 1,
  checkpoint: { mode: 'aligned', intervalMs: 20, timeoutMs: 200 },
  healTimeMs: 5000,
  budgets: { maxEvents: 3_000_000, maxTimeMs: 20_000 },
  /** Flink-like default heartbeat timeout of the RunSpec (expandRunSpec), ms. */
  heartbeatTimeoutMs: 25,
  crashDownHeartbeats: 3,
} as const;
