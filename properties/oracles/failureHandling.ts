/**
 * The failure-handling oracle: checkpoint failures make the job fail over exactly when Flink's
 * CheckpointFailureManager rule says so. It refines ORACLES.md 5 (protocol invariants over the
 * trace) and 7 ("exceeding the tolerable checkpoint failures only triggers a global failover,
 * which the restart strategy then handles"): liveness only sees a job that never recovers once
 * faults stop, while a failure manager that counts wrong either fails a healthy job over or
 * silently keeps a failing one running, and faults that stop at the heal time hide both.
 *
 * It replays the trace through {@link ReferenceFailureManager} (the rule written from the
 * reference, never the engine's code) and follows each failure along the chain Flink takes:
 * 1. `checkpoint.aborted`: every abort is reported to the failure manager at once (Flink's
 *    abortPendingCheckpoint always hands the failure over);
 * 2. `checkpoint.failureReported` (id, reason, the declining attempt of a task-level failure,
 *    savepoint flags): every failure handed to the failure manager, which the model decides;
 *    `checkpoint.completed` are the successes (reported only once the checkpoint is in the
 *    completed-checkpoint store, reference 1.9);
 * 3. `checkpoint.failJobEnqueued` (numbered, `job` or `task` level): the failure manager's
 *    callback, due at once from the report whose failure fails the job, and only then;
 * 4. `checkpoint.failJobRun`: the callback running on the JobMaster main thread, later; a
 *    task-level one records the attempt's state then, which decides (RUNNING or INITIALIZING
 *    fails the job, a cancelled or superseded attempt does not), not its state at the failure;
 * 5. `scheduler.globalFailure` whose cause is a checkpoint failure (its cause starts with a
 *    failure reason, the CheckpointException message): the failover, due at once from a run that
 *    fails the job while it is RUNNING or RESTARTING (`job.status`), and only then.
 * A checkpoint may complete while a callback waits for the main thread; that is no violation.
 *
 * Violations (the first one only: after it the engine's counter and the rule's differ, and
 * later disagreements follow from the first):
 * - `unreported-failure`: a checkpoint was aborted and the failure manager never heard of it;
 * - `spurious-failover` (SPURIOUS-FAIL): a callback for a failure the rule does not make fail
 *   the job (one it ignores, or one within the tolerable number), or a failover that no callback
 *   run explains (one whose attempt was gone when it ran);
 * - `wrong-callback`: the callback is not the rule's (`failJob` for a task-level failure skips
 *   the attempt check; FLINK-13593), or not for the failing attempt;
 * - `missing-failover` (STUCK, silently): the rule makes a failure fail the job, and no callback
 *   follows, or it never runs, or it runs and must fail the job, and no failover follows.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointFailureManager (reference 1.11),
 *      org.apache.flink.runtime.executiongraph.DefaultExecutionGraph (its FailJobCallback)
 */
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import {
  failsTheJobWhenRun, isCheckpointFailureReason, ReferenceFailureManager, type CheckpointFailure,
  type FailJobCallback, type FailureDecision,
} from './referenceFailureManager.ts';

/** The oracle's property name. */
export const FAILURE_HANDLING = 'failure-handling';

/** Job statuses in which a failover can happen (DefaultScheduler.handleGlobalFailure). */
const FAILABLE: ReadonlySet<string> = new Set(['RUNNING', 'RESTARTING']);

interface JudgedFailure {
  readonly event: TraceEvent;
  readonly failure: CheckpointFailure;
  readonly decision: FailureDecision;
  /** The counter before the failure, for the report. */
  readonly counterBefore: number;
}

/** A fail callback the failure manager enqueued for `judged`. */
interface Callback {
  readonly judged: JudgedFailure;
  readonly callback: FailJobCallback;
  readonly enqueued: TraceEvent;
}

/** A callback that ran; `fails` when it fails the job. */
interface Run {
  readonly callback: Callback;
  readonly event: TraceEvent;
  readonly fails: boolean;
}

/** The checkpoint failure of a `checkpoint.failureReported` event. */
function failureOf(e: TraceEvent): CheckpointFailure {
  const a = e.attrs;
  return {
    checkpointId: Number(a['checkpointId']),
    reason: String(a['reason']),
    ...(a['task'] === undefined ? {} : { task: String(a['task']) }),
    ...(a['savepoint'] === true ? { savepoint: true, synchronous: a['synchronous'] === true } : {}),
  };
}

/** Whether report `r` hands over the failure of abort `a` (same instant, id and reason). */
function reports(r: TraceEvent, a: TraceEvent): boolean {
  return r.timeUs === a.timeUs && r.attrs['checkpointId'] === a.attrs['checkpointId']
    && r.attrs['reason'] === a.attrs['reason'];
}

/**
 * The checkpoint failure reason a failover's cause starts with (the CheckpointException message
 * is `REASON` or `REASON: message`); undefined for a failover with another cause.
 */
function causeReason(e: TraceEvent): string | undefined {
  const head = String(e.attrs['cause'] ?? '').split(':', 1)[0] ?? '';
  return isCheckpointFailureReason(head) ? head : undefined;
}

const ms = (e: TraceEvent): number => e.timeUs / 1000;

function describe(j: JudgedFailure): object {
  return {
    checkpointId: j.failure.checkpointId,
    reason: j.failure.reason,
    ...(j.failure.task === undefined ? {} : { task: j.failure.task }),
    counterBefore: j.counterBefore,
    decision: j.decision.action,
    why: j.decision.why,
    atMs: ms(j.event),
  };
}

/** `checkpoint N failed (REASON) at T ms and WHY` (`savepoint N`, `synchronous savepoint N` for one). */
function failed(j: JudgedFailure): string {
  const what = j.failure.savepoint !== true ? 'checkpoint' : j.failure.synchronous === true ? 'synchronous savepoint' : 'savepoint';
  return `${what} ${j.failure.checkpointId} failed (${j.failure.reason}) at ${ms(j.event)} ms and `
    + j.decision.why;
}

function violation(kind: string, summary: string, details: object, timeMs: number): Violation {
  return { property: FAILURE_HANDLING, summary, details: { kind, ...details }, timeMs };
}

function unreported(a: TraceEvent): Violation {
  return violation('unreported-failure', `unreported failure: checkpoint ${String(a.attrs['checkpointId'])} `
    + `was aborted (${String(a.attrs['reason'])}) at ${ms(a)} ms, and the failure manager was never told`,
  { abort: a.attrs }, ms(a));
}

function noCallback(j: JudgedFailure): Violation {
  return violation('missing-failover', `missing failover: ${failed(j)}, yet the failure manager did not `
    + `call ${j.decision.callback ?? 'failJob'}`, { failure: describe(j) }, ms(j.event));
}

function neverRan(c: Callback): Violation {
  return violation('missing-failover', `missing failover: ${failed(c.judged)}, yet its ${c.callback} `
    + `callback, enqueued at ${ms(c.enqueued)} ms, never ran`, { failure: describe(c.judged) }, ms(c.enqueued));
}

function noFailover(r: Run): Violation {
  const task = r.event.attrs['task'];
  const attempt = task === undefined ? '' : ` (attempt ${String(task)} ${String(r.event.attrs['taskState'])})`;
  return violation('missing-failover', `missing failover: ${failed(r.callback.judged)}, yet the job did not `
    + `fail over when ${r.callback.callback} ran at ${ms(r.event)} ms${attempt}`,
  { failure: describe(r.callback.judged), ranAtMs: ms(r.event) }, ms(r.event));
}

function spuriousCallback(e: TraceEvent, j: JudgedFailure | undefined): Violation {
  const level = e.attrs['level'] === 'task' ? 'failJobDueToTaskFailure' : 'failJob';
  return violation('spurious-failover', j === undefined
    ? `spurious failover: the failure manager called ${level} at ${ms(e)} ms with no failure reported just before`
    : `spurious failover: ${failed(j)}, yet the failure manager called ${level}`,
  { cause: e.attrs['cause'], ...(j === undefined ? {} : { failure: describe(j) }) }, ms(e));
}

function wrongCallback(e: TraceEvent, j: JudgedFailure, callback: FailJobCallback): Violation {
  const task = e.attrs['task'];
  return violation('wrong-callback', `wrong callback: ${failed(j)}, so the failure manager must call `
    + `${j.decision.callback ?? 'failJob'}${j.failure.task === undefined ? '' : ` for ${j.failure.task}`}, `
    + `yet it called ${callback}${task === undefined ? '' : ` for ${String(task)}`}`,
  { failure: describe(j), callback, ...(task === undefined ? {} : { task }) }, ms(e));
}

function spuriousFailover(e: TraceEvent, r: Run | undefined): Violation {
  const summary = r === undefined
    ? `spurious failover: the job failed over for a checkpoint failure (${String(e.attrs['cause'])}) `
      + 'that no fail callback run at that instant explains'
    : `spurious failover: ${failed(r.callback.judged)}, and when ${r.callback.callback} ran the attempt `
      + `${String(r.event.attrs['task'])} was ${String(r.event.attrs['taskState'])}, yet the job failed over`;
  return violation('spurious-failover', summary, {
    cause: e.attrs['cause'],
    ...(r === undefined ? {} : { failure: describe(r.callback.judged), taskState: r.event.attrs['taskState'] }),
  }, ms(e));
}

/** The chain's state while the trace is replayed; each method returns the violation, if any. */
class FailureChain {
  private readonly model: ReferenceFailureManager;
  private status = 'CREATED';
  /** The latest abort, not yet reported (reports follow at once, so one at a time). */
  private abort: TraceEvent | undefined;
  /** The latest report, for explaining a callback the rule does not ask for. */
  private lastReport: JudgedFailure | undefined;
  /** A report whose failure fails the job, its callback not yet enqueued. */
  private due: JudgedFailure | undefined;
  /** Callbacks enqueued and not yet run, by number. */
  readonly enqueued = new Map<number, Callback>();
  /** The latest run, for explaining a failover. */
  private lastRun: Run | undefined;
  /** A run that fails the job, its failover not yet seen. */
  private owed: Run | undefined;

  constructor(tolerable: number) {
    this.model = new ReferenceFailureManager(tolerable);
  }

  /** Links that had to follow at once and did not, by the time of `e` (undefined: the end). */
  overdue(e: TraceEvent | undefined): Violation | undefined {
    const t = e?.timeUs ?? Number.POSITIVE_INFINITY;
    if (this.abort !== undefined && t > this.abort.timeUs) return unreported(this.abort);
    if (this.due !== undefined && t > this.due.event.timeUs) return noCallback(this.due);
    if (this.owed !== undefined && t > this.owed.event.timeUs) return noFailover(this.owed);
    return undefined;
  }

  jobStatus(e: TraceEvent): undefined {
    this.status = String(e.attrs['status']);
    return undefined;
  }

  completed(e: TraceEvent): undefined {
    this.model.success(Number(e.attrs['checkpointId']));
    return undefined;
  }

  aborted(e: TraceEvent): Violation | undefined {
    if (this.abort !== undefined) return unreported(this.abort);
    this.abort = e;
    return undefined;
  }

  reported(e: TraceEvent): Violation | undefined {
    if (this.due !== undefined) return noCallback(this.due);
    if (this.abort !== undefined && reports(e, this.abort)) this.abort = undefined;
    const failure = failureOf(e);
    const counterBefore = this.model.failureCounter;
    const judged: JudgedFailure = { event: e, failure, decision: this.model.failure(failure), counterBefore };
    this.lastReport = judged;
    if (judged.decision.action === 'fail') this.due = judged;
    return undefined;
  }

  callbackEnqueued(e: TraceEvent): Violation | undefined {
    const callback: FailJobCallback = e.attrs['level'] === 'task' ? 'failJobDueToTaskFailure' : 'failJob';
    const j = this.due;
    if (j === undefined) {
      return spuriousCallback(e, this.lastReport?.event.timeUs === e.timeUs ? this.lastReport : undefined);
    }
    const task = e.attrs['task'];
    if (j.decision.callback !== callback || (callback === 'failJobDueToTaskFailure' && task !== j.failure.task)) {
      return wrongCallback(e, j, callback);
    }
    this.due = undefined;
    this.enqueued.set(Number(e.attrs['callback']), { judged: j, callback, enqueued: e });
    return undefined;
  }

  callbackRun(e: TraceEvent): undefined {
    const n = Number(e.attrs['callback']);
    const c = this.enqueued.get(n);
    // A callback the oracle did not accept was reported when it was enqueued.
    if (c === undefined) return undefined;
    this.enqueued.delete(n);
    const taskState = e.attrs['taskState'];
    const fails = failsTheJobWhenRun(c.callback, typeof taskState === 'string' ? taskState : undefined);
    this.lastRun = { callback: c, event: e, fails };
    if (fails && FAILABLE.has(this.status)) this.owed = this.lastRun;
    return undefined;
  }

  globalFailure(e: TraceEvent): Violation | undefined {
    // Global failures with other causes (faults, a failed stop) are not judged.
    if (causeReason(e) === undefined) return undefined;
    if (this.owed !== undefined && this.owed.event.timeUs === e.timeUs) {
      this.owed = undefined;
      return undefined;
    }
    return spuriousFailover(e, this.lastRun?.event.timeUs === e.timeUs ? this.lastRun : undefined);
  }

  /** A trace event's step along the chain. */
  step(e: TraceEvent): Violation | undefined {
    switch (e.type) {
      case 'job.status': return this.jobStatus(e);
      case 'checkpoint.completed': return this.completed(e);
      case 'checkpoint.aborted': return this.aborted(e);
      case 'checkpoint.failureReported': return this.reported(e);
      case 'checkpoint.failJobEnqueued': return this.callbackEnqueued(e);
      case 'checkpoint.failJobRun': return this.callbackRun(e);
      case 'scheduler.globalFailure': return this.globalFailure(e);
      default: return undefined;
    }
  }
}

/** Judges `result`'s checkpoint failure handling; at most one violation. */
export function failureHandling(result: RunResult): Violation[] {
  const cp = result.spec.checkpoint;
  if (cp.mode === 'none') return [];
  const chain = new FailureChain(cp.tolerableFailures);
  // An indexed loop: a for-of loop allocated about 28 bytes per trace event (the iterator's
  // results were not optimized away), some 65 KB per run.
  const trace = result.trace;
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i] as TraceEvent;
    const v = chain.overdue(e) ?? chain.step(e);
    if (v !== undefined) return [v];
  }
  const end = chain.overdue(undefined);
  if (end !== undefined) return [end];
  // A run cut by a budget may end with a callback still waiting for the main thread; liveness
  // reports such a run.
  const budgetHit = result.outcome.reason === 'max-events' || result.outcome.reason === 'max-time';
  const waiting = chain.enqueued.values().next().value;
  return waiting === undefined || budgetHit ? [] : [neverRan(waiting)];
}
