/**
 * The prompt-abort oracle: for each failure the CheckpointCoordinator learns of, the checkpoint it
 * concerns is aborted at once, with Flink's reason (reference 1.7 to 1.11). An engine that instead
 * leaves it pending stalls checkpointing for up to a whole timeout (with max concurrent 1 nothing
 * else is triggered meanwhile), and no other oracle notices: liveness tolerates a stall, and the
 * failure manager later sees an expiry, which it counts like the failure it replaced.
 *
 * It judges from when the coordinator's handler ran under its lock, never from when a message was
 * delivered: a decline delivered while a slow `_metadata` write holds the lock waits for it, and
 * may faithfully lose the race to the canceller. The rules, each a failure the handler learns of
 * while the checkpoint is pending (the oracle tracks pending itself: `checkpoint.triggered` until
 * `checkpoint.completed` or `checkpoint.aborted`):
 * - `decline` (receiveDeclineMessage, `checkpoint.declined`): aborted with the decline's reason;
 * - `trigger-failure` (`checkpoint.failureHandled` of triggerCheckpointRequest, whose trigger RPC
 *   to a task failed, or of onTriggerFailure: the coordinators' snapshot, a master hook or a
 *   trigger step failed): the failure's CheckpointException reason, else
 *   TRIGGER_CHECKPOINT_FAILURE (onTriggerFailure: an IOException anywhere gives IO_EXCEPTION);
 * - `finalize-failure` (`checkpoint.failureHandled` of completePendingCheckpoint: finalizing, the
 *   `_metadata` write or the completed-checkpoint store failed): FINALIZE_CHECKPOINT_FAILURE, or
 *   CHECKPOINT_DECLINED_TASK_CLOSING for a partly finished vertex with union state;
 * - `task-failure` (`scheduler.taskFailed` of an attempt the checkpoint waits for, or
 *   `scheduler.globalFailure`, while the job is RUNNING): Flink 1.20 has no
 *   failUnacknowledgedPendingCheckpointsFor any more; the failover moves the job out of RUNNING in
 *   the same main-thread step, and the CheckpointCoordinatorDeActivator's stopCheckpointScheduler
 *   aborts every pending checkpoint with CHECKPOINT_COORDINATOR_SUSPEND. When that stop has to
 *   wait for the lock (a `checkpoint.lockWait` of `stopCheckpointScheduler` the failure caused),
 *   the checkpoint may end in any way at the instant the holder releases the lock (the holder's
 *   own checkpoint ending, or a thread that waited before the stop taking the lock first).
 *
 * "At once" is checked by the trace's cause links: the abort must be recorded by the handler's
 * own work (its cause chain, at the handler's instant, reaches the handler's event). An expiry
 * after a handler processed a failure is always a violation (`expired-after-failure`); an abort
 * in the handler's work with another reason is `wrong-reason`; anything else (an abort later, a
 * completion, still pending at the end) is `not-aborted`. Each job run is judged on its own events.
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (receiveDeclineMessage,
 *      triggerCheckpointRequest, onTriggerFailure, completePendingCheckpoint, abortPendingCheckpoint,
 *      stopCheckpointScheduler), CheckpointCoordinatorDeActivator
 */
import { jobRunOf } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';

/** The oracle's property name. */
export const PROMPT_ABORT = 'prompt-abort';

/** The failures the coordinator learns of (see the file comment). */
export const PROMPT_ABORT_RULES = ['decline', 'trigger-failure', 'finalize-failure', 'task-failure'] as const;
export type PromptAbortRule = (typeof PROMPT_ABORT_RULES)[number];

/** The oracle's verdict: violations (at most {@link MAX_REPORTED}) and failures judged per rule. */
export interface PromptAbortJudgement {
  readonly violations: Violation[];
  readonly judged: Record<PromptAbortRule, number>;
}

const MAX_REPORTED = 5;
const SUSPEND = 'CHECKPOINT_COORDINATOR_SUSPEND';

/** A failure of a pending checkpoint that a handler processed: the checkpoint's obligation. */
interface Obligation {
  readonly rule: PromptAbortRule;
  readonly event: TraceEvent;
  readonly checkpointId: number;
  /** Flink's reason for the abort. */
  readonly expected: string;
  /** The stop's latest wait for the lock (task-failure), and the checkpoint whose completion held it. */
  lockWait?: TraceEvent;
  lockHolder?: number;
  /** When that holder released the lock, µs. */
  releasedUs?: number;
}

/** One job run's state while its events are replayed. */
interface RunState {
  status: string;
  readonly plans: Map<number, readonly string[]>;
  /** Pending checkpoints: id -> the attempts it waits for. */
  readonly pending: Map<number, readonly string[]>;
  readonly obligations: Map<number, Obligation[]>;
}

/** Flink's abort reason for a failure a `checkpoint.failureHandled` handler was given. */
function reasonOfHandled(e: TraceEvent): { rule: PromptAbortRule; expected: string } | undefined {
  const failure = e.attrs['failure'];
  const carried = typeof e.attrs['failureReason'] === 'string' ? e.attrs['failureReason'] : undefined;
  switch (e.attrs['handler']) {
    case 'triggerCheckpointRequest':
      return { rule: 'trigger-failure', expected: carried ?? 'TRIGGER_CHECKPOINT_FAILURE' };
    case 'onTriggerFailure':
      return { rule: 'trigger-failure', expected: failure === 'IOException' ? 'IO_EXCEPTION' : carried ?? 'TRIGGER_CHECKPOINT_FAILURE' };
    case 'completePendingCheckpoint':
      return {
        rule: 'finalize-failure',
        expected: carried === 'CHECKPOINT_DECLINED_TASK_CLOSING' ? carried : 'FINALIZE_CHECKPOINT_FAILURE',
      };
    default:
      return undefined;
  }
}

/** The stored event with `seq`, by binary search (the trace is in `seq` order). */
function bySeq(trace: readonly TraceEvent[], seq: number | undefined): TraceEvent | undefined {
  if (seq === undefined) return undefined;
  let lo = 0;
  let hi = trace.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = trace[mid] as TraceEvent;
    if (e.seq === seq) return e;
    if (e.seq < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Whether `e` was recorded by `origin`'s own work: its cause chain, at `origin`'s instant, reaches it. */
function causedAtOnce(trace: readonly TraceEvent[], e: TraceEvent, origin: TraceEvent): boolean {
  let x: TraceEvent | undefined = e;
  for (let i = 0; i < 1000 && x !== undefined && x.seq > origin.seq && x.timeUs === origin.timeUs; i++) {
    x = bySeq(trace, x.cause);
  }
  return x?.seq === origin.seq;
}

const ms = (us: number): number => us / 1000;

function describeEnd(end: TraceEvent | undefined): string {
  if (end === undefined) return 'it was still pending when the run ended';
  if (end.type === 'checkpoint.completed') return `it completed at ${ms(end.timeUs)} ms instead`;
  return `it was aborted (${String(end.attrs['reason'])}) at ${ms(end.timeUs)} ms`;
}

/** The violation of obligation `o`, whose checkpoint ended with `end` (undefined: never). */
function violation(trace: readonly TraceEvent[], o: Obligation, end: TraceEvent | undefined): Violation {
  const inHandler = end !== undefined && end.type === 'checkpoint.aborted' && causedAtOnce(trace, end, o.event);
  const kind = end?.attrs['reason'] === 'CHECKPOINT_EXPIRED' ? 'expired-after-failure' : inHandler ? 'wrong-reason' : 'not-aborted';
  const learned = `${describeLearned(o)} at ${ms(o.event.timeUs)} ms`;
  const summary = kind === 'wrong-reason'
    ? `checkpoint ${o.checkpointId} was aborted with ${String(end?.attrs['reason'])} when ${learned}, where Flink aborts it with ${o.expected}`
    : `checkpoint ${o.checkpointId} was not aborted when ${learned} (Flink aborts it at once with ${o.expected}): ${describeEnd(end)}`;
  return {
    property: PROMPT_ABORT,
    summary,
    details: {
      kind, rule: o.rule, checkpointId: o.checkpointId, expectedReason: o.expected, learnedAtMs: ms(o.event.timeUs),
      learnedBy: { seq: o.event.seq, type: o.event.type, ...o.event.attrs },
      ...(end === undefined ? { end: 'pending' } : {
        end: end.type, endAtMs: ms(end.timeUs), stalledMs: ms(end.timeUs - o.event.timeUs),
        ...(end.attrs['reason'] === undefined ? {} : { endReason: end.attrs['reason'] }),
      }),
      ...(o.lockHolder === undefined ? {} : { stopWaitedForLockOf: o.lockHolder }),
    },
    timeMs: ms(end?.timeUs ?? o.event.timeUs),
  };
}

function describeLearned(o: Obligation): string {
  const a = o.event.attrs;
  switch (o.rule) {
    case 'decline': return `${String(a['task'])} declined it (${String(a['reason'])})`;
    case 'trigger-failure': return `${String(a['handler'])} handled a failure of its trigger (${String(a['failureReason'] ?? a['failure'])})`;
    case 'finalize-failure': return `its completion failed (${String(a['failureReason'] ?? a['failure'])})`;
    case 'task-failure': return o.event.type === 'scheduler.globalFailure'
      ? `the job failed globally (${String(a['cause'])})` : `task ${String(a['task'])} failed`;
  }
}

/** Whether obligation `o` is met by `end`, an event that ends its checkpoint. */
function met(trace: readonly TraceEvent[], o: Obligation, end: TraceEvent): boolean {
  if (o.lockHolder !== undefined) {
    // The stop waited for the lock: whatever ends the checkpoint at the release (or the holder's
    // own end, when the holder is this checkpoint) is what Flink's monitor lets happen first.
    return o.lockHolder === o.checkpointId || end.timeUs === o.releasedUs;
  }
  return end.type === 'checkpoint.aborted' && end.attrs['reason'] === o.expected && causedAtOnce(trace, end, o.event);
}

/**
 * Judges `result`'s checkpoints against the prompt-abort rules (see the file comment).
 * @returns the violations (at most 5) and how many failures each rule judged.
 */
export function promptAbortJudgement(result: RunResult): PromptAbortJudgement {
  const judged: Record<PromptAbortRule, number> = { 'decline': 0, 'trigger-failure': 0, 'finalize-failure': 0, 'task-failure': 0 };
  const violations: Violation[] = [];
  if (result.spec.checkpoint.mode === 'none') return { violations, judged };
  const trace = result.trace;
  const multiRun = result.jobRuns.length > 1;
  const runs = new Map<number, RunState>();
  const report = (run: number, v: Violation): void => {
    if (violations.length >= MAX_REPORTED) return;
    violations.push(multiRun ? { ...v, summary: `job run ${run}: ${v.summary}`, details: { ...(v.details as object), jobRun: run } } : v);
  };
  const oblige = (s: RunState, o: Obligation): void => {
    judged[o.rule]++;
    const list = s.obligations.get(o.checkpointId);
    if (list === undefined) s.obligations.set(o.checkpointId, [o]);
    else list.push(o);
  };
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i] as TraceEvent;
    const type = e.type;
    if (!RELEVANT.has(type)) continue;
    const run = jobRunOf(e.attrs);
    let s = runs.get(run);
    if (s === undefined) runs.set(run, s = { status: 'CREATED', plans: new Map(), pending: new Map(), obligations: new Map() });
    step(trace, s, e, (o) => oblige(s, o), (v) => report(run, v));
  }
  for (const [run, s] of runs) {
    for (const list of s.obligations.values()) {
      // A stop still waiting for the lock when the run ended (a budget cut it) is not judged.
      for (const o of list) if (o.lockHolder === undefined || o.releasedUs !== undefined) report(run, violation(trace, o, undefined));
    }
  }
  return { violations, judged };
}

const RELEVANT: ReadonlySet<string> = new Set([
  'job.status', 'checkpoint.plan', 'checkpoint.triggered', 'checkpoint.completed', 'checkpoint.aborted',
  'checkpoint.declined', 'checkpoint.failureHandled', 'scheduler.taskFailed', 'scheduler.globalFailure', 'checkpoint.lockWait',
]);

/** One event's effect on run state `s`. */
function step(trace: readonly TraceEvent[], s: RunState, e: TraceEvent, oblige: (o: Obligation) => void,
  report: (v: Violation) => void): void {
  const id = Number(e.attrs['checkpointId']);
  switch (e.type) {
    case 'job.status':
      s.status = String(e.attrs['status']);
      return;
    case 'checkpoint.plan':
      s.plans.set(id, String(e.attrs['waitFor'] ?? '').split(',').filter((t) => t !== ''));
      return;
    case 'checkpoint.triggered':
      s.pending.set(id, s.plans.get(id) ?? []);
      return;
    case 'checkpoint.completed':
    case 'checkpoint.aborted':
      ended(trace, s, e, id, report);
      return;
    case 'checkpoint.declined':
      if (s.pending.has(id) && typeof e.attrs['reason'] === 'string') {
        oblige({ rule: 'decline', event: e, checkpointId: id, expected: e.attrs['reason'] });
      }
      return;
    case 'checkpoint.failureHandled': {
      const r = reasonOfHandled(e);
      if (r !== undefined && s.pending.has(id)) oblige({ ...r, event: e, checkpointId: id });
      return;
    }
    case 'scheduler.taskFailed':
    case 'scheduler.globalFailure':
      if (s.status !== 'RUNNING') return;
      for (const [pid, waitFor] of s.pending) {
        if (e.type === 'scheduler.globalFailure' || waitFor.includes(String(e.attrs['task']))) {
          oblige({ rule: 'task-failure', event: e, checkpointId: pid, expected: SUSPEND });
        }
      }
      return;
    case 'checkpoint.lockWait':
      if (e.attrs['waiter'] === 'stopCheckpointScheduler') stopWaits(trace, s, e);
      return;
    default:
      return;
  }
}

/**
 * A stop waits for the lock: the task-failure obligations whose failure caused the wait note the
 * holder. A stop woken at a release may find a new holder (a thread woken before it completed a
 * checkpoint) and wait again, its new wait caused by the old one.
 */
function stopWaits(trace: readonly TraceEvent[], s: RunState, wait: TraceEvent): void {
  const holder = /completePendingCheckpoint (\d+)/.exec(String(wait.attrs['holder']))?.[1];
  if (holder === undefined) return;
  for (const list of s.obligations.values()) {
    for (const o of list) {
      if (o.rule !== 'task-failure') continue;
      const ours = o.lockWait === undefined ? causedAtOnce(trace, wait, o.event) : wait.cause === o.lockWait.seq;
      if (!ours) continue;
      o.lockWait = wait;
      o.lockHolder = Number(holder);
      delete o.releasedUs;
    }
  }
}

/** Checkpoint `id` of run `s` ended with `e`: its obligations are judged, and a holder's release noted. */
function ended(trace: readonly TraceEvent[], s: RunState, e: TraceEvent, id: number, report: (v: Violation) => void): void {
  s.pending.delete(id);
  for (const list of s.obligations.values()) {
    for (const o of list) if (o.lockHolder === id && o.checkpointId !== id && o.releasedUs === undefined) o.releasedUs = e.timeUs;
  }
  const list = s.obligations.get(id);
  if (list === undefined) return;
  s.obligations.delete(id);
  for (const o of list) if (!met(trace, o, e)) report(violation(trace, o, e));
}

/** The oracle as judgeRun runs it: the violations only. */
export function promptAbort(result: RunResult): Violation[] {
  return promptAbortJudgement(result).violations;
}
