/**
 * Oracle 5 of ORACLES.md, protocol invariants over the trace of a run:
 *
 * - `ids-increase`: the ids of `checkpoint.triggered` strictly increase;
 * - `complete-after-all-acks`: a checkpoint completes only after every task of its plan
 *   (`checkpoint.plan` `waitFor`) acknowledged it with SUCCESS (`checkpoint.acknowledged`);
 *   finished tasks (`finished`) are not waited for and must not be in `waitFor`;
 * - `max-concurrent`: a checkpoint is triggered only while fewer than `maxConcurrent` are pending
 *   (triggered and not yet completed or aborted; pending savepoints count); a savepoint is forced
 *   (CheckpointProperties.forSavepoint with unaligned checkpoints off) and may exceed it;
 * - `min-pause`: a periodic request is chosen (the `timestampUs` of `checkpoint.triggered`, not
 *   the later trigger RPCs) at least `minPause` after the latest completion before it (not a
 *   savepoint, which is forced);
 * - `notify-only-completed`: `checkpoint.taskNotified(n)` only for an `n` already completed (in
 *   a job run restored from a snapshot, the snapshot counts: it is the run's latest completed);
 * - `late-ack-discarded`: no `checkpoint.acknowledged` for a checkpoint after it completed or was
 *   aborted (state of a disposed checkpoint is never accepted), and every `late-ack-discarded`
 *   mark for `n` is followed by a `checkpoint.subtaskStateDiscarded` for `n`;
 * - `abort-once-per-task`: a task attempt aborts (declines on its barrier handler's word,
 *   `checkpoint.declinedByTask`) each checkpoint at most once (mutants.md 31, FLINK-5285: stray
 *   cancellation markers must not re-create aborted checkpoints and notify again);
 * - `finished-tasks-finished`: every attempt a plan counts as finished (`checkpoint.plan`
 *   `finished`) entered FINISHED on its TaskExecutor (`task.finished`) earlier in the same job
 *   run. A checkpoint records such a subtask as fully finished, and a restore from it never runs
 *   that subtask's input again: an attempt that FAILED or was CANCELED has not read it all
 *   (FLINK-40482, where the plan calculator took any terminal attempt for a finished one).
 *
 * @see org.apache.flink.runtime.checkpoint.CheckpointCoordinator (reference 1.3, 1.5, 1.7-1.10)
 */
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';

/** The checkpoint configuration defaults of CheckpointConfig (max concurrent 1, min pause 0). */
const DEFAULT_MAX_CONCURRENT = 1;

/** The event types {@link protocolInvariants} reads: exactly the cases of its switch. */
const JUDGED_TYPES: ReadonlySet<string> = new Set([
  'checkpoint.plan', 'checkpoint.triggered', 'checkpoint.acknowledged', 'checkpoint.completed',
  'checkpoint.aborted', 'checkpoint.taskNotified', 'checkpoint.subtaskStateDiscarded',
  'checkpoint.declinedByTask', 'mark', 'checkpoint.restoreSavepoint', 'task.finished', 'job.submitted',
]);

/** Options of {@link protocolInvariants}. */
export interface ProtocolOptions {
  /** Most violations reported per invariant; default 5. */
  readonly maxPerInvariant?: number;
}

/** Judges the trace of `result`; one violation per broken occurrence (capped per invariant). */
export function protocolInvariants(result: RunResult, options: ProtocolOptions = {}): Violation[] {
  const cap = options.maxPerInvariant ?? 5;
  const maxConcurrent = result.spec.checkpoint.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
  const minPauseUs = (result.spec.checkpoint.minPauseMs ?? 0) * 1000;
  const out = new Map<string, Violation[]>();
  const report = (invariant: string, e: TraceEvent, summary: string, details: object): void => {
    const list = out.get(invariant) ?? [];
    out.set(invariant, list);
    if (list.length >= cap) return;
    list.push({
      property: 'protocol-invariants',
      summary: `${invariant}: ${summary}`,
      details: { invariant, event: e, ...details },
      timeMs: e.timeUs / 1000,
    });
  };

  let lastTriggered = Number.NEGATIVE_INFINITY;
  let lastCompletionUs: number | undefined;
  const pending = new Set<number>();
  const ended = new Set<number>();
  const completed = new Set<number>();
  const plans = new Map<number, { waitFor: string[]; finished: string[] }>();
  const acked = new Map<number, Set<string>>();
  const lateAcks: TraceEvent[] = [];
  const discardedAfter = new Map<number, number[]>();
  const abortedByTask = new Set<string>();
  // Attempts that entered FINISHED in this job run (attempt ids start again in the next one).
  const finishedAttempts = new Set<string>();
  for (const e of result.trace) {
    // Only the types of the switch below are judged; most of a trace is other events (a Set
    // lookup, not a prefix test and an attribute read per event).
    if (!JUDGED_TYPES.has(e.type)) continue;
    const id = Number(e.attrs['checkpointId']);
    switch (e.type) {
      case 'checkpoint.plan': {
        const waitFor = list(e.attrs['waitFor']);
        const finished = list(e.attrs['finished']);
        plans.set(id, { waitFor, finished });
        const both = waitFor.filter((t) => finished.includes(t));
        if (both.length > 0) {
          report('complete-after-all-acks', e, `checkpoint ${id} waits for finished tasks`,
            { checkpointId: id, tasks: both });
        }
        const unfinished = finished.filter((t) => !finishedAttempts.has(t));
        if (unfinished.length > 0) {
          report('finished-tasks-finished', e, `checkpoint ${id} counts ${unfinished.join(', ')} as finished, `
            + `which had not entered FINISHED when the plan was made`, { checkpointId: id, tasks: unfinished });
        }
        break;
      }
      case 'task.finished':
        finishedAttempts.add(String(e.attrs['task']));
        break;
      case 'job.submitted':
        finishedAttempts.clear();
        break;
      case 'checkpoint.triggered': {
        if (!(id > lastTriggered)) {
          report('ids-increase', e, `checkpoint ${id} triggered after ${lastTriggered}`,
            { checkpointId: id, previous: lastTriggered });
        }
        lastTriggered = Math.max(lastTriggered, id);
        const chosenUs = Number(e.attrs['timestampUs'] ?? e.timeUs);
        // A savepoint is forced (unaligned checkpoints are not run): no min pause, no limit.
        const savepoint = e.attrs['savepoint'] === true;
        if (!savepoint && minPauseUs > 0 && lastCompletionUs !== undefined
          && chosenUs - lastCompletionUs < minPauseUs) {
          report('min-pause', e, `checkpoint ${id} chosen ${(chosenUs - lastCompletionUs) / 1000} ms `
            + `after the last completion, min pause ${minPauseUs / 1000} ms`,
          { checkpointId: id, chosenUs, lastCompletionUs, minPauseUs });
        }
        pending.add(id);
        if (!savepoint && pending.size > maxConcurrent) {
          report('max-concurrent', e, `${pending.size} checkpoints pending, max ${maxConcurrent}`,
            { pending: [...pending], maxConcurrent });
        }
        break;
      }
      case 'checkpoint.acknowledged': {
        if (ended.has(id)) {
          report('late-ack-discarded', e, `checkpoint ${id} accepted an ack after it was disposed`,
            { checkpointId: id, task: e.attrs['task'] });
        }
        if (e.attrs['result'] === 'SUCCESS') {
          const set = acked.get(id) ?? new Set<string>();
          set.add(String(e.attrs['task']));
          acked.set(id, set);
        }
        break;
      }
      case 'checkpoint.completed': {
        const plan = plans.get(id);
        const got = acked.get(id) ?? new Set<string>();
        const missing = plan === undefined ? [] : plan.waitFor.filter((t) => !got.has(t));
        if (plan !== undefined && missing.length > 0) {
          report('complete-after-all-acks', e, `checkpoint ${id} completed without acks of `
            + `${missing.join(', ')}`, { checkpointId: id, missing, waitFor: plan.waitFor });
        }
        completed.add(id);
        ended.add(id);
        pending.delete(id);
        lastCompletionUs = e.timeUs;
        break;
      }
      case 'checkpoint.aborted':
        ended.add(id);
        pending.delete(id);
        break;
      case 'checkpoint.restoreSavepoint':
        // A job run restored from a savepoint or a retained checkpoint holds it as its latest
        // completed one (restoreSavepoint adds it to the store): an abort notification names it,
        // and a task may be notified of it, as Flink's do.
        completed.add(id);
        break;
      case 'checkpoint.taskNotified':
        if (!completed.has(id)) {
          report('notify-only-completed', e, `task ${String(e.attrs['task'])} notified of `
            + `checkpoint ${id}, which never completed before`, { checkpointId: id });
        }
        break;
      case 'checkpoint.subtaskStateDiscarded': {
        const times = discardedAfter.get(id) ?? [];
        times.push(e.timeUs);
        discardedAfter.set(id, times);
        break;
      }
      case 'checkpoint.declinedByTask': {
        const key = `${String(e.attrs['task'])}\u0000${id}`;
        if (abortedByTask.has(key)) {
          report('abort-once-per-task', e, `task ${String(e.attrs['task'])} aborted checkpoint ${id} twice`,
            { checkpointId: id, task: e.attrs['task'], reason: e.attrs['reason'] });
        }
        abortedByTask.add(key);
        break;
      }
      case 'mark':
        if (e.attrs['name'] === 'late-ack-discarded') lateAcks.push(e);
        break;
      default:
        break;
    }
  }
  checkLateAcks(lateAcks, discardedAfter, report);
  return [...out.values()].flat();
}

/** Every late-ack mark for `n` is matched by a later discard of state for `n`, one to one. */
function checkLateAcks(
  lateAcks: readonly TraceEvent[],
  discardedAfter: Map<number, number[]>,
  report: (invariant: string, e: TraceEvent, summary: string, details: object) => void,
): void {
  for (const e of lateAcks) {
    const id = Number(e.attrs['checkpointId']);
    const times = discardedAfter.get(id) ?? [];
    const i = times.findIndex((t) => t >= e.timeUs);
    if (i >= 0) {
      times.splice(i, 1);
      continue;
    }
    report('late-ack-discarded', e, `the state of a late ack for checkpoint ${id} was never `
      + 'discarded', { checkpointId: id });
  }
}

function list(value: unknown): string[] {
  return typeof value === 'string' && value !== '' ? value.split(',') : [];
}
