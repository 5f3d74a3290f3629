/**
 * causeChain: the events behind one event, following cause links (sim/Trace.ts) back to a fault
 * or a root. Where the trace records no link because the cause is an absence (a heartbeat that
 * never came, acknowledgements that never arrived), the chain steps to the event that made the
 * silence, found by a rule named in the step (`inferred`):
 *
 * - a heartbeat timeout (a TaskManager declared lost by the JobMaster or the ResourceManager, or
 *   a TaskExecutor disconnecting from them): between a JobMaster and a TaskExecutor, first the
 *   JobMaster main thread's wait for the coordinator's lock since its last heartbeat request (it
 *   neither sends requests nor handles reports meanwhile); else the latest crash or pause of
 *   either host, network cut of the silent one, or RPC between the two that was lost, slowed (a
 *   fault, or a latency overridden to slow: `rpc.slow`) or held before it (HeartbeatMonitor's
 *   timeout fires because heartbeats stopped; a message held on a link holds every later one
 *   behind it);
 * - a task failed because its slot was offered under a new allocation (`slot allocation
 *   replaced`): the latest disconnect of its TaskExecutor from a JobMaster, which freed the slot
 *   (the ResourceManager then allocated it anew);
 * - a task failed for a state report that skipped a state (the scheduler's unexpected transition,
 *   as Execution.switchTo): the latest loss, since the attempt's deployment, of a state report
 *   its TaskExecutor sent to the JobMaster (a link delivers in order, so one was lost);
 * - a checkpoint aborted as CHECKPOINT_EXPIRED: first a task that skipped it as out of order (a
 *   newer checkpoint's trigger ran there first, so it never acknowledges); else the latest event,
 *   while it was pending, that kept
 *   one of its messages or tasks from finishing: a dropped, slowed, delayed or held RPC about it,
 *   a barrier or marker held on a channel (a channel-event fault), a slowed write of its files
 *   (`store.slow`), a slowed data connection (`net.slow`), a slow task, or a crash, pause or
 *   network cut (CheckpointCoordinator's canceller fires because acks are missing); else a
 *   coordinator stall whose work was running while it was pending (the coordinators' snapshot,
 *   and so the trigger of its tasks, waited behind it).
 *
 * When neither finds such an event, a world-setting fault that was active at some moment of the
 * silence (RPC delay or loss; for an expiry also a slow or failing store) is the step, said so:
 * such faults act by chance on many messages and leave no single event per message. A heartbeat's
 * silence began at the last heartbeat the noticing side got from the silent one; a checkpoint's at
 * its trigger.
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

/** Heartbeat timeouts: the JobMaster or ResourceManager losing a TaskExecutor, or the other way round. */
const HEARTBEAT_LOSSES = new Set(['jm.taskManagerLost', 'rm.taskExecutorLost', 'te.jmDisconnected', 'te.rmDisconnected']);

/** The event behind a silence (see the file comment), if `e` is one and the trace shows it. */
function silenceCause(index: EventIndex, e: TraceEvent): ChainStep | undefined {
  const storeError = e.type === 'task.failed' ? /^(\w+) (\S+?)(?: failed|: outcome unknown)$/.exec(String(e.attrs.error)) : null;
  if (storeError !== null) {
    // A task that waited for several store operations (a restore's reads) fails when the last
    // ends, which is its recorded cause; the failed one, which its error names, is why.
    const [, op, path] = storeError;
    const failed = latestBefore(index, e.seq, 0, (x) => x.type === 'store.end' && x.attrs.op === op && x.attrs.path === path
      && x.attrs.outcome !== 'ok');
    if (failed !== undefined && failed.seq !== index.causeOf(e)?.seq) {
      return { event: failed, inferred: `the task failed on this ${String(op)} of ${String(path)}` };
    }
  }
  if (e.type === 'checkpoint.skippedAborted') {
    // The recorded cause is the barrier that found the checkpoint aborted; what aborted it for
    // this task came before: the coordinator's abort notification (SubtaskCheckpointCoordinator's
    // aborted ids, checkAndClearAbortedStatus), of it or of a newer one (an id more than max
    // concurrent checkpoints below the newest aborted one counts as aborted too).
    const id = Number(e.attrs.checkpointId);
    const told = latestBefore(index, e.seq, 0, (x) => x.type === 'checkpoint.taskNotifiedAborted'
      && x.attrs.task === e.attrs.task && Number(x.attrs.checkpointId) >= id);
    return told === undefined ? undefined
      : { event: told, inferred: `checkpoint ${String(e.attrs.checkpointId)} was aborted for this task before its barrier came` };
  }
  if (HEARTBEAT_LOSSES.has(e.type) && String(e.attrs.cause ?? e.attrs.reason).includes('heartbeat')) {
    // The side that fell silent, and the side that noticed it.
    const teSide = e.type.startsWith('te.');
    const silent = teSide ? 'jobmanager' : hostOfAddress(e.attrs.taskExecutor);
    const observer = teSide ? e.host : 'jobmanager';
    // Told by its own window (since the last request), so it comes first.
    const blocked = jobMasterBlocked(index, e);
    if (blocked !== undefined) {
      return { event: blocked, inferred: 'the JobMaster\'s main thread waited here for the checkpoint coordinator\'s lock, '
        + 'sending and handling no heartbeats' };
    }
    const found = latestBefore(index, e.seq, 0, (x) => ((x.type === 'host.crash' || x.type === 'host.pause')
      && (x.host === silent || x.host === observer))
      || (x.type === 'net.partition' && (x.attrs.from === silent || x.attrs.to === silent))
      || lateMessageBetween(index, x, silent, observer));
    if (found !== undefined) return { event: found, inferred: `no heartbeat from ${silent ?? '?'} after this` };
    // Active at any moment of the silence: a message it delayed holds every later one on its
    // link, heartbeats too, for up to one normal latency past its end (the heal time).
    const setting = activeSettingFault(index, e.seq, RPC_SETTINGS, lastHeartbeat(index, e)?.seq ?? e.seq);
    return setting === undefined ? undefined
      : { event: setting, inferred: `heartbeats of ${silent ?? '?'} delayed or lost while this fault was active` };
  }
  if (e.type === 'scheduler.taskFailed' && e.attrs.cause === 'slot allocation replaced') {
    // The TaskExecutor offered the task's slot under a new allocation: it had freed the slot when
    // it disconnected from the JobMaster, and the ResourceManager allocated the free slot anew.
    const deploy = latestBefore(index, e.seq, 0, (x) => x.type === 'scheduler.deploy' && x.attrs.task === e.attrs.task);
    const host = hostOfAddress(deploy?.attrs.taskExecutor);
    const freed = host === undefined ? undefined
      : latestBefore(index, e.seq, 0, (x) => x.type === 'te.jmDisconnected' && x.host === host);
    return freed === undefined ? undefined
      : { event: freed, inferred: `${host ?? '?'} freed the slot of ${String(e.attrs.task)} here, and it was allocated anew` };
  }
  if (e.type === 'scheduler.taskFailed' && String(e.attrs.cause).includes('unexpected state transition')) {
    // A report that skips a state (RUNNING straight after DEPLOYING): one before it on the same
    // link was lost, since a link delivers in order.
    const deploy = latestBefore(index, e.seq, 0, (x) => x.type === 'scheduler.deploy' && x.attrs.task === e.attrs.task);
    const found = latestBefore(index, e.seq, deploy?.seq ?? 0, (x) => lostStateReport(index, x, deploy?.attrs.taskExecutor));
    return found === undefined ? undefined : { event: found, inferred: `a state report of ${String(e.attrs.task)} was lost here` };
  }
  if (e.type === 'checkpoint.aborted' && e.attrs.reason === 'CHECKPOINT_EXPIRED') {
    const id = e.attrs.checkpointId;
    const triggered = index.ofType('checkpoint.triggered').find((t) => t.attrs.checkpointId === id);
    const from = triggered?.seq ?? 0;
    // A task that took a newer checkpoint's trigger first skips this one as out of order and never
    // acknowledges it (Flink's SubtaskCheckpointCoordinatorImpl sends no decline for it): a
    // stop-with-savepoint's source stops before it triggers, and a savepoint asked for at once
    // overtakes it. Nothing else the checkpoint waited for matters then.
    const skipped = latestBefore(index, e.seq, from, (x) => x.type === 'checkpoint.skippedOutOfOrder' && x.attrs.checkpointId === id);
    if (skipped !== undefined) {
      return { event: skipped, inferred: `checkpoint ${String(id)} was skipped by ${String(skipped.attrs.task)}: a newer checkpoint's trigger ran there first` };
    }
    const found = latestBefore(index, e.seq, from, (x) => x.type === 'host.crash' || x.type === 'host.pause'
      || x.type === 'net.partition' || x.type === 'net.slow'
      || (x.type === 'fault' && (((x.attrs.type === 'message' || x.attrs.type === 'channel-event') && x.attrs.checkpoint === id)
        || x.attrs.type === 'slow-task'))
      || ((x.type === 'rpc.drop' || x.type === 'rpc.slow' || isRpcLost(x)) && aboutCheckpoint(index, x, id))
      || (x.type === 'store.slow' && inCheckpointDirectory(x.attrs.path, id)));
    if (found !== undefined) return { event: found, inferred: `checkpoint ${String(id)} missed acknowledgements after this` };
    // A coordinator stall still running at the trigger: the coordinators' snapshot waited behind it.
    const stall = activeSettingFault(index, e.seq, ['coordinator-stall'], from, 'stall');
    if (stall !== undefined) return { event: stall, inferred: `checkpoint ${String(id)} waited for a busy coordinator thread` };
    const slow = activeSlowdown(index, e.seq, from, triggered?.timeUs ?? 0);
    if (slow !== undefined) return { event: slow, inferred: `checkpoint ${String(id)} waited behind this fault's slow task or held channel` };
    const setting = activeSettingFault(index, e.seq, [...RPC_SETTINGS, 'slow-store', 'store-failure', 'store-unknown-outcome'], from);
    return setting === undefined ? undefined
      : { event: setting, inferred: `checkpoint ${String(id)} expired while this fault slowed or failed its messages or writes` };
  }
  return undefined;
}

/**
 * A fault that fired before event `before` and still slowed a checkpoint triggered at event
 * `from` (at `fromUs`): a slow task (action `slow`) with no `end` before `from` (its records, and
 * the barriers behind them, were processed slowly), or whose end came less than its own length
 * before `fromUs` (the work it slowed, and the back pressure it built, are still being worked
 * off: a bound, as for a hold), or a channel-event hold released after
 * `fromUs` (everything behind the held barrier or marker on that channel, later barriers too,
 * waited until its release), or released less than its own length before it: a hold of D ms
 * queues D ms of records, which its task works off after the release, so later barriers still
 * wait behind that backlog for up to D (a bound: a task faster than its input drains it sooner).
 */
function activeSlowdown(index: EventIndex, before: number, from: number, fromUs: number): TraceEvent | undefined {
  const faults = index.ofType('fault').filter((f) => f.seq < before && (f.attrs.type === 'slow-task' || f.attrs.type === 'channel-event'));
  return faults.find((f) => {
    if (f.attrs.type === 'channel-event') {
      return typeof f.attrs.releaseUs === 'number' && f.attrs.releaseUs + (f.attrs.releaseUs - f.timeUs) > fromUs;
    }
    if (f.attrs.action !== 'slow') return false;
    const end = faults.find((g) => g.attrs.index === f.attrs.index && g.attrs.action === 'end');
    return end === undefined || end.seq >= from || end.timeUs + (end.timeUs - f.timeUs) > fromUs;
  });
}

/** A JobMaster's main thread (`jobmanager/jobmaster/main`, `jobmanager/jobmaster-2/main`, ...). */
const JOB_MASTER_MAIN = /(^|\/)jobmaster(-\d+)?\/main$/;

/**
 * For a heartbeat loss between a JobMaster and a TaskExecutor: the JobMaster main thread's wait
 * for the checkpoint coordinator's lock (`checkpoint.lockWait`: a completion's slow `_metadata`
 * write holds it) that began after the silence did. The main thread sends the requests and
 * handles the reports; while it waits it does neither. The silence began at the JobMaster's last
 * heartbeat request to that TaskExecutor, not counting, for the TaskExecutor's timeout, one still
 * on its way then (a request sent once the wait ended may arrive after the timeout fired).
 */
function jobMasterBlocked(index: EventIndex, e: TraceEvent): TraceEvent | undefined {
  if (e.type !== 'jm.taskManagerLost' && e.type !== 'te.jmDisconnected') return undefined;
  const te = e.type === 'te.jmDisconnected' ? e.host : hostOfAddress(e.attrs.taskExecutor);
  const isRequest = (x: TraceEvent): boolean => x.type === 'rpc.send' && x.attrs.kind === 'heartbeat'
    && String(x.attrs.from).startsWith('jobmaster') && hostOfAddress(x.attrs.to) === te;
  let lastRequest = latestBefore(index, e.seq, 0, isRequest);
  // A request still on its way when the TaskExecutor's timeout fired (delivered after it) did not
  // end the TaskExecutor's silence: that began at an earlier one.
  while (e.type === 'te.jmDisconnected' && lastRequest !== undefined && (index.delivery(lastRequest.attrs.id)?.seq ?? -1) > e.seq) {
    lastRequest = latestBefore(index, lastRequest.seq, 0, isRequest);
  }
  // By time, not seq: a wait recorded in the step that sent the last request (the step then sent
  // no more) began at that instant.
  const since = lastRequest?.timeUs ?? 0;
  // From the indexed waits, latest first: a scan of the trace would walk all of it when there is none.
  const waits = index.ofType('checkpoint.lockWait');
  for (let i = waits.length - 1; i >= 0; i--) {
    const x = waits[i] as TraceEvent;
    if (x.seq < e.seq && x.timeUs >= since && JOB_MASTER_MAIN.test(String(x.attrs.thread))) return x;
  }
  return undefined;
}

/**
 * The delivery of the last heartbeat RPC that the side noticing heartbeat loss `e` got from the
 * silent side before `e` (its silence began after it): a JobMaster's or ResourceManager's
 * heartbeat request to a TaskExecutor, or the TaskExecutor's report to one of them.
 */
function lastHeartbeat(index: EventIndex, e: TraceEvent): TraceEvent | undefined {
  const endpoint = e.type === 'jm.taskManagerLost' || e.type === 'te.jmDisconnected' ? 'jobmaster' : 'resourcemanager';
  const fromTaskExecutor = e.type === 'jm.taskManagerLost' || e.type === 'rm.taskExecutorLost';
  return latestBefore(index, e.seq, 0, (x) => {
    if (x.type !== 'rpc.deliver') return false;
    const send = index.send(x.attrs.id);
    if (send?.attrs.kind !== 'heartbeat') return false;
    const from = String(send.attrs.from);
    const to = String(send.attrs.to);
    return fromTaskExecutor ? from === e.attrs.taskExecutor && to.startsWith(endpoint)
      : from.startsWith(endpoint) && hostOfAddress(to) === e.host;
  });
}

/**
 * Whether `x` made an RPC between hosts `a` and `b` (either way) late or lost it: its loss
 * (`rpc.drop`), a slow latency (`rpc.slow`), or a message fault that lost, delayed or held it.
 */
function lateMessageBetween(index: EventIndex, x: TraceEvent, a: string | undefined, b: string): boolean {
  // A late answer's drop follows a timeout; it made nothing late.
  const message = (x.type === 'rpc.drop' && x.attrs.reason !== 'late-answer') || x.type === 'rpc.slow' || isRpcLost(x)
    || (x.type === 'fault' && x.attrs.type === 'message');
  if (!message || a === undefined) return false;
  const send = index.send(x.attrs.id);
  if (send === undefined) return false;
  const to = hostOfRpcAddress(send.attrs.to);
  return (send.host === a && to === b) || (send.host === b && to === a);
}

/**
 * Whether `x` lost a task state report (updateTaskExecutionState) that TaskExecutor `from` sent
 * to a JobMaster: a drop (a crash of the sender or receiver, a cut, a message fault) or an
 * rpc-loss fault's loss.
 */
function lostStateReport(index: EventIndex, x: TraceEvent, from: unknown): boolean {
  if (!((x.type === 'rpc.drop' && x.attrs.reason !== 'late-answer') || isRpcLost(x))) return false;
  const send = index.send(x.attrs.id);
  return send?.attrs.method === 'updateTaskExecutionState' && send.attrs.from === from
    && String(send.attrs.to).startsWith('jobmaster');
}

/** The host of an RPC address: a TaskExecutor's host, or `jobmanager` for the JobMaster and ResourceManager. */
function hostOfRpcAddress(address: unknown): string | undefined {
  return hostOfAddress(address) ?? (typeof address === 'string' ? 'jobmanager' : undefined);
}

/** Whether object store `path` is a file of checkpoint (or savepoint) `id` (any job run's directory). */
function inCheckpointDirectory(path: unknown, id: unknown): boolean {
  return typeof path === 'string' && new RegExp(`(^|/)(chk|savepoint)-${String(id)}/`).test(path);
}

/** An RPC an rpc-loss fault lost (its `rpc-lost` mark names the message). */
function isRpcLost(x: TraceEvent): boolean {
  return x.type === 'mark' && x.attrs.name === 'rpc-lost';
}

/** World-setting faults on RPCs. */
const RPC_SETTINGS = ['rpc-delay', 'rpc-loss'];

/**
 * The start (`fault` event, action `started`: `start` for world-setting faults, `stall` for a
 * coordinator stall) of a fault of one of `types` that was active at some moment from event
 * `since` (default: at `before` only) to event `before`: started before `before` and not ended
 * before `since`. The first such one.
 */
function activeSettingFault(index: EventIndex, before: number, types: readonly string[], since = before,
  started = 'start'): TraceEvent | undefined {
  const faults = index.ofType('fault').filter((f) => f.seq < before && types.includes(String(f.attrs.type)));
  return faults.find((f) => f.attrs.action === started
    && !faults.some((g) => g.attrs.index === f.attrs.index && g.attrs.action === 'end' && g.seq < since));
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
