/**
 * describeEvent: one trace event in words for a timeline ("checkpoint 3 aborted
 * (TRIGGER_CHECKPOINT_FAILURE): triggerCheckpoint RPC to v0#0@0 timed out"), or undefined for an
 * event a person reading why a run failed need not see (RPC plumbing, buffers, store operations,
 * marks). Event types are the engine's and the sim's (docs/explain.md lists the ones described).
 * Pure; RPC events are named through their send (EventIndex).
 */
import type { TraceEvent } from '../../sim/Trace.ts';
import type { Fault } from '../../sim/run/RunSpec.ts';
import type { CheckpointStatsResult } from '../../sim/run/checkpointStatsResult.ts';
import { describeFault } from '../describeFault.ts';
import type { EventIndex } from './EventIndex.ts';

/** What the descriptions need besides the event. */
export interface DescribeContext {
  readonly index: EventIndex;
  /** The RunSpec's faults, to say what a `fault` event did. */
  readonly faults: readonly Fault[];
  /** The run's checkpoint statistics, to say how many subtasks a completed checkpoint heard from. */
  readonly stats?: CheckpointStatsResult;
}

/** Fault actions that are the fault happening (others end or release it: `ends`, `resumes`). */
const FIRES = new Set(['crash', 'pause', 'partition', 'global-failure', 'slow-task', 'stall', 'fire']);

type Describer = (e: TraceEvent, c: DescribeContext) => string | undefined;

const str = (v: unknown): string => String(v);

/** The RPC method and destination of message `id`, e.g. `triggerCheckpoint RPC to v0#0@0`. */
export function describeRpc(id: unknown, c: DescribeContext): string {
  const send = c.index.send(id);
  if (send === undefined) return `RPC ${str(id)}`;
  const what = send.attrs.answer === true ? `answer to ${str(send.attrs.method)}` : `${str(send.attrs.method)} RPC`;
  return `${what} to ${rpcTarget(send, c)}`;
}

/** Where an RPC went: the task it was about (a trigger names it on its cause) or the address. */
function rpcTarget(send: TraceEvent, c: DescribeContext): string {
  const why = c.index.causeOf(send);
  if (why !== undefined && typeof why.attrs.task === 'string' && why.type === 'checkpoint.triggerSent') return why.attrs.task;
  return str(send.attrs.to);
}

/** `checkpoint 3` from an event's checkpointId (or `checkpoint`) attribute. */
/** `checkpoint N`, or `savepoint N` (`synchronous savepoint N`) for the events that say so. */
const cp = (e: TraceEvent): string => {
  const kind = e.attrs.savepoint !== true ? 'checkpoint' : e.attrs.synchronous === true ? 'synchronous savepoint' : 'savepoint';
  return `${kind} ${str(e.attrs.checkpointId ?? e.attrs.checkpoint)}`;
};

const DESCRIBERS: Readonly<Record<string, Describer>> = {
  action: (e) => {
    const n = `action ${str(e.attrs.index)}`;
    switch (e.attrs.action) {
      case 'fired': return `the user asks for a ${str(e.attrs.type)} (${n})`;
      case 'completed': return `the ${str(e.attrs.type)} the user asked for completed: ${str(e.attrs.path)} (${n})`;
      default: return `the ${str(e.attrs.type)} the user asked for failed: ${str(e.attrs.reason)} (${n})`;
    }
  },
  fault: (e, c) => {
    const f = c.faults[e.attrs.index as number];
    const what = f === undefined ? `fault ${str(e.attrs.index)}` : describeFault(f);
    if (e.attrs.type === 'message') return `fault ${str(e.attrs.index)} ${str(e.attrs.action)}s ${describeRpc(e.attrs.id, c)} (${what})`;
    if (e.attrs.type === 'channel-event') {
      const event = e.attrs.event === 'barrier' ? 'barrier' : 'cancellation marker';
      return `fault ${str(e.attrs.index)} delays the ${event} of checkpoint ${str(e.attrs.checkpoint)} on the channel `
        + `${str(e.attrs.from)} -> ${str(e.attrs.to)} until ${(Number(e.attrs.releaseUs) / 1000).toFixed(3)} ms (${what})`;
    }
    const a = e.attrs.action;
    // Its point came at or after the heal time, or its task was never deployed: it did nothing.
    if (a === 'skipped') return `fault ${str(e.attrs.index)} is skipped and never fires: ${what}`;
    const action = a === undefined || a === e.attrs.type || FIRES.has(str(a)) ? 'fires' : `${str(a)}s`;
    return `fault ${str(e.attrs.index)} ${action}: ${what}`;
  },
  'host.crash': (e) => `${e.host} crashes`,
  'host.pause': (e) => `${e.host} pauses (runs nothing)`,
  'host.resume': (e) => `${e.host} resumes`,
  'host.boot': (e) => ((e.attrs.incarnation as number) > 1 ? `${e.host} restarts` : undefined),
  'net.partition': (e) => `network cut ${str(e.attrs.from)} ${e.attrs.oneWay === true ? '->' : '<->'} ${str(e.attrs.to)}`,
  'net.heal': (e) => `network healed ${str(e.attrs.from)} <-> ${str(e.attrs.to)}`,
  'net.broken': (e) => `data connection ${str(e.attrs.key)} broke`,
  'rpc.drop': (e, c) => `${describeRpc(e.attrs.id, c)} lost (${str(e.attrs.reason)})`,
  'rpc.timeout': (e, c) => `${str(e.attrs.method)} RPC to ${rpcTimeoutTarget(e, c)} timed out`,
  'rpc.slow': (e, c) => `${describeRpc(e.attrs.id, c)} takes ${slowMs(e)} (a latency overridden to slow)`,
  'store.slow': (e) => `store ${str(e.attrs.op)} of ${str(e.attrs.path)} takes ${slowMs(e)} (a latency overridden to slow)`,
  'net.slow': (e) => `data connection ${str(e.attrs.conn)}: a ${str(e.attrs.kind)} takes ${slowMs(e)} (a latency overridden to slow)`,
  'te.jmDisconnected': (e) => `${e.host} disconnects from the JobMaster (${str(e.attrs.cause)})`,
  'checkpoint.failureHandled': (e) => `the coordinator handles the failure of ${cp(e)} (${str(e.attrs.handler)}: `
    + `${str(e.attrs.failureReason ?? e.attrs.failure)})`,
  'mark': (e) => (e.attrs.name === 'rpc-lost' ? `${str(e.attrs.method)} RPC lost (rpc-loss fault)` : undefined),
  'task.failed': (e) => `task ${str(e.attrs.task)} fails: ${str(e.attrs.error)}`,
  'io.gate.error': (e) => `input gate error: ${str(e.attrs.message)}`,
  'scheduler.taskFailed': (e) => `JobMaster learns task ${str(e.attrs.task)} failed (${str(e.attrs.cause)})`,
  'scheduler.globalFailure': (e) => {
    // A fault's global failure says only that: name the fault the way the rest of the text does.
    const fault = /^fault\[(\d+)\]: global failure$/.exec(str(e.attrs.cause));
    return fault === null ? `global failure: ${str(e.attrs.cause)}` : `global failure (fault ${fault[1] ?? ''})`;
  },
  'scheduler.restarting': (e) => `failover: ${e.attrs.global === true ? 'global' : 'region'} restart of ${str(e.attrs.vertices)} task(s) in ${(e.attrs.delayUs as number) / 1000} ms`,
  'scheduler.noMoreRestarts': (e) => `restart strategy exhausted: the job fails (${str(e.attrs.cause)})`,
  'scheduler.unrecoverableFailure': (e) => `unrecoverable failure: the job fails without a restart (${str(e.attrs.cause)})`,
  'jm.stopWithSavepoint': (e) => `stop-with-savepoint${e.attrs.drain === true ? ' with drain' : ''}: periodic checkpoints stop, a synchronous savepoint is triggered`,
  'task.stopSourceForSavepoint': (e) => `${str(e.attrs.task)} stops its source for synchronous savepoint ${str(e.attrs.checkpointId)} (${e.attrs.mode === 'DRAIN' ? 'drain' : 'no drain'})`,
  'jm.taskManagerLost': (e) => `JobMaster declares ${str(e.attrs.taskExecutor)} lost (${str(e.attrs.cause)})`,
  'rm.taskExecutorLost': (e) => `ResourceManager declares ${str(e.attrs.taskExecutor)} lost (${str(e.attrs.reason)})`,
  // The first RUNNING is the start of the run, no step of any story.
  'job.status': (e, c) => (e.attrs.status === 'RUNNING' && c.index.ofType('job.status')[0] === e ? undefined : `job ${str(e.attrs.status)}`),
  'source.splits-restored': (e) => `${str(e.attrs.task)} resumes ${str(e.attrs.source)} at ${String(e.attrs.splits).split(',')
    .map((x) => { const [sp, o] = x.split('@'); return `split ${sp ?? '?'} offset ${o ?? '?'}`; }).join(', ')}`,
  'checkpoint.triggered': (e) => `${cp(e)} triggered`,
  'checkpoint.triggerFailed': (e) => ((e.attrs.checkpointId as number) < 0 ? undefined : `${cp(e)} trigger failed (${str(e.attrs.reason)})`),
  'checkpoint.completed': (e, c) => `${cp(e)} completed${acknowledged(e, c)}`,
  'checkpoint.aborted': (e, c) => `${cp(e)} aborted (${str(e.attrs.reason)})${abortBecause(e, c)}`,
  'checkpoint.declined': (e) => `${cp(e)} declined by ${str(e.attrs.task)} (${str(e.attrs.reason)})`,
  'checkpoint.declinedByTask': (e) => `${str(e.attrs.task)} declines ${cp(e)} (${str(e.attrs.reason)})`,
  'checkpoint.asyncFailed': (e) => `${str(e.attrs.task)}: async part of ${cp(e)} failed`,
  'checkpoint.tolerableFailuresExceeded': () => 'tolerable checkpoint failures exceeded',
  'checkpoint.failJobRun': (e) => `CheckpointFailureManager fails the job${e.attrs.checkpointId === undefined ? '' : ` (${cp(e)})`}`,
  'checkpoint.restored': (e) => ((e.attrs.checkpointId as number) < 0
    ? 'restore: no completed checkpoint, tasks start from scratch'
    : `restore from ${cp(e)} (${str(e.attrs.tasks)} task(s)${e.attrs.global === true ? ', global' : ''})`),
  'sink.committed': (e) => `sink ${str(e.attrs.sink)} subtask ${str(e.attrs.subtask)} commits its transaction of checkpoint ${str(e.attrs.checkpoint)} (notified of ${str(e.attrs.notified)})`,
  'store.unknown-outcome': (e) => `store write of ${str(e.attrs.path)} has an unknown outcome`,
  // Only a failure says something (a write that never happened, a read of a file not there).
  'store.end': (e) => (e.attrs.outcome === 'ok' ? undefined : `store ${str(e.attrs.op)} of ${str(e.attrs.path)}: ${str(e.attrs.outcome)}`),
  'txn.fenced': (e) => `transaction ${str(e.attrs.txn)} fenced`,
  'engine.assertion': (e) => `engine assertion: ${str(e.attrs.message)}`,
};

/** ` (1 of 2 subtasks acknowledged)` when a completed checkpoint did not hear from every subtask. */
function acknowledged(e: TraceEvent, c: DescribeContext): string {
  const s = c.stats?.checkpoints.find((x) => x.id === e.attrs.checkpointId);
  if (s === undefined || s.acknowledged >= s.total) return '';
  return ` with ${s.acknowledged} of ${s.total} subtasks acknowledged`;
}

/** `N ms` of a slow event's `latencyUs`. */
function slowMs(e: TraceEvent): string {
  return `${(e.attrs.latencyUs as number) / 1000} ms`;
}

/** `: <what caused it>` for an abort whose cause says more than its reason (a timeout, a decline). */
function abortBecause(e: TraceEvent, c: DescribeContext): string {
  let cause = c.index.causeOf(e);
  // The handler's own record of the failure stands between: what it was given says more.
  if (cause?.type === 'checkpoint.failureHandled') cause = c.index.causeOf(cause);
  if (cause === undefined) return '';
  if (cause.type === 'rpc.timeout') return `: ${str(cause.attrs.method)} RPC to ${rpcTimeoutTarget(cause, c)} timed out`;
  if (cause.type === 'checkpoint.declined') return `: declined by ${str(cause.attrs.task)}`;
  if (cause.type === 'scheduler.taskFailed') return `: task ${str(cause.attrs.task)} failed`;
  if (cause.type === 'scheduler.globalFailure') return ': global failure';
  return '';
}

/**
 * A timed-out RPC's target, named by the task its send was about when the chain says so. The
 * timeout's cause is the drop of its request (or answer), whose cause leads to the send; only a
 * send of the same method to the same endpoint is that RPC's. A timeout caused by a pause (the
 * answer never came) has a chain through the pause that may pass other RPCs' sends, which name
 * other TaskManagers.
 */
function rpcTimeoutTarget(timeout: TraceEvent, c: DescribeContext): string {
  const same = (send: TraceEvent | undefined): send is TraceEvent => send !== undefined
    && send.attrs.to === timeout.attrs.to && send.attrs.method === timeout.attrs.method;
  for (let e = c.index.causeOf(timeout), i = 0; e !== undefined && i < 8; e = c.index.causeOf(e), i++) {
    const send = e.type === 'rpc.drop' || e.type === 'fault' ? c.index.send(e.attrs.id) : e.type === 'rpc.send' ? e : undefined;
    if (same(send)) return rpcTarget(send, c);
  }
  return str(timeout.attrs.to);
}

/** The event in words, or undefined when a timeline leaves it out. */
export function describeEvent(e: TraceEvent, c: DescribeContext): string | undefined {
  const d = DESCRIBERS[e.type];
  return d === undefined ? undefined : d(e, c);
}

/** Event types {@link describeEvent} puts in words (the rest are left out of timelines). */
export const DESCRIBED_TYPES: readonly string[] = Object.keys(DESCRIBERS);
