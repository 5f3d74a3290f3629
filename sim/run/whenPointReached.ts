/**
 * Protocol points: which trace event a point of a fault's or an action's trigger waits for
 * (`checkpoint 3 aligned on v1#0`, `jobmaster acknowledged`, `the 2nd restore`, ...), whether an
 * event is one, and {@link whenPointReached}, which arms a point on a world. FaultPlan and
 * ActionPlan both arm their triggers through it. The table of points is in FaultPlan.ts.
 */
import { jobRunOf } from '../../engine/index.ts';
import type { MiniCluster } from '../MiniCluster.ts';
import type { TraceEvent } from '../Trace.ts';
import type { World } from '../World.ts';
import type { Action, ProtocolPoint } from './RunSpec.ts';
import { FULLY_ACKNOWLEDGED_EVENTS, FullyAcknowledged } from './FullyAcknowledged.ts';
import { actionOrigin, pointSavepoint, savepointActionIndex } from './savepointPoints.ts';
import { EXECUTION_EVENTS } from './schema/faultSchema.ts';

const TASK_EVENTS = {
  triggered: 'checkpoint.taskTriggered', 'first-barrier': 'checkpoint.firstBarrier', aligned: 'checkpoint.aligned',
  'sync-done': 'checkpoint.syncDone', 'async-done': 'checkpoint.asyncDone', acked: 'checkpoint.acked',
  'ack-received': 'checkpoint.acknowledged', notified: 'checkpoint.taskNotified',
} as const;
const JOB_MASTER_EVENTS = {
  triggered: 'checkpoint.triggered', 'coordinators-snapshotted': 'checkpoint.coordinatorsSnapshotted',
  acknowledged: 'checkpoint.acknowledged', completed: 'checkpoint.completed', notified: 'checkpoint.notifiedComplete',
} as const;
const SINK_EVENTS = { 'pre-committed': 'txn.preCommit', committed: 'txn.commit' } as const;

/** The trace event type a protocol point waits for. */
export function pointEventType(point: ProtocolPoint): string {
  switch (point.kind) {
    case 'task': return TASK_EVENTS[point.phase];
    case 'jobmaster': return JOB_MASTER_EVENTS[point.phase];
    case 'sink': return SINK_EVENTS[point.phase];
    case 'restore': return 'checkpoint.restored';
    case 'job': return 'job.status';
    case 'execution': return EXECUTION_EVENTS[point.state];
  }
}

/** The occurrence of a point that fires it: sink, restore, job and execution points count, others fire on the first. */
export function pointOccurrence(point: ProtocolPoint): number {
  return point.kind === 'sink' || point.kind === 'restore' || point.kind === 'job' || point.kind === 'execution'
    ? point.nth ?? 1 : 1;
}

/**
 * True if `e` is (one occurrence of) `point`; sink, restore, job and execution points also need the n-th
 * occurrence, and a `jobmaster acknowledged` point the ack that left nothing to wait for
 * ({@link completingAckFilter}). A point naming a savepoint (`savepoint: n`) matches only events of `savepointId`,
 * the checkpoint id that savepoint got (savepointPoints.ts); without it, none.
 */
export function matchesPoint(point: ProtocolPoint, e: TraceEvent, savepointId?: number): boolean {
  if (e.type !== pointEventType(point)) return false;
  if (!matchesJobRun(point, e)) return false;
  switch (point.kind) {
    case 'sink':
      return true;
    case 'restore': {
      const id = e.attrs['checkpointId'];
      return typeof id === 'number' && id > 0 && (point.checkpoint === undefined || id === point.checkpoint);
    }
    case 'job':
      return e.attrs['status'] === point.status;
    case 'execution':
      return ofTask(point.task, e);
    default:
      break;
  }
  const id = point.savepoint === undefined ? point.checkpoint : savepointId;
  if (id === undefined || e.attrs['checkpointId'] !== id) return false;
  return point.kind === 'jobmaster' || ofTask(point.task, e);
}

/** True when `task` (`<vertex>#<subtask>`) is absent or `e`'s task attempt is one of its. */
function ofTask(task: string | undefined, e: TraceEvent): boolean {
  if (task === undefined) return true;
  const attempt = e.attrs['task'];
  return typeof attempt === 'string' && attempt.startsWith(`${task}@`);
}

/**
 * True when `e` is of the job run `point` names: its `jobRun`, or run 1 for a point naming a
 * checkpoint (a later run numbers on from the checkpoint it restored, so ids can recur across
 * runs); a point naming neither matches every run.
 */
function matchesJobRun(point: ProtocolPoint, e: TraceEvent): boolean {
  if (point.kind === 'sink') return true;
  const namesCheckpoint = point.kind === 'task' || point.kind === 'jobmaster' || (point.kind === 'restore' && point.checkpoint !== undefined);
  const wanted = point.jobRun ?? (namesCheckpoint ? 1 : undefined);
  return wanted === undefined || jobRunOf(e.attrs) === wanted;
}

/**
 * The events a watch of `point` reads besides its own type: the plans, for `jobmaster acknowledged`.
 */
function watchedTypes(point: ProtocolPoint): string[] {
  const own = pointEventType(point);
  return point.kind === 'jobmaster' && point.phase === 'acknowledged' ? [...new Set([own, ...FULLY_ACKNOWLEDGED_EVENTS])] : [own];
}

/**
 * A filter to call on every watched event of `point`, in trace order, before matching it: for
 * `jobmaster acknowledged` true only at the ack that completes a checkpoint (it keeps the plans'
 * state), for any other point always true.
 */
function completingAckFilter(point: ProtocolPoint): (e: TraceEvent) => boolean {
  if (point.kind !== 'jobmaster' || point.phase !== 'acknowledged') return () => true;
  const acks = new FullyAcknowledged();
  return (e) => ((FULLY_ACKNOWLEDGED_EVENTS as readonly string[]).includes(e.type) ? acks.observe(e) : true);
}

/**
 * Calls `reached` once, when `point` is reached the n-th time it needs (pointOccurrence): right
 * after the task that recorded the point's trace event, or at time 0 for a job point of run 1 or
 * no run that the cluster reached while it booted (before any plan is installed: the only point
 * reached before the run starts). Faults and actions both arm their points through it. `actions`
 * are the spec's, which a point naming a savepoint counts (savepointPoints.ts): it is reached at
 * its phase's event of the id that savepoint's action got (from the `checkpoint.triggered` event
 * whose origin is that action), and never if it got none.
 */
export function whenPointReached(cluster: MiniCluster, point: ProtocolPoint, label: string, reached: () => void,
  actions: readonly Action[]): void {
  const world = cluster.world;
  const savepoint = pointSavepoint(point);
  if (savepoint !== undefined) {
    whenSavepointPointReached(world, point, savepointActionIndex(actions, savepoint), reached);
    return;
  }
  const nth = pointOccurrence(point);
  const bootedInto = cluster.jobManagerProcess.jobMaster.graph.jobStatus;
  let seen = point.kind === 'job' && (point.jobRun ?? 1) === cluster.jobMasters.length && bootedInto === point.status ? 1 : 0;
  if (seen >= nth) {
    world.at(0, label, reached);
    return;
  }
  let done = false;
  const completing = completingAckFilter(point);
  const unsubscribe = world.onTrace((e) => completing(e) && matchesPoint(point, e), () => {
    // Handlers run after the task that recorded the events, so one task that reaches the point
    // several times (a sink committing many epochs in one step) calls several: only the first
    // past `nth` counts (a fault or an action fires at most once).
    if (done) return;
    seen++;
    if (seen < nth) return;
    done = true;
    unsubscribe();
    reached();
  }, { types: watchedTypes(point) });
}

/**
 * whenPointReached for a point naming the savepoint of action `actionIndex`: learns the id from
 * the `checkpoint.triggered` event whose origin is that action, then waits for the phase's event
 * of that id. The id is learnt in the handlers, which run in the order the events were recorded,
 * so a phase event recorded in the same task after the trigger still finds it. No action (the
 * spec names a savepoint it lacks, which validateRunSpec refuses): never reached.
 */
function whenSavepointPointReached(world: World, point: ProtocolPoint, actionIndex: number | undefined,
  reached: () => void): void {
  if (actionIndex === undefined) return;
  const origin = actionOrigin(actionIndex);
  const type = pointEventType(point);
  const isTrigger = (e: TraceEvent): boolean => e.type === 'checkpoint.triggered' && e.attrs['origin'] === origin;
  let id: number | undefined;
  let done = false;
  const completing = completingAckFilter(point);
  const unsubscribe = world.onTrace(
    // Until the id is known, every event of the phase's type may be the one (its handler decides).
    (e) => completing(e) && (isTrigger(e) || (e.type === type && (id === undefined || e.attrs['checkpointId'] === id))),
    (e) => {
      if (done) return;
      if (id === undefined) {
        if (!isTrigger(e)) return;
        id = e.attrs['checkpointId'] as number;
      }
      if (!matchesPoint(point, e, id)) return;
      done = true;
      unsubscribe();
      reached();
    },
    { types: [...new Set(['checkpoint.triggered', ...watchedTypes(point)])] },
  );
}
