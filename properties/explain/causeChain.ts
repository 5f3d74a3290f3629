/**
 * causeChain: the events behind one event, following cause links (sim/Trace.ts) back to a fault
 * or a root. Where the trace records no link because the cause is an absence (a heartbeat that
 * never came, acknowledgements that never arrived), the chain steps to the event that made the
 * silence, found by a rule named in the step (`inferred`):
 *
 * - a TaskManager declared lost by heartbeat timeout: the latest crash, pause or network cut of
 *   its host before it (HeartbeatMonitor's timeout fires because heartbeats stopped);
 * - a checkpoint aborted as CHECKPOINT_EXPIRED: the latest event, while it was pending, that kept
 *   one of its messages or tasks from finishing: a dropped, delayed or held RPC about it, or a
 *   crash or pause of a host (CheckpointCoordinator's canceller fires because acks are missing);
 *   else a coordinator stall whose work was running while it was pending (the coordinators'
 *   snapshot, and so the trigger of its tasks, waited behind it).
 *
 * When neither finds such an event, a world-setting fault that was active then (RPC delay or
 * loss; for an expiry also a slow or failing store) is the step, said so: such faults act by
 * chance on many messages and leave no single event per message.
 */
import type { TraceEvent } from '../../sim/Trace.ts';
import type { EventIndex } from './EventIndex.ts';

/** One event of a chain; `inferred` names the rule when the step to it is not a recorded link. */
export interface ChainStep {
  readonly event: TraceEvent;
  readonly inferred?: string;
}

/** Longest chain walked (a guard: links always point to earlier events, so a walk ends). */
const MAX_STEPS = 10_000;

/**
 * The chain of `start`: `start` first, then its cause, its cause's cause, ... up to and including
 * the first `fault` event, or to a root (an event without a cause, or whose cause is not stored).
 * It also stops at the trigger of a checkpoint: what led to triggering it (the periodic
 * scheduler, the previous completion) does not explain how it ended.
 */
export function causeChain(index: EventIndex, start: TraceEvent): ChainStep[] {
  const steps: ChainStep[] = [{ event: start }];
  let e: TraceEvent | undefined = start;
  for (let i = 0; i < MAX_STEPS && e !== undefined && e.type !== 'fault' && e.type !== 'checkpoint.triggered'; i++) {
    // A silence's recorded cause is only the timer's scheduling (the last heartbeat, the
    // trigger): the event that made the silence explains it, when the trace shows one.
    const silence = silenceCause(index, e);
    const recorded = index.causeOf(e);
    if (silence !== undefined) {
      steps.push(silence);
      e = silence.event;
    } else if (recorded !== undefined) {
      steps.push({ event: recorded });
      e = recorded;
    } else {
      e = undefined;
    }
  }
  return steps;
}

/** The host of a TaskExecutor RPC address `taskexecutor@taskmanager-2/0`. */
function hostOfAddress(address: unknown): string | undefined {
  const m = typeof address === 'string' ? /@([^/]+)/.exec(address) : null;
  return m?.[1];
}

/** The event behind a silence (see the file comment), if `e` is one and the trace shows it. */
function silenceCause(index: EventIndex, e: TraceEvent): ChainStep | undefined {
  if ((e.type === 'jm.taskManagerLost' || e.type === 'rm.taskExecutorLost')
    && String(e.attrs.cause ?? e.attrs.reason).includes('heartbeat')) {
    const host = hostOfAddress(e.attrs.taskExecutor);
    const found = latestBefore(index, e.seq, 0, (x) => ((x.type === 'host.crash' || x.type === 'host.pause') && x.host === host)
      || (x.type === 'net.partition' && (x.attrs.from === host || x.attrs.to === host)));
    if (found !== undefined) return { event: found, inferred: `no heartbeat from ${host ?? '?'} after this` };
    const setting = activeSettingFault(index, e.seq, RPC_SETTINGS);
    return setting === undefined ? undefined
      : { event: setting, inferred: `heartbeats of ${host ?? '?'} delayed or lost while this fault was active` };
  }
  if (e.type === 'checkpoint.aborted' && e.attrs.reason === 'CHECKPOINT_EXPIRED') {
    const id = e.attrs.checkpointId;
    const triggered = index.ofType('checkpoint.triggered').find((t) => t.attrs.checkpointId === id);
    const from = triggered?.seq ?? 0;
    const found = latestBefore(index, e.seq, from, (x) => x.type === 'host.crash' || x.type === 'host.pause'
      || (x.type === 'fault' && (x.attrs.type === 'message' || x.attrs.type === 'channel-event') && x.attrs.checkpoint === id)
      || (x.type === 'rpc.drop' && aboutCheckpoint(index, x, id)));
    if (found !== undefined) return { event: found, inferred: `checkpoint ${String(id)} missed acknowledgements after this` };
    const stall = stallWhilePending(index, e.seq, from);
    if (stall !== undefined) return { event: stall, inferred: `checkpoint ${String(id)} waited for a busy coordinator thread` };
    const setting = activeSettingFault(index, e.seq, [...RPC_SETTINGS, 'slow-store', 'store-failure', 'store-unknown-outcome']);
    return setting === undefined ? undefined
      : { event: setting, inferred: `checkpoint ${String(id)} expired while this fault slowed or failed its messages or writes` };
  }
  return undefined;
}

/**
 * The firing (`fault` event, action `stall`) of a coordinator-stall fault before event `before`
 * whose work was still running at or after event `from` (its `end` comes later, or never): the
 * coordinator's part of a checkpoint triggered then waited behind it.
 */
function stallWhilePending(index: EventIndex, before: number, from: number): TraceEvent | undefined {
  const stalls = index.ofType('fault').filter((f) => f.seq < before && f.attrs.type === 'coordinator-stall');
  return stalls.find((f) => f.attrs.action === 'stall'
    && !stalls.some((g) => g.attrs.index === f.attrs.index && g.attrs.action === 'end' && g.seq < from));
}

/** World-setting faults on RPCs. */
const RPC_SETTINGS = ['rpc-delay', 'rpc-loss'];

/**
 * The start (`fault` event, action `start`) of a world-setting fault of one of `types` that is
 * still active before event `before` (no `end` yet): the first such one.
 */
function activeSettingFault(index: EventIndex, before: number, types: readonly string[]): TraceEvent | undefined {
  const faults = index.ofType('fault').filter((f) => f.seq < before && types.includes(String(f.attrs.type)));
  return faults.find((f) => f.attrs.action === 'start'
    && !faults.some((g) => g.attrs.index === f.attrs.index && g.attrs.action === 'end'));
}

/** Whether dropped RPC `drop` was about checkpoint `id` (its send was caused by an event of it). */
function aboutCheckpoint(index: EventIndex, drop: TraceEvent, id: unknown): boolean {
  const send = index.send(drop.attrs.id);
  const why = send === undefined ? undefined : index.causeOf(send);
  return why !== undefined && why.attrs.checkpointId === id;
}

/** The latest event with `from <= seq < before` that satisfies `p`. */
function latestBefore(index: EventIndex, before: number, from: number, p: (e: TraceEvent) => boolean): TraceEvent | undefined {
  const events = index.events;
  // Events are in seq order; find the last one before `before` by binary search, then walk back.
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((events[mid] as TraceEvent).seq < before) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0; i--) {
    const x = events[i] as TraceEvent;
    if (x.seq < from) return undefined;
    if (p(x)) return x;
  }
  return undefined;
}
