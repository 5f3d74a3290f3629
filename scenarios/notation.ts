/**
 * notation: points, actions and expectations written back as the TypeScript builders that make
 * them (`checkpoint(3).ackSentBy('v1#0')`, `savepoint(1).completed()`,
 * `lose('confirmCheckpoint').of(4)`, `triggerSavepoint()`, `stopWithSavepoint({ drain: true })`,
 * `expect.checkpointAborted(4, 'CHECKPOINT_EXPIRED')`), so a failure names them as the author
 * wrote them, whichever form the scenario was written in.
 */
import type { CountBound, ScenarioExpectation, ScenarioPoint, StepAction } from './Scenario.ts';

const q = (s: string): string => `'${s}'`;

const TASK_BUILDERS: Record<string, string> = {
  triggered: 'triggeredOn', 'first-barrier': 'firstBarrierOn', aligned: 'alignedOn', 'sync-done': 'syncDoneOn',
  'async-done': 'asyncDoneOn', acked: 'ackSentBy', 'ack-received': 'ackReceived', notified: 'notified',
};
const JOB_MASTER_BUILDERS: Record<string, string> = {
  triggered: 'triggered', 'coordinators-snapshotted': 'coordinatorsSnapshotted', acknowledged: 'fullyAcknowledged',
  completed: 'completed', notified: 'notificationsSent',
};

/** `checkpoint(3)`, or `savepoint(1)` for a point naming the first savepoint step. */
function of(p: { readonly checkpoint?: number; readonly savepoint?: number }): string {
  return p.savepoint === undefined ? `checkpoint(${String(p.checkpoint)})` : `savepoint(${p.savepoint})`;
}

function point(p: ScenarioPoint): string {
  switch (p.kind) {
    case 'task':
      return `${of(p)}.${TASK_BUILDERS[p.phase] ?? p.phase}(${p.task === undefined ? '' : q(p.task)})`;
    case 'jobmaster':
      return `${of(p)}.${JOB_MASTER_BUILDERS[p.phase] ?? p.phase}()`;
    case 'sink':
      return `sinkTransaction(${p.nth}).${p.phase === 'committed' ? 'committed' : 'preCommitted'}()`;
    case 'restore':
      if (p.checkpoint !== undefined) return `restoreFrom(${p.checkpoint}${p.nth === undefined || p.nth === 1 ? '' : `, { nth: ${p.nth} }`})`;
      return `restore(${p.nth ?? 1})`;
    case 'job': {
      const opts = [p.nth === undefined || p.nth === 1 ? '' : `nth: ${p.nth}`, p.jobRun === undefined ? '' : `jobRun: ${p.jobRun}`]
        .filter((o) => o !== '');
      return `job.reaches(${q(p.status)}${opts.length === 0 ? '' : `, { ${opts.join(', ')} }`})`;
    }
    case 'execution': {
      const opts = [p.task === undefined ? '' : `task: ${q(p.task)}`, p.nth === undefined || p.nth === 1 ? '' : `nth: ${p.nth}`,
        p.jobRun === undefined ? '' : `jobRun: ${p.jobRun}`].filter((o) => o !== '');
      return `execution.reaches(${q(p.state)}${opts.length === 0 ? '' : `, { ${opts.join(', ')} }`})`;
    }
  }
}

function action(a: StepAction): string {
  switch (a.type) {
    case 'crash': return `crash(${q(a.host)}${a.downMs === undefined ? '' : `, { downMs: ${a.downMs} }`})`;
    case 'pause': return `pause(${q(a.host)}, ${a.durationMs})`;
    case 'partition': return `partition(${q(a.a)}, ${q(a.b)}, { durationMs: ${a.durationMs}${a.oneWay === undefined ? '' : `, oneWay: ${a.oneWay}`} })`;
    case 'global-failure': return 'globalFailure()';
    case 'slow-task': return `slowTask(${q(a.operator)}, ${a.factor}, ${a.durationMs})`;
    case 'coordinator-stall': return `coordinatorStall(${a.durationMs}${a.operator === undefined ? '' : `, ${q(a.operator)}`})`;
    case 'message': {
      const args = a.action === 'delay' ? `, ${a.delayMs ?? '?'}` : a.action === 'hold' && a.durationMs !== undefined ? `, ${a.durationMs}` : '';
      let s = `${a.action}(${q(a.method)}${args})`;
      if (a.checkpoint !== undefined) s += `.of(${a.checkpoint})`;
      if (a.from !== undefined) s += `.from(${q(a.from)})`;
      if (a.to !== undefined) s += `.to(${q(a.to)})`;
      if (a.nth !== undefined) s += `.nth(${a.nth})`;
      return s;
    }
    case 'cancel': return 'cancel()';
    case 'rescale': {
      const options = [...(a.via === undefined ? [] : [`via: ${q(a.via)}`]), ...(a.claimMode === undefined ? [] : [`claimMode: ${q(a.claimMode)}`])];
      return `rescale(${JSON.stringify(a.parallelism)}${options.length === 0 ? '' : `, { ${options.join(', ')} }`})`;
    }
    case 'savepoint': return `triggerSavepoint(${a.format === undefined ? '' : `{ format: ${q(a.format)} }`})`;
    case 'stop-with-savepoint': {
      const options = [...(a.drain === undefined ? [] : [`drain: ${a.drain}`]), ...(a.format === undefined ? [] : [`format: ${q(a.format)}`])];
      return `stopWithSavepoint(${options.length === 0 ? '' : `{ ${options.join(', ')} }`})`;
    }
  }
}

function bound(b: CountBound): string {
  const parts = (['atLeast', 'atMost', 'exactly'] as const).flatMap((k) => (b[k] === undefined ? [] : [`${k}: ${b[k]}`]));
  return `{ ${parts.join(', ')} }`;
}

function expectation(e: ScenarioExpectation): string {
  switch (e.kind) {
    case 'checkpointsCompleted':
    case 'restores':
    case 'duplicates':
    case 'failovers':
      return `expect.${e.kind}(${bound(e)})`;
    case 'checkpointCompleted': return `expect.checkpointCompleted(${e.checkpoint}${e.jobRun === undefined ? '' : `, { jobRun: ${e.jobRun} }`})`;
    case 'checkpointAborted': return `expect.checkpointAborted(${e.checkpoint}${e.reason === undefined ? (e.jobRun === undefined ? '' : ', undefined') : `, ${q(e.reason)}`}`
      + `${e.jobRun === undefined ? '' : `, { jobRun: ${e.jobRun} }`})`;
    case 'restoredFrom': return `expect.restoredFrom(${e.checkpoint}${e.nth === undefined ? '' : `, { nth: ${e.nth} }`})`;
    case 'jobStatus': return `expect.jobStatus(${q(e.status)})`;
    case 'markReached': return `expect.markReached(${q(e.name)})`;
    case 'markNotReached': return `expect.markNotReached(${q(e.name)})`;
    case 'savepointAborted': return `expect.savepointAborted(${e.savepoint}${e.reason === undefined ? '' : `, ${q(e.reason)}`})`;
    case 'savepointFailed': return `expect.savepointFailed(${e.savepoint}${e.reason === undefined ? '' : `, ${q(e.reason)}`})`;
    case 'savepointCompleted':
    case 'savepointNotSubsumed':
    case 'savepointNotNotified':
    case 'savepointTransactionsCommitted':
      return `expect.${e.kind}(${e.savepoint})`;
    case 'jobRun': {
      const { kind: _k, jobRun, ...o } = e;
      return `expect.jobRun(${jobRun}${Object.keys(o).length === 0 ? '' : `, ${JSON.stringify(o)}`})`;
    }
    case 'fullCheckpoint': return `expect.fullCheckpoint(${e.checkpoint}${e.jobRun === undefined ? '' : `, { jobRun: ${e.jobRun} }`})`;
    case 'at': return `expect.at(${point(e.point)}, ${expectation(e.expect)})`;
  }
}

export const notation = { point, action, expectation };
