/**
 * chromeTrace: a run's trace as a Chrome Trace Event Format file that opens in Perfetto
 * (ui.perfetto.dev) and chrome://tracing. docs/trace.md says what a user sees and how to open it.
 *
 * Input: the run's trace events (`RunResult.trace`), best with the executor tasks stored
 * (`simulate(spec, { traceTasks: true })`: without them there are no executor slices, and flows
 * are anchored on each process's `(sim lanes)` thread). Output: a plain JSON-able object
 * `{ displayTimeUnit: 'ms', otherData, traceEvents }`.
 *
 * - Processes: the JobMaster and the ResourceManager (both on host `jobmanager`: told apart by
 *   executor names `jobmaster/...` and `resourcemanager/...`, `rm.*` events and the
 *   `resourcemanager` RPC address), each TaskManager (`taskmanager-N`), the object store
 *   (`store`), the transactional store (`txn-store`) and the harness (`sim`: faults).
 * - Threads: every executor (Flink's threads: `jobmaster/main`, `jobmaster/io-1`,
 *   `jobmaster/checkpoint-timer`, `resourcemanager/main`, `taskexecutor/main`,
 *   `mailbox/<attempt>`, `async/<attempt>`), one `task <attempt>` thread per task attempt for its
 *   states, and `(sim lanes)` per process for events recorded outside any task.
 * - Slices (`X`): executor tasks (mailbox actions among them), `blocked: ...` waits, and
 *   attempt states (DEPLOYING, INITIALIZING, RUNNING, CANCELING). Async slices (`b`/`e`):
 *   one per triggered checkpoint on the JobMaster (`e` at completed or aborted, including
 *   expired, else at the end with status `unfinished`; acks and declines as `n`), object-store
 *   operations and sink transactions. Flows (`s`/`f`): one per delivered RPC (sender task to
 *   handler task) and one per barrier from a producer's `barrierSent` to each consumer's
 *   alignment of that checkpoint. Instants (`i`): faults (global), dropped RPCs, marks, and
 *   other events recorded outside tasks (process-scoped).
 * - `ts` is virtual µs (ChromeTraceBuilder.ts: events sharing a µs are spread 2 ns apart in run
 *   order). pid and tid are integers, named by `M` metadata events.
 *
 * Pure and deterministic: the same events and meta give the same JSON, byte for byte.
 */
import type { TraceEvent } from '../sim/Trace.ts';
import {
  ChromeTraceBuilder, JOB_MASTER, LANES, RESOURCE_MANAGER, type ChromeTraceCounts, type DraftEvent,
} from './ChromeTraceBuilder.ts';

/** One Trace Event Format event. `ts` and `dur` in µs. */
export interface ChromeTraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts?: number;
  readonly dur?: number;
  readonly cat?: string;
  readonly id?: number | string;
  readonly s?: 'g' | 'p' | 't';
  readonly bp?: 'e';
  readonly args?: Readonly<Record<string, unknown>>;
}

/** What identifies the run, copied into `otherData` (absent fields are left out). */
export interface ChromeTraceMeta {
  readonly seed?: string | number;
  readonly path?: string;
  /** The restore fan-out fork's checkpoint (replay --fork). */
  readonly fork?: number;
  readonly mode?: string;
  readonly job?: string;
  readonly traceHash?: string;
}

export interface ChromeTraceOptions {
  /**
   * At most this many trace events in the file (default {@link DEFAULT_MAX_EVENTS}): a longer
   * run is cut after the run's event at which the count is reached, every open slice closed
   * there, and `otherData.truncated` says where.
   */
  readonly maxEvents?: number;
}

export interface ChromeTraceFile {
  readonly displayTimeUnit: 'ms';
  readonly otherData: Readonly<Record<string, unknown>>;
  readonly traceEvents: readonly ChromeTraceEvent[];
}

/**
 * About 75 MB of JSON (measured: about 150 bytes per event): Perfetto's UI loads that; JSON
 * files of hundreds of MB have crashed it. A 20,000-record flights run makes about 93,000.
 */
export const DEFAULT_MAX_EVENTS = 500_000;

/** Sort key of a process: the JobMaster, the ResourceManager, TaskManagers by number, the rest. */
function procRank(key: string): [number, number, string] {
  if (key === JOB_MASTER) return [0, 0, key];
  if (key === RESOURCE_MANAGER) return [1, 0, key];
  const tm = /^taskmanager-(\d+)$/.exec(key);
  if (tm !== null) return [2, Number(tm[1]), key];
  return [3, 0, key];
}

/** Sort key of a thread: main threads, timers, io pools, then per attempt its states, mailbox, async. */
function threadRank(key: string): (number | string)[] {
  if (key === LANES) return [9];
  const attempt = /^(task |mailbox\/|async\/)v(\d+)#(\d+)@(\d+)$/.exec(key);
  if (attempt !== null) {
    const kind = attempt[1] === 'task ' ? 0 : attempt[1] === 'mailbox/' ? 1 : 2;
    return [2, Number(attempt[2]), Number(attempt[3]), Number(attempt[4]), kind];
  }
  if (key.endsWith('/main')) return [0, key];
  const io = /^(.*)\/io-(\d+)$/.exec(key);
  if (io !== null) return [1, io[1] as string, Number(io[2])];
  return [1, key, 0];
}

function compareRanks(a: readonly (number | string)[], b: readonly (number | string)[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

function procName(key: string): string {
  if (key === JOB_MASTER) return 'JobMaster (jobmanager)';
  if (key === RESOURCE_MANAGER) return 'ResourceManager (jobmanager)';
  if (key.startsWith('taskmanager-')) return `TaskManager ${key}`;
  if (key === 'store') return 'object store (checkpoint storage)';
  if (key === 'txn-store') return 'transactional store (sink transactions)';
  if (key === 'sim') return 'sim (faults)';
  return key;
}

/**
 * The Chrome trace of `events` (in trace order, as `RunResult.trace` holds them) with `meta` in
 * `otherData`. Never throws for events of unknown types (they become instants or slice args).
 */
export function chromeTrace(
  events: readonly TraceEvent[], meta: ChromeTraceMeta = {}, options: ChromeTraceOptions = {},
): ChromeTraceFile {
  const max = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  const b = new ChromeTraceBuilder();
  let used = 0;
  for (const e of events) {
    // Room for the closing events that finish() adds is left by counting before adding.
    if (b.out.length >= max) break;
    b.add(e);
    used++;
  }
  b.finish();
  const { traceEvents, processes, threads } = number(b.out);
  const last = used === 0 ? undefined : events[used - 1];
  const otherData: Record<string, unknown> = {
    ...Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)),
    generator: 'checkpoint-sim',
    timeUnit: 'ts is virtual time in µs; events sharing a µs are spread 2 ns apart in the order the run recorded them',
    runEvents: events.length,
    processes,
    threads,
    ...countsOf(b.counts),
    ...(used < events.length && last !== undefined
      ? { truncated: { afterRunEvent: used, atMs: last.timeUs / 1000, runEventsLeftOut: events.length - used } } : {}),
  };
  return { displayTimeUnit: 'ms', otherData, traceEvents };
}

const countsOf = (c: ChromeTraceCounts): Record<string, number> => ({ ...c });

/** Numbers processes and threads, adds their `M` events, converts ns to µs and sorts by time. */
function number(drafts: readonly DraftEvent[]): { traceEvents: ChromeTraceEvent[]; processes: number; threads: number } {
  const procs = new Map<string, Set<string>>();
  for (const d of drafts) {
    let set = procs.get(d.proc);
    if (set === undefined) procs.set(d.proc, (set = new Set()));
    if (d.thread !== undefined) set.add(d.thread);
  }
  const procKeys = [...procs.keys()].sort((x, y) => compareRanks(procRank(x), procRank(y)));
  const pids = new Map<string, number>();
  const tids = new Map<string, number>();
  const meta: ChromeTraceEvent[] = [];
  let nextTid = 1000;
  procKeys.forEach((key, i) => {
    const pid = i + 1;
    pids.set(key, pid);
    meta.push({ ph: 'M', name: 'process_name', pid, tid: pid, args: { name: procName(key) } });
    meta.push({ ph: 'M', name: 'process_sort_index', pid, tid: pid, args: { sort_index: pid } });
    const threadKeys = [...(procs.get(key) as Set<string>)].sort((x, y) => compareRanks(threadRank(x), threadRank(y)));
    threadKeys.forEach((t, j) => {
      const tid = nextTid++;
      tids.set(`${key}\u0000${t}`, tid);
      meta.push({ ph: 'M', name: 'thread_name', pid, tid, args: { name: t } });
      meta.push({ ph: 'M', name: 'thread_sort_index', pid, tid, args: { sort_index: j } });
    });
  });
  const order = drafts.map((d, i) => ({ d, i })).sort((x, y) => x.d.ns - y.d.ns || x.i - y.i);
  const timed = order.map(({ d }): ChromeTraceEvent => {
    const pid = pids.get(d.proc) as number;
    const tid = d.thread === undefined ? pid : tids.get(`${d.proc}\u0000${d.thread}`) as number;
    return {
      name: d.name, ph: d.ph, pid, tid, ts: d.ns / 1000,
      ...(d.durNs === undefined ? {} : { dur: d.durNs / 1000 }),
      ...(d.cat === undefined ? {} : { cat: d.cat }),
      ...(d.id === undefined ? {} : { id: d.id }),
      ...(d.s === undefined ? {} : { s: d.s }),
      ...(d.bp === undefined ? {} : { bp: d.bp }),
      ...(d.args === undefined ? {} : { args: d.args }),
    };
  });
  return { traceEvents: [...meta, ...timed], processes: procKeys.length, threads: nextTid - 1000 };
}
