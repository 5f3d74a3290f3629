/**
 * restartWindowArbitrary: the targeted strategy's restart window (ExploreStrategy.ts). A user's
 * savepoint, stop-with-savepoint or rescale can arrive while the job is RESTARTING, and a bug in
 * how the coordinator plans a checkpoint then (FLINK-40482, the planted
 * `plan-terminal-as-finished`) needs three things together: some task already FINISHED, every
 * other attempt terminal (FAILED or CANCELED, not yet replaced), and the request inside the
 * restart delay. Independent faults at drawn times rarely line them up (about 1 run in 1,500 in
 * the measurements of docs/planted-bugs.md); this draw does it on purpose.
 *
 * In one targeted run in four (shrinking toward none), every TaskManager of the first job run
 * pauses right after the n-th task attempt (n = 1 or 2) entered FINISHED on its TaskExecutor
 * (an `execution` point), for the heartbeat timeout plus 5 to 200 ms: the JobMaster loses them
 * all at about the same time, fails every attempt on them at once, and the job goes RESTARTING
 * with the finished task FINISHED and every other one FAILED. At that RESTARTING a savepoint or a
 * stop-with-savepoint (drained or not) is asked for; a savepoint when the run already has a stop
 * (a run has at most one). The correct engine refuses that request
 * (NOT_ALL_REQUIRED_TASKS_RUNNING); the window only makes sure the question is asked.
 *
 * Drawn last among the targeted strategy's fields, so its other draws stay what they were; the
 * other strategies never draw it.
 */
import fc from 'fast-check';
import { DEFAULT_CLUSTER_CONFIGURATION } from '../../engine/index.ts';
import type { Action, Fault } from '../../sim/run/RunSpec.ts';

/** What the request at RESTARTING is. */
export const RESTART_WINDOW_REQUESTS = ['savepoint', 'stop', 'stop-drain'] as const;

/** A drawn restart window. */
export interface RestartWindow {
  /** Which task attempt's FINISHED (1st or 2nd of the run) the pauses wait for. */
  readonly nth: number;
  /** How far past the heartbeat timeout each pause lasts, ms (5..200). */
  readonly extraMs: number;
  readonly request: typeof RESTART_WINDOW_REQUESTS[number];
}

/** A restart window in one run in four, else none (the shrink target). */
export function restartWindowArbitrary(): fc.Arbitrary<RestartWindow | undefined> {
  return fc.record({
    on: fc.integer({ min: 0, max: 3 }),
    nth: fc.constantFrom(1, 2),
    extraMs: fc.integer({ min: 5, max: 200 }),
    request: fc.constantFrom(...RESTART_WINDOW_REQUESTS),
  }).map(({ on, ...w }) => (on === 3 ? w : undefined));
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
  const faults = Array.from({ length: taskManagers }, (_x, i): Fault => ({
    type: 'pause', host: `taskmanager-${i + 1}`, durationMs,
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
