/**
 * `checkpoint(n)`: the protocol points of checkpoint `n` (an id, from 1), as plain data for a
 * step's `at` or an `expect.at` (the point table: docs/scenarios.md). A task is named
 * `<vertex>#<subtask>` (`v1#0`) and matches any attempt of that subtask; where the task is
 * optional, leaving it out matches any task.
 *
 * | builder | point | trace event |
 * |---|---|---|
 * | `triggered()` | jobmaster triggered | `checkpoint.triggered` |
 * | `triggeredOn(task?)` | task triggered (sources) | `checkpoint.taskTriggered` |
 * | `firstBarrierOn(task?)` | task first-barrier | `checkpoint.firstBarrier` |
 * | `alignedOn(task?)` | task aligned | `checkpoint.aligned` |
 * | `syncDoneOn(task?)` | task sync-done | `checkpoint.syncDone` |
 * | `asyncDoneOn(task?)` | task async-done | `checkpoint.asyncDone` |
 * | `ackSentBy(task?)` | task acked | `checkpoint.acked` |
 * | `ackReceived(task?)` | task ack-received | `checkpoint.acknowledged` |
 * | `coordinatorsSnapshotted()` | jobmaster coordinators-snapshotted | `checkpoint.coordinatorsSnapshotted` |
 * | `fullyAcknowledged()` | jobmaster acknowledged | the last `checkpoint.acknowledged` its plan waits for |
 * | `completed()` | jobmaster completed | `checkpoint.completed` |
 * | `notified(task?)` | task notified | `checkpoint.taskNotified` |
 * | `notificationsSent()` | jobmaster notified | `checkpoint.notifiedComplete` |
 *
 * @throws SimInputError when `n` (or a job run) is not an integer >= 1.
 */
import { checkBuilderOptions } from './builderOptions.ts';
import { SimInputError } from '../sim/SimInputError.ts';
import type { ScenarioPoint } from './Scenario.ts';

type TaskPhaseName = 'triggered' | 'first-barrier' | 'aligned' | 'sync-done' | 'async-done' | 'acked'
  | 'ack-received' | 'notified';

/** The points of one checkpoint. */
export interface CheckpointPoints {
  triggered(): ScenarioPoint;
  triggeredOn(task?: string): ScenarioPoint;
  firstBarrierOn(task?: string): ScenarioPoint;
  alignedOn(task?: string): ScenarioPoint;
  syncDoneOn(task?: string): ScenarioPoint;
  asyncDoneOn(task?: string): ScenarioPoint;
  ackSentBy(task?: string): ScenarioPoint;
  ackReceived(task?: string): ScenarioPoint;
  coordinatorsSnapshotted(): ScenarioPoint;
  /** Every task in the plan acknowledged: the coordinator begins writing its `_metadata`. */
  fullyAcknowledged(): ScenarioPoint;
  completed(): ScenarioPoint;
  notified(task?: string): ScenarioPoint;
  notificationsSent(): ScenarioPoint;
}

/**
 * `options.jobRun`: the checkpoint of that job run (ids start again after each restore into a
 * new run: a `rescale` step); default the first run.
 */
export function checkpoint(n: number, options: { readonly jobRun?: number } = {}): CheckpointPoints {
  if (!Number.isSafeInteger(n) || n < 1) throw new SimInputError(`checkpoint(${String(n)}): a checkpoint id is an integer >= 1`);
  checkBuilderOptions(`checkpoint(${n})`, options, ['jobRun']);
  const run = options.jobRun;
  if (run !== undefined && (!Number.isSafeInteger(run) || run < 1)) {
    throw new SimInputError(`checkpoint(${n}, { jobRun: ${String(run)} }): a job run is an integer >= 1`);
  }
  return pointsOf(run === undefined ? { checkpoint: n } : { checkpoint: n, jobRun: run });
}

/**
 * The task and jobmaster points of one checkpoint: `{ checkpoint: id }` (checkpoint(n)) or
 * `{ savepoint: n }` (savepoint(n): the id the n-th savepoint step got), the field every point
 * built here carries.
 */
export function pointsOf(ref: ({ readonly checkpoint: number } | { readonly savepoint: number }) & { readonly jobRun?: number }): CheckpointPoints {
  const task = (phase: TaskPhaseName) => (t?: string): ScenarioPoint =>
    (t === undefined ? { kind: 'task', ...ref, phase } : { kind: 'task', ...ref, phase, task: t });
  const jobmaster = (phase: 'triggered' | 'coordinators-snapshotted' | 'acknowledged' | 'completed' | 'notified') => (): ScenarioPoint =>
    ({ kind: 'jobmaster', ...ref, phase });
  return {
    triggered: jobmaster('triggered'),
    triggeredOn: task('triggered'),
    firstBarrierOn: task('first-barrier'),
    alignedOn: task('aligned'),
    syncDoneOn: task('sync-done'),
    asyncDoneOn: task('async-done'),
    ackSentBy: task('acked'),
    ackReceived: task('ack-received'),
    coordinatorsSnapshotted: jobmaster('coordinators-snapshotted'),
    fullyAcknowledged: jobmaster('acknowledged'),
    completed: jobmaster('completed'),
    notified: task('notified'),
    notificationsSent: jobmaster('notified'),
  };
}
