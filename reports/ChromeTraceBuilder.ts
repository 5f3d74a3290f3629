/**
 * ChromeTraceBuilder: one pass over a run's trace events that turns them into Chrome Trace Event
 * Format events with symbolic processes and threads (reports/chromeTrace.ts numbers them). Its
 * rules, which docs/trace.md explains to users:
 *
 * - Time. `ts` is virtual µs. Every event gets its own position, in integer ns: its virtual µs,
 *   moved on by 2 ns past the event before it when several share a µs, so the run's order holds
 *   across threads (an arrow never points back in time) and every event has a point strictly
 *   inside its own 2 ns (`+1`) where a flow end or instant can sit. Only a µs with more than 500
 *   events (none seen in explore runs) spills into the next one.
 * - Slices. A stored `task` event (sim/Trace.ts, with `startUs` and `lastSeq`) is one executor
 *   task: an `X` slice on its executor's thread from when it began paying its cost (`startUs`) to
 *   just after the last event it recorded. The events with a seq up to `lastSeq` happened inside
 *   it and are listed in its args. A thread's slices follow one another and never overlap: a
 *   slice starts no earlier than the previous one ended. A `blocked: ...` marker inside a task
 *   (SimExecutor.block) becomes a slice from that task's end to the next task on the thread.
 * - Events recorded outside any task (message arrivals, data connections, store completions,
 *   fault actions: the sim's own lanes) that must anchor a flow get a 2 ns slice on the thread
 *   `(sim lanes)` of their process.
 *
 * Pure and deterministic: Maps and Sets are iterated in insertion order only.
 */
import type { TraceEvent } from '../sim/Trace.ts';

/** A process or thread-bound event before numbering: `proc`/`thread` are keys, times in ns. */
export interface DraftEvent {
  readonly ph: string;
  readonly name: string;
  readonly cat?: string;
  readonly proc: string;
  /** Thread key (local executor name, `task <attempt>`, or {@link LANES}); none: process level. */
  readonly thread?: string;
  readonly ns: number;
  readonly durNs?: number;
  readonly id?: number | string;
  readonly s?: 'g' | 'p' | 't';
  readonly bp?: 'e';
  readonly args?: Readonly<Record<string, unknown>>;
}

/** The thread of a process where events recorded outside any executor task are anchored. */
export const LANES = '(sim lanes)';
/** The process keys of the two endpoints on host `jobmanager`. */
export const JOB_MASTER = 'jobmaster';
export const RESOURCE_MANAGER = 'resourcemanager';

const STEP_NS = 2;
/** The name of every sink transaction's async slice (their ids tell them apart). */
const TXN = 'transaction';
/** Task attempt states (Flink's ExecutionState) that `task.<state>` events enter. */
const OPEN_STATES = new Set(['DEPLOYING', 'INITIALIZING', 'RUNNING', 'CANCELING']);
const TERMINAL_STATES = new Set(['FINISHED', 'FAILED', 'CANCELED']);
/** At most this many inner events are listed in a slice's args (the rest are counted). */
const MAX_LISTED = 24;

interface Where {
  readonly proc: string;
  readonly thread: string;
}

interface OpenTask extends Where {
  readonly lastSeq: number;
  readonly executor: string;
  readonly label: string;
  readonly startNs: number;
  lastNs: number;
  readonly inner: TraceEvent[];
  blocked: string | undefined;
}

interface ThreadState {
  endNs: number;
  blocked: { readonly sinceNs: number; readonly label: string } | undefined;
}

interface Send {
  readonly ns: number;
  readonly event: TraceEvent;
  readonly where: Where | undefined;
  readonly method: string;
  readonly answer: boolean;
  readonly to: string;
}

interface Delivery {
  readonly id: number;
  readonly label: string;
  readonly ns: number;
  readonly event: TraceEvent;
  readonly proc: string;
}

interface Lifecycle {
  readonly proc: string;
  readonly state: string;
  readonly ns: number;
}

/** What {@link ChromeTraceBuilder.counts} reports about the content drawn. */
export interface ChromeTraceCounts {
  checkpoints: number;
  rpcFlows: number;
  barrierFlows: number;
  droppedRpcs: number;
  taskSlices: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : String(v));
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** The process key of executor `host/local` (the JobManager host holds two endpoints). */
function executorProc(host: string, local: string): string {
  if (host !== 'jobmanager') return host;
  return local.startsWith('resourcemanager/') ? RESOURCE_MANAGER : JOB_MASTER;
}

/** The endpoint name of an RPC address: `taskexecutor@taskmanager-1/0` -> `taskexecutor`. */
const endpointName = (address: string): string => address.split('@')[0] ?? address;

/** One inner event as a short line for a slice's args. */
const describe = (e: TraceEvent): string => `${e.type} ${JSON.stringify(e.attrs)}`;

export class ChromeTraceBuilder {
  readonly out: DraftEvent[] = [];
  readonly counts: ChromeTraceCounts = { checkpoints: 0, rpcFlows: 0, barrierFlows: 0, droppedRpcs: 0, taskSlices: 0 };
  private lastNs = -STEP_NS;
  private open: OpenTask | undefined;
  private readonly threads = new Map<string, ThreadState>();
  private readonly sends = new Map<number, Send>();
  /** Executor full name -> deliveries whose handler task has not run yet, in arrival order. */
  private readonly handlers = new Map<string, Delivery[]>();
  /** RPC id -> the executor whose {@link handlers} queue holds its delivery. */
  private readonly delivered = new Map<number, string>();
  /** Checkpoints triggered and not yet completed or aborted. */
  private readonly checkpoints = new Set<number>();
  /**
   * Store operation `op path` -> async ids of those in flight, oldest first. Slices are named by
   * the operation only, so that Perfetto packs them into a few tracks rather than one per path.
   */
  private readonly storeOps = new Map<string, number[]>();
  private nextAsync = 0;
  private readonly txns = new Set<string>();
  private readonly lifecycles = new Map<string, Lifecycle>();
  /** Consumer attempt -> producer attempts it reads from (from `net.connect` keys). */
  private readonly upstreams = new Map<string, Set<string>>();
  /** `checkpoint|attempt` -> where the attempt sent its barriers for that checkpoint. */
  private readonly barriers = new Map<string, { ns: number; where: Where }>();
  private nextBarrierFlow = 0;
  private readonly anchors = new Map<number, Where>();

  /** Adds one event, in trace order. */
  add(e: TraceEvent): void {
    const ns = Math.max(e.timeUs * 1000, this.lastNs + STEP_NS);
    this.lastNs = ns;
    const open = this.open;
    if (e.type === 'task' && e.attrs['startUs'] === undefined) {
      // A marker inside the running task: the thread blocks when that task returns.
      if (open !== undefined && e.seq <= open.lastSeq) {
        open.lastNs = ns;
        open.blocked = str(e.attrs['label']).replace(/^blocked: /, '');
        open.inner.push(e);
      }
      return;
    }
    const inside = open !== undefined && e.seq <= open.lastSeq;
    if (!inside && open !== undefined) this.closeTask(open);
    if (e.type === 'task') {
      this.startTask(e, ns);
      return;
    }
    let where: Where | undefined;
    if (inside) {
      open.lastNs = ns;
      open.inner.push(e);
      where = open;
    }
    this.dispatch(e, ns, where);
  }

  /** Ends the trace after the last added event: closes every open slice, async slice and flow. */
  finish(): void {
    if (this.open !== undefined) this.closeTask(this.open);
    const endNs = this.lastNs + STEP_NS;
    for (const [key, t] of this.threads) {
      if (t.blocked !== undefined) this.endBlocked(key, t, endNs);
    }
    for (const [executor, queue] of this.handlers) {
      for (const d of queue) this.rpcFlow(d, undefined);
      this.handlers.delete(executor);
    }
    for (const id of this.checkpoints) {
      this.out.push({ ph: 'e', cat: 'checkpoint', name: `checkpoint ${id}`, id: `checkpoint ${id}`, proc: JOB_MASTER, ns: endNs, args: { status: 'unfinished' } });
    }
    this.checkpoints.clear();
    for (const [key, ids] of this.storeOps) {
      const op = key.split(' ')[0] as string;
      for (const id of ids) this.out.push({ ph: 'e', cat: 'store', name: op, id, proc: 'store', ns: endNs, args: { outcome: 'in flight at the end' } });
    }
    this.storeOps.clear();
    for (const txn of this.txns) this.out.push({ ph: 'e', cat: 'txn', name: TXN, id: `txn ${txn}`, proc: 'txn-store', ns: endNs, args: { status: 'open at the end' } });
    this.txns.clear();
    for (const attempt of [...this.lifecycles.keys()]) this.endLifecycle(attempt, endNs, undefined);
  }

  private threadState(w: Where): ThreadState {
    const key = `${w.proc}\u0000${w.thread}`;
    let t = this.threads.get(key);
    if (t === undefined) {
      t = { endNs: -1, blocked: undefined };
      this.threads.set(key, t);
    }
    return t;
  }

  private startTask(e: TraceEvent, ns: number): void {
    const executor = str(e.attrs['executor']);
    const slash = executor.indexOf('/');
    const local = slash < 0 ? executor : executor.slice(slash + 1);
    const proc = executorProc(e.host, local);
    const where = { proc, thread: local };
    const t = this.threadState(where);
    // It began paying its cost at startUs; a block ends when the task that ends it starts.
    const costFromNs = (num(e.attrs['startUs']) ?? e.timeUs) * 1000;
    if (t.blocked !== undefined) this.endBlocked(`${proc}\u0000${local}`, t, Math.min(costFromNs, ns));
    const startNs = Math.min(Math.max(costFromNs, t.endNs), ns);
    const label = str(e.attrs['label']);
    this.open = {
      proc, thread: local, lastSeq: num(e.attrs['lastSeq']) ?? e.seq, executor, label, startNs, lastNs: ns, inner: [],
      blocked: undefined,
    };
    // The handler of a delivered RPC is the next task with its label on the endpoint's main thread.
    const queue = this.handlers.get(executor);
    const i = queue === undefined ? -1 : queue.findIndex((d) => d.label === label);
    if (queue !== undefined && i >= 0) {
      const [d] = queue.splice(i, 1) as [Delivery];
      this.rpcFlow(d, { where, ns });
    }
  }

  private closeTask(open: OpenTask): void {
    this.open = undefined;
    const endNs = open.lastNs + STEP_NS;
    const first = open.inner.find((x) => x.type !== 'task');
    const name = open.label === 'mailbox' && first !== undefined ? `mailbox: ${first.type}` : open.label;
    const listed = open.inner.slice(0, MAX_LISTED).map(describe);
    if (open.inner.length > MAX_LISTED) listed.push(`... ${open.inner.length - MAX_LISTED} more`);
    this.out.push({
      ph: 'X', cat: 'task', name, proc: open.proc, thread: open.thread, ns: open.startNs, durNs: endNs - open.startNs,
      args: listed.length === 0 ? { executor: open.executor } : { executor: open.executor, events: listed },
    });
    this.counts.taskSlices++;
    const t = this.threadState(open);
    t.endNs = endNs;
    if (open.blocked !== undefined) t.blocked = { sinceNs: endNs, label: open.blocked };
  }

  private endBlocked(key: string, t: ThreadState, untilNs: number): void {
    const b = t.blocked;
    if (b === undefined) return;
    t.blocked = undefined;
    if (untilNs <= b.sinceNs) return;
    const [proc, thread] = key.split('\u0000') as [string, string];
    this.out.push({ ph: 'X', cat: 'blocked', name: `blocked: ${b.label}`, proc, thread, ns: b.sinceNs, durNs: untilNs - b.sinceNs });
    t.endNs = untilNs;
  }

  /** The process of an event recorded outside any task. */
  private outsideProc(e: TraceEvent): string {
    if (e.host !== 'jobmanager') return e.host;
    if (e.type.startsWith('rm.')) return RESOURCE_MANAGER;
    const address = e.type === 'rpc.deliver' ? this.sends.get(num(e.attrs['id']) ?? -1)?.to : e.attrs['address'];
    return address === RESOURCE_MANAGER ? RESOURCE_MANAGER : JOB_MASTER;
  }

  /** Where a flow end of `e` (at `ns`) binds: its task, or a 2 ns slice on its process's lanes. */
  private bindAt(e: TraceEvent, ns: number, where: Where | undefined, proc?: string): Where {
    if (where !== undefined) return where;
    const known = this.anchors.get(e.seq);
    if (known !== undefined) return known;
    const anchor = { proc: proc ?? this.outsideProc(e), thread: LANES };
    this.out.push({ ph: 'X', cat: 'sim', name: e.type, proc: anchor.proc, thread: anchor.thread, ns, durNs: STEP_NS, args: { attrs: e.attrs } });
    this.anchors.set(e.seq, anchor);
    return anchor;
  }

  private instant(e: TraceEvent, ns: number, where: Where | undefined, name: string, scope: 'g' | 'p' = 'p', proc?: string): void {
    this.out.push({ ph: 'i', s: scope, name, cat: e.type, proc: proc ?? where?.proc ?? this.outsideProc(e), ns: ns + 1, args: e.attrs });
  }

  private dispatch(e: TraceEvent, ns: number, where: Where | undefined): void {
    const a = e.attrs;
    switch (e.type) {
      case 'rpc.send': {
        const id = num(a['id']);
        if (id === undefined) return;
        this.sends.set(id, {
          ns, event: e, where: where ?? this.bindAt(e, ns, undefined), method: str(a['method']),
          answer: a['answer'] === true, to: str(a['to']),
        });
        return;
      }
      case 'rpc.deliver': return this.deliver(e, ns);
      case 'rpc.drop': {
        const id = num(a['id']) ?? -1;
        const send = this.sends.get(id);
        this.counts.droppedRpcs++;
        this.instant(e, ns, where, `rpc dropped: ${send?.method ?? '?'} (${str(a['reason'])})`, 'p');
        // An answer can arrive after its ask gave up (`late-answer`): it was delivered, so its
        // arrow ends where it arrived, and no handler task will run for it.
        const executor = this.delivered.get(id);
        const queue = executor === undefined ? undefined : this.handlers.get(executor);
        const i = queue === undefined ? -1 : queue.findIndex((d) => d.id === id);
        if (queue !== undefined && i >= 0) this.rpcFlow(queue.splice(i, 1)[0] as Delivery, undefined);
        this.sends.delete(id);
        return;
      }
      case 'checkpoint.triggered': {
        const id = num(a['checkpointId']);
        if (id === undefined || this.checkpoints.has(id)) return;
        this.checkpoints.add(id);
        this.counts.checkpoints++;
        this.out.push({ ph: 'b', cat: 'checkpoint', name: `checkpoint ${id}`, id: `checkpoint ${id}`, proc: JOB_MASTER, ns: ns + 1, args: a });
        return;
      }
      case 'checkpoint.completed':
      case 'checkpoint.aborted': {
        const id = num(a['checkpointId']);
        if (id === undefined || !this.checkpoints.has(id)) return;
        this.checkpoints.delete(id);
        const status = e.type === 'checkpoint.completed' ? 'COMPLETED' : 'ABORTED';
        this.out.push({
          ph: 'e', cat: 'checkpoint', name: `checkpoint ${id}`, id: `checkpoint ${id}`, proc: JOB_MASTER, ns: ns + 1,
          args: a['reason'] === undefined ? { status } : { status, reason: a['reason'] },
        });
        return;
      }
      case 'checkpoint.acknowledged':
      case 'checkpoint.declined': {
        const id = num(a['checkpointId']);
        if (id === undefined || !this.checkpoints.has(id)) return;
        const what = e.type === 'checkpoint.acknowledged' ? 'ack' : 'decline';
        this.out.push({ ph: 'n', cat: 'checkpoint', name: `checkpoint ${id}`, id: `checkpoint ${id}`, proc: JOB_MASTER, ns: ns + 1, args: { [what]: a['task'] ?? null } });
        return;
      }
      case 'checkpoint.barrierSent': {
        const w = this.bindAt(e, ns, where);
        this.barriers.set(`${str(a['checkpointId'])}|${str(a['task'])}`, { ns, where: w });
        return;
      }
      case 'checkpoint.aligned': return this.aligned(e, ns, where);
      case 'net.connect': {
        // key `e0:v0#0@0/1`: subpartition 1 of producer attempt v0#0@0's partition on edge e0.
        const producer = /^[^:]*:([^/]+)\//.exec(str(a['key']))?.[1];
        const consumer = where?.thread.startsWith('mailbox/') === true ? where.thread.slice('mailbox/'.length) : undefined;
        if (producer === undefined || consumer === undefined) return;
        let set = this.upstreams.get(consumer);
        if (set === undefined) this.upstreams.set(consumer, (set = new Set()));
        set.add(producer);
        return;
      }
      case 'store.begin': {
        const key = `${str(a['op'])} ${str(a['path'])}`;
        const id = this.nextAsync++;
        const ids = this.storeOps.get(key);
        if (ids === undefined) this.storeOps.set(key, [id]);
        else ids.push(id);
        this.out.push({ ph: 'b', cat: 'store', name: str(a['op']), id, proc: 'store', ns: ns + 1, args: { path: a['path'] ?? null, by: where?.thread ?? null } });
        return;
      }
      case 'store.end': {
        const key = `${str(a['op'])} ${str(a['path'])}`;
        const ids = this.storeOps.get(key);
        const id = ids?.shift();
        if (ids !== undefined && ids.length === 0) this.storeOps.delete(key);
        if (id === undefined) return this.instant(e, ns, where, e.type);
        this.out.push({ ph: 'e', cat: 'store', name: str(a['op']), id, proc: 'store', ns: ns + 1, args: { outcome: a['outcome'] ?? null } });
        return;
      }
      case 'txn.begin': {
        const txn = str(a['txn']);
        if (this.txns.has(txn)) return;
        this.txns.add(txn);
        this.out.push({ ph: 'b', cat: 'txn', name: TXN, id: `txn ${txn}`, proc: 'txn-store', ns: ns + 1, args: a });
        return;
      }
      case 'txn.preCommit':
      case 'txn.commit':
      case 'txn.abort': {
        const txn = str(a['txn']);
        if (!this.txns.has(txn)) return this.instant(e, ns, where, e.type, 'p', 'txn-store');
        const end = e.type !== 'txn.preCommit';
        if (end) this.txns.delete(txn);
        this.out.push({ ph: end ? 'e' : 'n', cat: 'txn', name: TXN, id: `txn ${txn}`, proc: 'txn-store', ns: ns + 1, args: { [e.type]: a['records'] ?? true } });
        return;
      }
      case 'fault': return this.instant(e, ns, where, `fault ${str(a['index'])}: ${str(a['type'])} ${str(a['action'] ?? '')}`.trim(), 'g', 'sim');
      case 'mark': return this.instant(e, ns, where, `mark ${str(a['name'])}`);
      case 'host.crash': return this.crash(e, ns);
      default:
        if (e.type.startsWith('task.') && typeof a['task'] === 'string') this.lifecycle(e, ns);
        // Inside a task an event is in the slice's args; outside, it is an instant of its process.
        if (where === undefined) this.instant(e, ns, where, e.type);
    }
  }

  private deliver(e: TraceEvent, ns: number): void {
    const id = num(e.attrs['id']);
    const send = id === undefined ? undefined : this.sends.get(id);
    if (id === undefined || send === undefined) return;
    // Handlers run on the endpoint's main thread (sim/RpcNetwork.ts), named after the endpoint.
    const executor = `${e.host}/${endpointName(send.to)}/main`;
    const d: Delivery = { id, label: send.answer ? 'rpc.answer' : send.method, ns, event: e, proc: this.outsideProc(e) };
    const queue = this.handlers.get(executor);
    if (queue === undefined) this.handlers.set(executor, [d]);
    else queue.push(d);
    this.delivered.set(id, executor);
  }

  /** Draws the flow of delivered RPC `d`, into its handler task `at`, else into its arrival. */
  private rpcFlow(d: Delivery, at: { where: Where; ns: number } | undefined): void {
    const send = this.sends.get(d.id);
    this.delivered.delete(d.id);
    if (send === undefined) return;
    this.sends.delete(d.id);
    const from = send.where ?? this.bindAt(send.event, send.ns, undefined);
    const to = at ?? { where: this.bindAt(d.event, d.ns, undefined, d.proc), ns: d.ns };
    const name = send.answer ? `${send.method} (answer)` : send.method;
    this.out.push({ ph: 's', cat: 'rpc', name, id: d.id, proc: from.proc, thread: from.thread, ns: send.ns + 1, args: send.event.attrs });
    this.out.push({ ph: 'f', bp: 'e', cat: 'rpc', name, id: d.id, proc: to.where.proc, thread: to.where.thread, ns: to.ns + 1 });
    this.counts.rpcFlows++;
  }

  /**
   * A task aligned checkpoint c: by then the barrier of c of every producer it reads from has
   * arrived (the engine records no arrival per channel), so each producer's barrierSent gets an
   * arrow to this alignment.
   */
  private aligned(e: TraceEvent, ns: number, where: Where | undefined): void {
    const task = str(e.attrs['task']);
    const c = str(e.attrs['checkpointId']);
    const producers = this.upstreams.get(task);
    if (producers === undefined) return;
    let to: Where | undefined;
    for (const p of producers) {
      const sent = this.barriers.get(`${c}|${p}`);
      if (sent === undefined) continue;
      to ??= this.bindAt(e, ns, where);
      const id = this.nextBarrierFlow++;
      const name = `barrier ${c}`;
      this.out.push({ ph: 's', cat: 'barrier', name, id, proc: sent.where.proc, thread: sent.where.thread, ns: sent.ns + 1, args: { from: p, to: task } });
      this.out.push({ ph: 'f', bp: 'e', cat: 'barrier', name, id, proc: to.proc, thread: to.thread, ns: ns + 1 });
      this.counts.barrierFlows++;
    }
  }

  /** A task attempt's state: one slice per state on the thread `task <attempt>`. */
  private lifecycle(e: TraceEvent, ns: number): void {
    const attempt = str(e.attrs['task']);
    const state = e.type.slice('task.'.length).toUpperCase();
    const terminal = TERMINAL_STATES.has(state);
    if (!terminal && !OPEN_STATES.has(state)) return;
    this.endLifecycle(attempt, ns, undefined);
    const proc = e.host;
    if (terminal) {
      this.out.push({ ph: 'i', s: 't', name: state, cat: 'task', proc, thread: `task ${attempt}`, ns, args: e.attrs });
    } else {
      this.lifecycles.set(attempt, { proc, state, ns });
    }
  }

  private endLifecycle(attempt: string, ns: number, why: string | undefined): void {
    const l = this.lifecycles.get(attempt);
    if (l === undefined) return;
    this.lifecycles.delete(attempt);
    this.out.push({
      ph: 'X', cat: 'task', name: l.state, proc: l.proc, thread: `task ${attempt}`, ns: l.ns, durNs: ns - l.ns,
      ...(why === undefined ? {} : { args: { ended: why } }),
    });
  }

  /** A host crashed: its threads stop, queued handlers never run, its attempts are gone. */
  private crash(e: TraceEvent, ns: number): void {
    const host = e.host;
    this.instant(e, ns, undefined, 'host.crash', 'p');
    for (const [key, t] of this.threads) {
      const proc = key.split('\u0000')[0] as string;
      if (t.blocked !== undefined && (proc === host || (host === 'jobmanager' && (proc === JOB_MASTER || proc === RESOURCE_MANAGER)))) {
        this.endBlocked(key, t, ns);
      }
    }
    for (const [executor, queue] of this.handlers) {
      if (!executor.startsWith(`${host}/`)) continue;
      for (const d of queue) this.rpcFlow(d, undefined);
      this.handlers.delete(executor);
    }
    for (const [attempt, l] of [...this.lifecycles]) {
      if (l.proc === host) this.endLifecycle(attempt, ns, 'host crashed');
    }
  }
}
