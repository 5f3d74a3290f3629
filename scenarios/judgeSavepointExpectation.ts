/**
 * judgeSavepointExpectation: the expectations about the n-th savepoint step of a scenario
 * (expect.savepointCompleted and the others, expect.ts), judged from the trace, never from the
 * engine's code path. Savepoint n's checkpoint id is the one its action's request got: the
 * `checkpoint.triggered` event whose origin is that action (sim/run/savepointPoints.ts).
 *
 * Each expectation fails, rather than passes, when what it speaks of never happened: a savepoint
 * that was never triggered is neither "not subsumed" nor "not notified" (nothing was tested);
 * "not subsumed" also needs a newer checkpoint to have completed while the savepoint was pending,
 * and "not notified" a completed savepoint.
 *
 * Flink 1.20 (CheckpointCoordinator.completePendingCheckpoint and cleanupAfterCompletedCheckpoint,
 * PendingCheckpoint.canBeSubsumed, TwoPhaseCommitSinkFunction.notifyCheckpointComplete): a
 * savepoint is never subsumed; completing one that is not synchronous neither drops older pending
 * checkpoints nor notifies tasks or coordinators; a sink commits every pending transaction up to
 * the id it is notified of, so a savepoint's pre-committed transaction is committed by the next
 * checkpoint's notification.
 */
import type { Action } from '../sim/run/RunSpec.ts';
import { savepointActionIndex, savepointCheckpointId } from '../sim/run/savepointPoints.ts';
import type { TraceEvent } from '../sim/Trace.ts';
import type { ScenarioExpectation } from './Scenario.ts';

/** The savepoint expectations. */
export type SavepointExpectation = Extract<ScenarioExpectation, { readonly savepoint: number }>;

/** What judgeSavepointExpectation returns; judgeExpectation adds the time. */
export interface SavepointVerdict {
  readonly ok: boolean;
  readonly actual: string;
  readonly events: readonly TraceEvent[];
}

const ms = (e: TraceEvent): string => `${+(e.timeUs / 1000).toFixed(3)} ms`;

/** Savepoint n's life in `trace`: its id, its trigger and its end (completion or abort), if any. */
interface SavepointLife {
  readonly name: string;
  readonly id: number;
  readonly triggered: TraceEvent;
  readonly end?: TraceEvent;
}

/** Savepoint n's life, or the phrase saying why there is none. */
function lifeOf(trace: readonly TraceEvent[], actions: readonly Action[], n: number): SavepointLife | string {
  const index = savepointActionIndex(actions, n);
  const id = savepointCheckpointId(trace, actions, n);
  if (index === undefined || id === undefined) {
    const fired = index !== undefined && trace.some((e) => e.type === 'action' && e.attrs['index'] === index && e.attrs['action'] === 'fired');
    const failed = index === undefined ? undefined : actionFailure(trace, index);
    return `savepoint ${n} was never triggered (${!fired ? 'its step never fired'
      : failed !== undefined ? `its step fired, and its request was refused: ${String(failed.attrs['reason'])} at ${ms(failed)}`
        : 'its step fired, but its request got no checkpoint id'})`;
  }
  const of = trace.filter((e) => e.attrs['checkpointId'] === id);
  const triggered = of.find((e) => e.type === 'checkpoint.triggered') as TraceEvent;
  const end = of.find((e) => e.type === 'checkpoint.completed' || e.type === 'checkpoint.aborted');
  return { name: `savepoint ${n} (checkpoint id ${id})`, id, triggered, ...(end === undefined ? {} : { end }) };
}

function endPhrase(life: SavepointLife): string {
  if (life.end === undefined) return `${life.name} was triggered at ${ms(life.triggered)} and neither completed nor aborted`;
  return life.end.type === 'checkpoint.completed' ? `${life.name} completed at ${ms(life.end)}`
    : `${life.name} was aborted with ${String(life.end.attrs['reason'])} at ${ms(life.end)}`;
}

/** Judges a savepoint expectation on `trace` (already cut by `expect.at` when inside one). */
export function judgeSavepointExpectation(e: SavepointExpectation, trace: readonly TraceEvent[],
  actions: readonly Action[]): SavepointVerdict {
  if (e.kind === 'savepointFailed') return requestFailed(e, trace, actions);
  const life = lifeOf(trace, actions, e.savepoint);
  if (typeof life === 'string') return { ok: false, actual: life, events: [] };
  const lifeEvents = [life.triggered, ...(life.end === undefined ? [] : [life.end])];
  switch (e.kind) {
    case 'savepointCompleted':
      return { ok: life.end?.type === 'checkpoint.completed', actual: endPhrase(life), events: lifeEvents };
    case 'savepointAborted': {
      const ok = life.end?.type === 'checkpoint.aborted' && (e.reason === undefined || life.end.attrs['reason'] === e.reason);
      return { ok, actual: endPhrase(life), events: lifeEvents };
    }
    case 'savepointNotSubsumed':
      return notSubsumed(trace, life);
    case 'savepointNotNotified':
      return notNotified(trace, life);
    case 'savepointTransactionsCommitted':
      return transactionsCommitted(trace, life);
  }
}

/** The `action` event saying savepoint step `index`'s request failed, if it did. */
function actionFailure(trace: readonly TraceEvent[], index: number): TraceEvent | undefined {
  return trace.find((x) => x.type === 'action' && x.attrs['index'] === index && x.attrs['action'] === 'failed');
}

/**
 * The request of savepoint n failed, as the user who asked sees it (Flink's triggerSavepoint
 * future completing exceptionally): refused before any checkpoint was triggered (the plan
 * calculator's NOT_ALL_REQUIRED_TASKS_RUNNING, a coordinator shut down) or aborted after, with
 * `reason` when given (the failure's CheckpointFailureReason name).
 */
function requestFailed(e: Extract<SavepointExpectation, { kind: 'savepointFailed' }>, trace: readonly TraceEvent[],
  actions: readonly Action[]): SavepointVerdict {
  const index = savepointActionIndex(actions, e.savepoint);
  const failed = index === undefined ? undefined : actionFailure(trace, index);
  if (failed === undefined) {
    const life = lifeOf(trace, actions, e.savepoint);
    return typeof life === 'string' ? { ok: false, actual: life, events: [] }
      : { ok: false, actual: `its request did not fail: ${endPhrase(life)}`, events: [life.triggered, ...(life.end === undefined ? [] : [life.end])] };
  }
  const reason = String(failed.attrs['reason']);
  const id = savepointCheckpointId(trace, actions, e.savepoint);
  const how = id === undefined ? 'refused before a checkpoint was triggered' : `failed after it was triggered as checkpoint ${id}`;
  return { ok: e.reason === undefined || reason === e.reason, actual: `savepoint ${e.savepoint}'s request ${how}: ${reason} at ${ms(failed)}`, events: [failed] };
}

/** A newer checkpoint completed while the savepoint was pending, and the savepoint stayed pending. */
function notSubsumed(trace: readonly TraceEvent[], life: SavepointLife): SavepointVerdict {
  const from = trace.indexOf(life.triggered);
  const to = life.end === undefined ? trace.length : trace.indexOf(life.end);
  const newer = trace.slice(from, to).filter((x) => x.type === 'checkpoint.completed' && x.attrs['savepoint'] !== true
    && Number(x.attrs['checkpointId']) > life.id);
  const ids = newer.map((x) => String(x.attrs['checkpointId'])).join(', ');
  if (life.end?.type === 'checkpoint.aborted' && life.end.attrs['reason'] === 'CHECKPOINT_SUBSUMED') {
    return { ok: false, actual: `${endPhrase(life)}, after checkpoint(s) ${ids} completed`, events: [...newer, life.end] };
  }
  // The coordinator marks each subsumption as it decides it, before the abort is carried out.
  const marked = trace.find((x) => x.type === 'mark' && x.attrs['name'] === 'checkpoint-subsumed' && x.attrs['checkpointId'] === life.id);
  if (marked !== undefined) {
    return { ok: false, actual: `${life.name} was subsumed (mark checkpoint-subsumed) at ${ms(marked)}, after checkpoint(s) ${ids} completed; ${endPhrase(life)}`,
      events: [...newer, marked] };
  }
  if (newer.length === 0) {
    return {
      ok: false,
      actual: `no checkpoint newer than ${life.name} completed while it was pending (${endPhrase(life)}), so nothing could subsume it`,
      events: [life.triggered, ...(life.end === undefined ? [] : [life.end])],
    };
  }
  return {
    ok: true,
    actual: `checkpoint(s) ${ids} completed while ${life.name} was pending, and it stayed pending: ${endPhrase(life)}`,
    events: [life.triggered, ...newer, ...(life.end === undefined ? [] : [life.end])],
  };
}

/** The savepoint completed, and neither the coordinator nor any task handled a notification of its id. */
function notNotified(trace: readonly TraceEvent[], life: SavepointLife): SavepointVerdict {
  if (life.end?.type !== 'checkpoint.completed') {
    return { ok: false, actual: `${endPhrase(life)}, so there was no completion to notify of`, events: [life.triggered] };
  }
  const notified = trace.filter((x) => (x.type === 'checkpoint.taskNotified' || x.type === 'checkpoint.notifiedComplete')
    && x.attrs['checkpointId'] === life.id);
  if (notified.length > 0) {
    const tasks = notified.filter((x) => x.type === 'checkpoint.taskNotified').map((x) => String(x.attrs['task']));
    const sent = notified.some((x) => x.type === 'checkpoint.notifiedComplete');
    return {
      ok: false,
      actual: `${endPhrase(life)}, and ${sent ? 'the coordinator sent completion notifications of it' : 'no notification was sent'}`
        + `${tasks.length === 0 ? '' : `; tasks notified of it: ${tasks.join(', ')}`}`,
      events: notified,
    };
  }
  return { ok: true, actual: `${endPhrase(life)}, and no task was notified of it`, events: [life.end] };
}

const txnKey = (x: TraceEvent): string =>
  `${String(x.attrs['sink'])}#${String(x.attrs['subtask'])}@${String(x.attrs['attempt'])}/e${String(x.attrs['epoch'])}`;

/**
 * Every sink transaction pre-committed at the savepoint was committed by the notification of the
 * next checkpoint that completed (the first checkpoint with a higher id), not by the savepoint.
 */
function transactionsCommitted(trace: readonly TraceEvent[], life: SavepointLife): SavepointVerdict {
  const preCommits = trace.filter((x) => x.type === 'sink.pre-committed' && x.attrs['checkpoint'] === life.id);
  if (preCommits.length === 0) {
    return { ok: false, actual: `no sink transaction was pre-committed at ${life.name} (${endPhrase(life)})`, events: [life.triggered] };
  }
  const next = trace.filter((x) => x.type === 'checkpoint.completed' && x.attrs['savepoint'] !== true
    && Number(x.attrs['checkpointId']) > life.id)
    .reduce<TraceEvent | undefined>((best, x) => (best === undefined || Number(x.attrs['checkpointId']) < Number(best.attrs['checkpointId']) ? x : best), undefined);
  const nextId = next === undefined ? undefined : Number(next.attrs['checkpointId']);
  const commits = new Map(trace.filter((x) => x.type === 'sink.committed').map((x) => [txnKey(x), x]));
  const each = preCommits.map((p) => {
    const c = commits.get(txnKey(p));
    const on = `subtask ${String(p.attrs['subtask'])}`;
    if (c === undefined) return { ok: false, text: `${on}: never committed`, events: [p] };
    const by = Number(c.attrs['notified']);
    return { ok: nextId !== undefined && by === nextId, text: `${on}: committed at ${ms(c)} by checkpoint ${by}'s notification`, events: [p, c] };
  });
  const head = `${preCommits.length} sink transaction(s) pre-committed at ${life.name}; `
    + `${next === undefined ? 'no checkpoint after it completed' : `the next checkpoint, ${String(nextId)}, completed at ${ms(next)}`}`;
  return {
    ok: next !== undefined && each.every((x) => x.ok),
    actual: `${head}; ${each.map((x) => x.text).join('; ')}`,
    events: each.flatMap((x) => x.events),
  };
}
