/**
 * The failure-handling oracle: checkpoint failures make the job fail over exactly when Flink's
 * CheckpointFailureManager rule says so. It refines ORACLES.md 5 (protocol invariants over the
 * trace) and 7 ("exceeding the tolerable checkpoint failures only triggers a global failover,
 * which the restart strategy then handles"): liveness only sees a job that never recovers once
 * faults stop, while a failure manager that counts wrong either fails a healthy job over or
 * silently keeps a failing one running, and faults that stop at the heal time hide both.
 *
 * It replays the trace through {@link ReferenceFailureManager} (the rule written from the
 * reference, never the engine's code), fed with what happened:
 * - `checkpoint.failureReported` (id, reason, the declining attempt of a task-level failure,
 *   savepoint flags): every failure handed to the failure manager, the failures; a decline's
 *   attempt state is the one its `checkpoint.aborted` recorded;
 * - `checkpoint.aborted`: every abort must be reported, at once (Flink's abortPendingCheckpoint
 *   always hands the failure over);
 * - `checkpoint.completed`: the successes (a completion is reported only once the checkpoint is
 *   in the completed-checkpoint store, reference 1.9);
 * - `job.status`: a job that is not RUNNING or RESTARTING cannot be failed over;
 * - `scheduler.globalFailure`: the failovers. One whose cause is a checkpoint failure (its cause
 *   starts with a failure reason, the CheckpointException message) was caused by the failure
 *   recorded last at the same instant.
 *
 * Violations (the first one only: after it the engine's counter and the rule's differ, and
 * later disagreements follow from the first):
 * - `unreported-failure`: a checkpoint was aborted and the failure manager never heard of it;
 * - `spurious-failover` (SPURIOUS-FAIL): a failover caused by a checkpoint failure that the rule
 *   does not make fail the job (a failure it ignores, one within the tolerable number, or one of
 *   an attempt that is no longer current and running);
 * - `missing-failover` (STUCK, silently): the rule makes a failure fail the job, and no global
 *   failover follows before the next checkpoint completes or the run ends.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointFailureManager (reference 1.11)
 */
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import {
  isCheckpointFailureReason, ReferenceFailureManager, type CheckpointFailure, type FailureDecision,
} from './referenceFailureManager.ts';

/** The oracle's property name. */
export const FAILURE_HANDLING = 'failure-handling';

/** Job statuses in which a failover can happen (DefaultScheduler.handleGlobalFailure). */
const FAILABLE: ReadonlySet<string> = new Set(['RUNNING', 'RESTARTING']);

interface JudgedFailure {
  readonly event: TraceEvent;
  readonly failure: CheckpointFailure;
  readonly decision: FailureDecision;
  /** The failures recorded just before, for the report. */
  readonly counterBefore: number;
}

/**
 * The checkpoint failure of a `checkpoint.failureReported` event; a task-level one takes its
 * attempt's state from `abort`, the abort it reports.
 */
function failureOf(e: TraceEvent, abort: TraceEvent | undefined): CheckpointFailure {
  const a = e.attrs;
  const taskState = abort?.attrs['taskState'];
  return {
    checkpointId: Number(a['checkpointId']),
    reason: String(a['reason']),
    ...(a['task'] !== undefined ? { taskState: typeof taskState === 'string' ? taskState : 'UNKNOWN' } : {}),
    ...(a['savepoint'] === true ? { savepoint: true, synchronous: a['synchronous'] === true } : {}),
  };
}

/** Whether report `r` hands over the failure of abort `a` (same instant, id and reason). */
function reports(r: TraceEvent, a: TraceEvent): boolean {
  return r.timeUs === a.timeUs && r.attrs['checkpointId'] === a.attrs['checkpointId']
    && r.attrs['reason'] === a.attrs['reason'];
}

function unreported(a: TraceEvent): Violation {
  return {
    property: FAILURE_HANDLING,
    summary: `unreported failure: checkpoint ${String(a.attrs['checkpointId'])} was aborted `
      + `(${String(a.attrs['reason'])}) at ${a.timeUs / 1000} ms, and the failure manager was never told`,
    details: { kind: 'unreported-failure', abort: a.attrs },
    timeMs: a.timeUs / 1000,
  };
}

/**
 * The checkpoint failure reason a failover's cause starts with (the CheckpointException message
 * is `REASON` or `REASON: message`); undefined for a failover with another cause.
 */
function causeReason(e: TraceEvent): string | undefined {
  const head = String(e.attrs['cause'] ?? '').split(':', 1)[0] ?? '';
  return isCheckpointFailureReason(head) ? head : undefined;
}

function spurious(e: TraceEvent, cause: JudgedFailure | undefined, tolerable: number): Violation {
  return {
    property: FAILURE_HANDLING,
    summary: cause === undefined
      ? `spurious failover: the job failed over for a checkpoint failure (${String(e.attrs['cause'])}) `
        + 'that no checkpoint failure at that instant explains'
      : `spurious failover: checkpoint ${cause.failure.checkpointId} failed (${cause.failure.reason}) `
        + `and ${cause.decision.why}, yet the job failed over`,
    details: {
      kind: 'spurious-failover', tolerableFailures: tolerable, cause: e.attrs['cause'],
      ...(cause === undefined ? {} : { failure: describe(cause) }),
    },
    timeMs: e.timeUs / 1000,
  };
}

function describe(j: JudgedFailure): object {
  return {
    checkpointId: j.failure.checkpointId,
    reason: j.failure.reason,
    ...(j.failure.taskState === undefined ? {} : { task: j.event.attrs['task'], taskState: j.failure.taskState }),
    counterBefore: j.counterBefore,
    decision: j.decision.action,
    why: j.decision.why,
    atMs: j.event.timeUs / 1000,
  };
}

/** Judges `result`'s checkpoint failure handling; at most one violation. */
export function failureHandling(result: RunResult): Violation[] {
  const cp = result.spec.checkpoint;
  if (cp.mode === 'none') return [];
  const tolerable = cp.tolerableFailures;
  const model = new ReferenceFailureManager(tolerable);
  let status = 'CREATED';
  /** The failures of the latest instant that had any, not yet matched with a failover. */
  let instant: JudgedFailure[] = [];
  /** A failure that must fail the job over and has not yet. */
  let owed: JudgedFailure | undefined;
  /** The latest abort not yet reported (reported at once, so at most one at a time). */
  let abort: TraceEvent | undefined;
  const missing = (j: JudgedFailure, until: string, timeMs: number): Violation => ({
    property: FAILURE_HANDLING,
    summary: `missing failover: checkpoint ${j.failure.checkpointId} failed (${j.failure.reason}) `
      + `at ${j.event.timeUs / 1000} ms and ${j.decision.why}, yet the job did not fail over `
      + `before ${until}`,
    details: { kind: 'missing-failover', tolerableFailures: tolerable, failure: describe(j), until },
    timeMs,
  });
  // An indexed loop: this for-of loop allocated about 28 bytes per trace event (the iterator's
  // results were not optimized away), some 65 KB per run.
  const trace = result.trace;
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i] as TraceEvent;
    if (abort !== undefined && e.timeUs > abort.timeUs) return [unreported(abort)];
    switch (e.type) {
      case 'job.status':
        status = String(e.attrs['status']);
        break;
      case 'checkpoint.completed': {
        const id = Number(e.attrs['checkpointId']);
        if (owed !== undefined) return [missing(owed, `checkpoint ${id} completed`, e.timeUs / 1000)];
        model.success(id);
        break;
      }
      case 'checkpoint.aborted':
        if (abort !== undefined) return [unreported(abort)];
        abort = e;
        break;
      case 'checkpoint.failureReported': {
        const reported = abort !== undefined && reports(e, abort) ? abort : undefined;
        if (reported !== undefined) abort = undefined;
        const failure = failureOf(e, reported);
        const counterBefore = model.failureCounter;
        const decision = model.failure(failure);
        const judged: JudgedFailure = { event: e, failure, decision, counterBefore };
        if (instant.length > 0 && (instant[0] as JudgedFailure).event.timeUs !== e.timeUs) instant = [];
        instant.push(judged);
        if (decision.action === 'fail' && FAILABLE.has(status) && owed === undefined) owed = judged;
        break;
      }
      case 'scheduler.globalFailure': {
        owed = undefined;
        const reason = causeReason(e);
        if (reason === undefined) break;
        // The failure that caused it: the latest one of this instant with the cause's reason.
        // (`e` itself is not captured: a closure over the loop variable would allocate a
        // context for every event of the trace, another 65 KB per run.)
        const timeUs = e.timeUs;
        const cause = instant.filter((j) => j.event.timeUs === timeUs && j.failure.reason === reason).pop();
        instant = instant.filter((j) => j !== cause);
        if (cause?.decision.action === 'fail') break;
        return [spurious(e, cause, tolerable)];
      }
      default:
        break;
    }
  }
  if (abort !== undefined) return [unreported(abort)];
  return owed === undefined ? [] : [missing(owed, 'the run ended', result.outcome.timeMs)];
}
