/**
 * restartWindowArbitrary: the targeted strategy's restart window (ExploreStrategy.ts). A user's
 * savepoint, stop-with-savepoint or rescale can arrive while the job is RESTARTING, and a bug in
 * how the coordinator plans a checkpoint then (FLINK-40482, the planted
 * `plan-terminal-as-finished`) needs three things together: some task already FINISHED, some
 * other attempt terminal (FAILED or CANCELED, not yet replaced), and the request inside the
 * restart delay. Independent faults at drawn times rarely line them up (about 1 run in 1,500 in
 * the measurements of docs/planted-bugs.md); this draw does it on purpose.
 *
 * In one targeted run in four (shrinking toward none), TaskManagers of the first job run pause
 * right after the n-th task attempt (n = 1 or 2) entered FINISHED on its TaskExecutor (an
 * `execution` point), for the heartbeat timeout plus 5 to 200 ms: the JobMaster loses them, fails
 * every attempt on them, and the job goes RESTARTING with the finished task FINISHED. At that
 * RESTARTING a savepoint or a stop-with-savepoint (drained or not) is asked for; a savepoint when
 * the run already has a stop (a run has at most one). Two shapes:
 *
 * - `lose: 'one'` (two windows in three): one drawn TaskManager pauses, and a generated job is
 *   run as four pipelined failover regions (forwardRegionsJob: every stage fed forward at one
 *   parallelism of 4, two TaskManagers of two slots). Whichever TaskManager pauses, some region
 *   fails while another still runs (unless every task already finished), which is the shape in
 *   which Flink's coordinator meets a plan with some tasks FINISHED, some FAILED and some RUNNING.
 *   A region failover moves the job to RESTARTING too (the scheduler's restart of the failed
 *   region), so the request fires there.
 * - `lose: 'all'`: every TaskManager pauses, so every attempt not FINISHED fails at once.
 *
 * The correct engine refuses the request (NOT_ALL_REQUIRED_TASKS_RUNNING: a task to wait for does
 * not run); the window only makes sure the question is asked. Drawn last among the targeted
 * strategy's fields, so its other draws stay what they were; the other strategies never draw it.
 */
import fc from 'fast-check';
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../engine/index.ts';
import type { Action, Fault } from '../../sim/run/RunSpec.ts';
import type { GeneratedJobSpec } from '../../sim/workloads/generatedJob.ts';

/** What the request at RESTARTING is. */
export const RESTART_WINDOW_REQUESTS = ['savepoint', 'stop', 'stop-drain'] as const;

/** A drawn restart window. */
export interface RestartWindow {
  /** Which task attempt's FINISHED (1st or 2nd of the run) the pauses wait for. */
  readonly nth: number;
  /** How far past the heartbeat timeout each pause lasts, ms (5..200). */
  readonly extraMs: number;
  readonly request: typeof RESTART_WINDOW_REQUESTS[number];
  /** Pause one TaskManager (the `host`-th, 1-based, modulo the run's count) or all of them. */
  readonly lose: 'one' | 'all';
  readonly host: number;
  /**
   * The run's restart delay, ms (fixed-delay): long enough for a savepoint of the regions still
   * running to finish before the failed region restarts (which aborts it, JOB_FAILOVER_REGION),
   * as it has under Flink's default of 1 s.
   */
  readonly restartDelayMs: number;
}

/**
 * A windowed run heals no earlier than this many target spans (sourcePacing.ts): its pauses wait
 * for a task FINISHED, which comes at the end of the input, often after the usual heal time.
 */
export const RESTART_WINDOW_HEAL_SPANS = 3;

/** The parallelism of every operator of a generated job in a `lose: 'one'` window. */
export const RESTART_WINDOW_REGIONS = 4;

/** A restart window in one run in four, else none (the shrink target). */
export function restartWindowArbitrary(): fc.Arbitrary<RestartWindow | undefined> {
  return fc.record({
    on: fc.integer({ min: 0, max: 3 }),
    nth: fc.constantFrom(1, 2),
    extraMs: fc.integer({ min: 5, max: 200 }),
    request: fc.constantFrom(...RESTART_WINDOW_REQUESTS),
    lose: fc.constantFrom<'one' | 'all'>('one', 'one', 'all'),
    host: fc.integer({ min: 1, max: 2 }),
    restartDelayMs: fc.constantFrom(100, 1000),
  }).map(({ on, ...w }) => (on === 3 ? w : undefined));
}

/**
 * A generated job as `parallelism` pipelined failover regions: its keyed and union-state stages
 * dropped (they are fed by keyBy or rebalance, which joins every subtask into one region), every
 * other stage and the sink fed forward at `parallelism`, so source, stages and sink chain into
 * one task per subtask and each subtask is its own region. Its splits are kept: a source subtask
 * with a short split, or none, finishes while the others still read.
 */
export function forwardRegionsJob(spec: GeneratedJobSpec, parallelism: number): GeneratedJobSpec {
  const stages = spec.stages.flatMap((st) => (st.kind === 'keyed' || st.kind === 'splitOwners' ? []
    : [{ ...st, parallelism, rebalance: false }]));
  return { ...spec, stages, sourceParallelism: parallelism, sinkParallelism: parallelism };
}

/**
 * The window's faults and action for a run whose first job run has `taskManagers` TaskManagers
 * (`taskmanager-1` to `taskmanager-<n>`), given the actions the run already has. Without
 * savepoints (`withAction` false) only the pauses: the failover after a task finished is still a
 * schedule worth exploring. Pauses last the default heartbeat timeout (25 ms; explore's runs do
 * not set their own) plus `extraMs`.
 */
export function restartWindowPlan(w: RestartWindow, taskManagers: number, actions: readonly Action[],
  withAction: boolean): { faults: Fault[]; actions: Action[] } {
  const durationMs = DEFAULT_CLUSTER_CONFIGURATION.heartbeatTimeoutUs / 1000 + w.extraMs;
  const hosts = w.lose === 'all' ? Array.from({ length: taskManagers }, (_x, i) => i + 1)
    : [((w.host - 1) % taskManagers) + 1];
  const faults = hosts.map((n): Fault => ({
    type: 'pause', host: `taskmanager-${n}`, durationMs,
    when: { at: { kind: 'execution', state: 'FINISHED', nth: w.nth, jobRun: 1 } },
  }));
  if (!withAction) return { faults, actions: [] };
  const when = { at: { kind: 'job', status: 'RESTARTING', nth: 1, jobRun: 1 } } as const;
  const hasStop = actions.some((a) => a.type === 'stop-with-savepoint');
  const action: Action = w.request === 'savepoint' || hasStop
    ? { type: 'savepoint', when }
    : { type: 'stop-with-savepoint', drain: w.request === 'stop-drain', when };
  return { faults, actions: [action] };
}
