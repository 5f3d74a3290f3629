/**
 * pointReach: where a protocol point is reached in a trace, read from the trace events of the
 * point table (docs/scenarios.md; the same events the fault plan waits for, sim/run/FaultPlan.ts),
 * and the last point a run reached, for "step 1 never fired (last protocol point reached: ...)".
 * `actions` are the run's RunSpec actions (`RunResult.spec.actions`): a point naming a savepoint
 * (`savepoint(n)`) is about the id the n-th of them that triggers a savepoint got, read from the
 * `origin` of its `checkpoint.triggered` event (sim/run/savepointPoints.ts).
 *
 * - `first(trace, point, actions)`: the index of the event at which `point` is reached (the nth
 *   occurrence for sink, restore, job and execution points), or -1 (a savepoint that got no id: -1).
 * - `last(trace, point, actions)`: the last point of the same family the run reached: the same
 *   phase (on the same task when one is named) of any checkpoint, the last sink transaction of
 *   that phase, the last restore, the last job status, the last attempt (of the named task)
 *   entering the state (or, when none did, the last state any attempt of it entered); for a savepoint point, the last phase its
 *   id reached (or that it was never triggered); else the last completed checkpoint. A phrase such
 *   as `checkpoint 22 acked on v1#0 at 449.3 ms`, or `none`.
 */
import { FULLY_ACKNOWLEDGED_EVENTS, FullyAcknowledged } from '../sim/run/FullyAcknowledged.ts';
import type { Action } from '../sim/run/RunSpec.ts';
import { EXECUTION_EVENTS } from '../sim/run/schema/faultSchema.ts';
import { pointSavepoint, savepointCheckpointId } from '../sim/run/savepointPoints.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import type { ScenarioPoint } from './Scenario.ts';

const TASK_EVENTS: Record<string, string> = {
  triggered: 'checkpoint.taskTriggered', 'first-barrier': 'checkpoint.firstBarrier', aligned: 'checkpoint.aligned',
  'sync-done': 'checkpoint.syncDone', 'async-done': 'checkpoint.asyncDone', acked: 'checkpoint.acked',
  'ack-received': 'checkpoint.acknowledged', notified: 'checkpoint.taskNotified',
};
const JOB_MASTER_EVENTS: Record<string, string> = {
  triggered: 'checkpoint.triggered', 'coordinators-snapshotted': 'checkpoint.coordinatorsSnapshotted',
  acknowledged: 'checkpoint.acknowledged', completed: 'checkpoint.completed', notified: 'checkpoint.notifiedComplete',
};
const SINK_EVENTS: Record<string, string> = { 'pre-committed': 'txn.preCommit', committed: 'txn.commit' };
/** The trace events of execution points. */
const EXECUTION_EVENT_TYPES: ReadonlySet<string> = new Set(Object.values(EXECUTION_EVENTS));

/** The trace event type `point` waits for. */
function eventType(point: ScenarioPoint): string {
  switch (point.kind) {
    case 'task': return TASK_EVENTS[point.phase] ?? '';
    case 'jobmaster': return JOB_MASTER_EVENTS[point.phase] ?? '';
    case 'sink': return SINK_EVENTS[point.phase] ?? '';
    case 'restore': return 'checkpoint.restored';
    case 'job': return 'job.status';
    case 'execution': return EXECUTION_EVENTS[point.state];
  }
}

const taskOf = (e: TraceEvent): string => {
  const t = e.attrs['task'];
  return typeof t === 'string' ? (t.split('@')[0] ?? t) : '';
};

/**
 * Whether `e` is one occurrence of `point` (any checkpoint when `anyCheckpoint`); `id` is the
 * checkpoint id of a task or jobmaster point (the savepoint's, for one naming a savepoint).
 */
function occurrence(point: ScenarioPoint, e: TraceEvent, anyCheckpoint = false, id?: number): boolean {
  if (e.type !== eventType(point)) return false;
  switch (point.kind) {
    case 'task':
      return (anyCheckpoint || (id !== undefined && e.attrs['checkpointId'] === id))
        && (point.task === undefined || taskOf(e) === point.task);
    case 'jobmaster':
      return anyCheckpoint || (id !== undefined && e.attrs['checkpointId'] === id);
    case 'sink':
      return true;
    case 'restore': {
      // Restores from a checkpoint only (a restart from nothing records id -1), as the fault
      // plan and RunResult.restores count them.
      const id = Number(e.attrs['checkpointId']);
      return id > 0 && (anyCheckpoint || point.checkpoint === undefined || id === point.checkpoint);
    }
    case 'job':
      return anyCheckpoint || e.attrs['status'] === point.status;
    case 'execution':
      return point.task === undefined || taskOf(e) === point.task;
  }
}

/** True for a `jobmaster acknowledged` point, reached at the ack that completes its checkpoint. */
const isFullyAcknowledged = (point: ScenarioPoint): boolean => point.kind === 'jobmaster' && point.phase === 'acknowledged';

/**
 * A filter to call on every event of the trace, in order, before {@link occurrence}: for a
 * `jobmaster acknowledged` point true only at an ack that completes a checkpoint (it reads the
 * plans, as the fault plan does: sim/run/FullyAcknowledged.ts), for any other point always true.
 */
function completingAckFilter(point: ScenarioPoint): (e: TraceEvent) => boolean {
  if (!isFullyAcknowledged(point)) return () => true;
  const acks = new FullyAcknowledged();
  return (e) => ((FULLY_ACKNOWLEDGED_EVENTS as readonly string[]).includes(e.type) ? acks.observe(e) : true);
}

/** The checkpoint id a task or jobmaster point is about (a savepoint's as it got it), or undefined. */
function pointId(trace: readonly TraceEvent[], point: ScenarioPoint, actions: readonly Action[]): number | undefined {
  if (point.kind !== 'task' && point.kind !== 'jobmaster') return undefined;
  return point.savepoint === undefined ? point.checkpoint : savepointCheckpointId(trace, actions, point.savepoint);
}

function first(trace: readonly TraceEvent[], point: ScenarioPoint, actions: readonly Action[]): number {
  const nth = point.kind === 'task' || point.kind === 'jobmaster' ? 1 : (point.nth ?? 1);
  const id = pointId(trace, point, actions);
  const completing = completingAckFilter(point);
  let seen = 0;
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i] as TraceEvent;
    if (completing(e) && occurrence(point, e, false, id) && ++seen >= nth) return i;
  }
  return -1;
}

const ms = (e: TraceEvent): string => `${+(e.timeUs / 1000).toFixed(3)} ms`;

/**
 * One trace event of the point table as a phrase; `fullyAcknowledged` for an ack that completed
 * its checkpoint (a `jobmaster acknowledged` point).
 */
function phrase(e: TraceEvent, n: number, fullyAcknowledged = false): string {
  const id = e.attrs['checkpointId'];
  const task = taskOf(e);
  switch (e.type) {
    case 'checkpoint.restored':
      return `restore ${n} (from ${Number(id) > 0 ? `checkpoint ${String(id)}` : 'no checkpoint'}) at ${ms(e)}`;
    case 'job.status':
      return `job ${String(e.attrs['status'])} at ${ms(e)}`;
    case 'txn.preCommit':
    case 'txn.commit':
      return `sink transaction ${n} ${e.type === 'txn.commit' ? 'committed' : 'pre-committed'} at ${ms(e)}`;
    default: {
      if (e.type.startsWith('task.')) return `${String(e.attrs['task'])} ${e.type.slice('task.'.length).toUpperCase()} at ${ms(e)}`;
      if (fullyAcknowledged) return `checkpoint ${String(id)} fully acknowledged (last ack from ${task}) at ${ms(e)}`;
      const phase = Object.entries({ ...TASK_EVENTS, ...JOB_MASTER_EVENTS }).find(([, t]) => t === e.type)?.[0] ?? e.type;
      const what = e.attrs['savepoint'] === true ? `savepoint ${String(id)}` : `checkpoint ${String(id)}`;
      return `${what} ${phase}${task === '' ? '' : ` on ${task}`} at ${ms(e)}`;
    }
  }
}

/** For a point naming savepoint `n`: how far that savepoint got (its id's last point-table event). */
function lastOfSavepoint(trace: readonly TraceEvent[], n: number, actions: readonly Action[]): string {
  const id = savepointCheckpointId(trace, actions, n);
  if (id === undefined) return `savepoint ${n} was never triggered (its step never fired, or got no checkpoint id)`;
  const types = new Set([...Object.values(TASK_EVENTS), ...Object.values(JOB_MASTER_EVENTS)]);
  const lastOf = [...trace].reverse().find((e) => types.has(e.type) && e.attrs['checkpointId'] === id) as TraceEvent;
  return `savepoint ${n} (checkpoint id ${id}): ${phrase(lastOf, 0).replace(/^(savepoint|checkpoint) \d+ /, '')}`;
}

function last(trace: readonly TraceEvent[], point: ScenarioPoint, actions: readonly Action[]): string {
  const savepoint = pointSavepoint(point);
  if (savepoint !== undefined) return lastOfSavepoint(trace, savepoint, actions);
  let found: { e: TraceEvent; n: number } | undefined;
  let n = 0;
  const completing = completingAckFilter(point);
  for (const e of trace) {
    if (completing(e) && occurrence(point, e, true)) found = { e, n: ++n };
  }
  if (found !== undefined) return phrase(found.e, found.n, isFullyAcknowledged(point));
  if (point.kind === 'execution') {
    // No attempt entered that state: the last state any attempt (of the task, when named) entered.
    const change = [...trace].reverse().find((e) => EXECUTION_EVENT_TYPES.has(e.type) && (point.task === undefined || taskOf(e) === point.task));
    if (change !== undefined) return phrase(change, 0);
  }
  const completed = [...trace].reverse().find((e) => e.type === 'checkpoint.completed');
  return completed === undefined ? 'none' : phrase(completed, 0);
}

export const pointReach = { first, last, eventType };
