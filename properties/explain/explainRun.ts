/**
 * explainRun: why a run failed, as two cause chains merged by time (docs/explain.md).
 *
 * - The *cause chain* of the violating event: the event an oracle's verdict points to (the
 *   restore that let a surplus record's copy be committed, the protocol event that broke an
 *   invariant, the checkpoint an oracle names), then what caused it, back to a fault: the
 *   restore's failover, the task failure behind it, the crash at the root.
 * - The *why this checkpoint* chain of each restore in it: the restore went back to checkpoint c
 *   because every newer checkpoint triggered before it did not complete; for each, its abort and
 *   what caused that (a trigger RPC that timed out, the message loss behind it).
 *
 * Chains follow the trace's cause links (sim/Trace.ts) and, for silences, the rules of
 * causeChain.ts. Not the last N events: an event is in the explanation only if a chain reaches it.
 * `reachedFaults` lists the RunSpec faults the chains reach; when they reach none, `noFault`
 * says whether any fault fired at all (a chain may claim "no fault" only when none fired).
 */
import { transactionName } from '../../sim/SimTransactionalStore.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import { causeChain, type ChainStep } from './causeChain.ts';
import { describeEvent, type DescribeContext } from './describeEvent.ts';
import { EventIndex } from './EventIndex.ts';
import { recordIdentity } from '../../engine/streaming/api/StreamRecord.ts';

/** Which chain an explanation step is on. */
export type ChainName = 'cause' | 'why-checkpoint';

/** One line of the explanation. */
export interface ExplanationStep {
  readonly seq: number;
  /** Virtual ms. */
  readonly timeMs: number;
  readonly host: string;
  readonly type: string;
  /** What happened, in words. */
  readonly text: string;
  readonly chains: readonly ChainName[];
  /** On the why-checkpoint chain: the newer checkpoints whose end this step leads to. */
  readonly whyCheckpoints?: readonly number[];
  /** The rule that led to this step when no recorded cause link did (causeChain.ts). */
  readonly inferred?: string;
  /** The event's attributes, for --json. */
  readonly attrs: TraceEvent['attrs'];
}

/** A restore of the run and why it used the checkpoint it used. */
export interface RestoreExplanation {
  readonly seq: number;
  /** The checkpoint restored; -1 when none had completed. */
  readonly checkpointId: number;
  /** Each newer checkpoint triggered before the restore, and how it ended before it. */
  readonly newer: readonly { readonly checkpointId: number; readonly outcome: string }[];
}

export interface Explanation {
  /** Whether it explains a violation (else what a run that holds went through). */
  readonly violated: boolean;
  /** The events the cause chain starts from (with what points to them). */
  readonly anchors: readonly { readonly seq: number; readonly why: string }[];
  /** Both chains merged in trace order, each event once (the events put in words). */
  readonly steps: readonly ExplanationStep[];
  /** The `seq` of every event on either chain, in order, described or not (RPC sends, ...). */
  readonly seqs: readonly number[];
  readonly restores: readonly RestoreExplanation[];
  /** Indexes of RunSpec faults the chains reach. */
  readonly reachedFaults: readonly number[];
  /** How many distinct faults fired in the run. */
  readonly faultsFired: number;
  /** The planted bugs the run had switched on (RunSpec.mutations): a cause the trace cannot show. */
  readonly plantedBugs: readonly string[];
  /**
   * One line when the chains reach no fault: that no fault fired (the failure needs none), or
   * that the links stop short of the faults that did fire (never claims "no fault" then).
   */
  readonly noFault?: string;
}

/** describeEvent for the events of `result` (what a diagram of its explanation writes). */
export function describerOf(result: RunResult): (e: TraceEvent) => string | undefined {
  const ctx: DescribeContext = { index: new EventIndex(result.trace), faults: result.spec.faults, stats: result.checkpointStats };
  return (e) => describeEvent(e, ctx);
}

/** At most this many newer checkpoints are explained per restore (the latest ones). */
const MAX_NEWER = 4;

/**
 * Explains `violation` of `result` (or, with none, the run's restores: what its faults did).
 * Needs the run's stored trace; a trace capped by `traceLimit` explains only what it stored.
 */
export function explainRun(result: RunResult, violation: Violation | undefined): Explanation {
  const index = new EventIndex(result.trace);
  const ctx: DescribeContext = { index, faults: result.spec.faults, stats: result.checkpointStats };
  const anchors = anchorsOf(index, result, violation);
  const on = new Map<number, { step: ChainStep; chains: Set<ChainName>; why: Set<number> }>();
  const add = (steps: readonly ChainStep[], chain: ChainName, why?: number): void => {
    for (const s of steps) {
      let had = on.get(s.event.seq);
      if (had === undefined) on.set(s.event.seq, had = { step: s, chains: new Set(), why: new Set() });
      had.chains.add(chain);
      if (why !== undefined) had.why.add(why);
    }
  };
  const restoreEvents = new Map<number, TraceEvent>();
  for (const a of anchors) {
    const chain = causeChain(index, a.event);
    add(chain, 'cause');
    for (const s of chain) if (s.event.type === 'checkpoint.restored') restoreEvents.set(s.event.seq, s.event);
  }
  const restores: RestoreExplanation[] = [];
  for (const r of [...restoreEvents.values()].sort((a, b) => a.seq - b.seq)) {
    const newer = newerCheckpoints(index, r);
    restores.push({ seq: r.seq, checkpointId: r.attrs.checkpointId as number, newer: newer.map((n) => ({ checkpointId: n.id, outcome: n.outcome })) });
    for (const n of newer) if (n.end !== undefined) add(causeChain(index, n.end), 'why-checkpoint', n.id);
  }
  const anchorSeqs = new Set(anchors.map((a) => a.event.seq));
  const steps: ExplanationStep[] = [];
  for (const { step, chains, why } of [...on.values()].sort((a, b) => a.step.event.seq - b.step.event.seq)) {
    const e = step.event;
    const text = describeEvent(e, ctx) ?? (anchorSeqs.has(e.seq) ? `${e.type} ${JSON.stringify(e.attrs)}` : undefined);
    if (text === undefined) continue;
    steps.push({
      seq: e.seq, timeMs: e.timeUs / 1000, host: e.host, type: e.type, text, chains: [...chains].sort(),
      ...(why.size === 0 ? {} : { whyCheckpoints: [...why].sort((a, b) => a - b) }),
      ...(step.inferred === undefined ? {} : { inferred: step.inferred }), attrs: e.attrs,
    });
  }
  const reached = [...new Set([...on.values()].filter((x) => isFiring(x.step.event))
    .map((x) => x.step.event.attrs.index as number))].sort((a, b) => a - b);
  const faultsFired = new Set(index.ofType('fault').filter(isFiring).map((f) => f.attrs.index)).size;
  const noFault = reached.length > 0 ? undefined : faultsFired === 0
    ? (violation === undefined ? 'no fault fired in this run' : 'no fault fired in this run: the failure needs none')
    : `the cause links stop short of the ${faultsFired} fault(s) that fired (see --events for the whole run)`;
  return {
    violated: violation !== undefined,
    plantedBugs: [...result.spec.mutations],
    anchors: anchors.map((a) => ({ seq: a.event.seq, why: a.why })), steps,
    seqs: [...on.keys()].sort((a, b) => a - b), restores,
    reachedFaults: reached, faultsFired, ...(noFault === undefined ? {} : { noFault }),
  };
}

interface Anchor {
  readonly event: TraceEvent;
  readonly why: string;
}

/**
 * True for a `fault` event of a fault acting (firing, ending, releasing), false for one logged
 * `skipped` (its point came at or after the heal time, or its task was never deployed): a fault
 * that did nothing is no root of anything and no anchor of a run's story.
 */
function isFiring(e: TraceEvent): boolean {
  return e.type === 'fault' && e.attrs.action !== 'skipped';
}

/** The events an oracle's verdict points to (see the file comment); at most three. */
function anchorsOf(index: EventIndex, result: RunResult, v: Violation | undefined): Anchor[] {
  // Rounded: a time in ms (464.091) times 1000 is not always the integer µs it came from.
  const limitUs = Math.round((v?.timeMs ?? result.outcome.timeMs) * 1000);
  const details = (v?.details ?? {}) as Record<string, unknown>;
  const anchors: Anchor[] = [];
  const push = (event: TraceEvent | undefined, why: string): void => {
    if (event !== undefined && !anchors.some((a) => a.event.seq === event.seq) && anchors.length < 3) anchors.push({ event, why });
  };
  // An engine assertion is an event of its own.
  if (v?.property === 'engine-assertion') {
    push([...index.ofType('engine.assertion')].reverse().find((e) => e.timeUs <= limitUs), 'the engine assertion');
  }
  // A protocol invariant names its event.
  const named = details.event as { seq?: unknown } | undefined;
  if (named !== undefined && typeof named.seq === 'number') push(index.get(named.seq), 'the event that broke the invariant');
  // prompt-abort names the failure the coordinator learned of (and did not act on at once).
  const learned = details.learnedBy as { seq?: unknown } | undefined;
  if (learned !== undefined && typeof learned.seq === 'number') push(index.get(learned.seq), 'the failure the coordinator learned of');
  // A surplus or mismatched copy committed by a later attempt: the restore that deployed it.
  for (const r of [...recordsOf(details.surplus), ...recordsOf(details.valueMismatches)]) {
    if (r.attempt <= 0) continue;
    const restore = restoreBeforeAttempt(index, r.subtask, r.attempt);
    push(restore, `the restore before attempt ${r.attempt} of sink subtask ${r.subtask}, which committed ${r.id} again`);
    // The copy committed before it (the transaction that first made the record visible), and
    // where the restored source went back to (before the record: it was read again).
    push(firstCommitOf(index, result, r.id), `the first commit of ${r.id}`);
    if (restore !== undefined) push(rereadFrom(index, restore, r.id), `where the source read ${r.id} again from`);
    break;
  }
  // Missing records: the transactions left hanging, pre-committed and neither committed nor
  // aborted (their records never became visible), through the abort of their checkpoint.
  if (hasMissing(details) || details.invariant === 'no-lingering-transactions') {
    const ended = new Set([...index.ofType('txn.commit'), ...index.ofType('txn.abort')].map((t) => String(t.attrs.txn)));
    for (const p of index.ofType('sink.pre-committed')) {
      const a = p.attrs;
      if (ended.has(`${String(a.sink)}#${String(a.subtask)}@${String(a.attempt)}/e${String(a.epoch)}`)) continue;
      const abort = index.ofType('checkpoint.aborted').find((x) => x.attrs.checkpointId === a.checkpoint);
      // A completed checkpoint's transaction waits for its notification: was one lost?
      const lost = abort === undefined ? lostMessage(index, 'confirmCheckpoint', a.checkpoint) : undefined;
      push(abort ?? lost ?? p, `the transaction of checkpoint ${String(a.checkpoint)} on sink subtask ${String(a.subtask)}, pre-committed and never committed`);
    }
  }
  // A checkpoint the oracle names: how it ended (or its trigger), and what led there.
  const id = details.checkpointId ?? checkpointOfPath(details.leaked);
  if (typeof id === 'number' && id >= 1) checkpointAnchors(index, details, id, push);
  if (v === undefined) {
    // A run that holds: what its restores went back to, else where its faults struck.
    for (const r of index.ofType('checkpoint.restored').slice(-3)) push(r, 'a restore of the run');
    const firstOf = new Map<unknown, TraceEvent>();
    for (const f of index.ofType('fault').filter(isFiring)) if (!firstOf.has(f.attrs.index)) firstOf.set(f.attrs.index, f);
    for (const [i, f] of firstOf) push(f, `fault ${String(i)}`);
  }
  if (anchors.length === 0) {
    const last = (type: string): TraceEvent | undefined => [...index.ofType(type)].reverse().find((e) => e.timeUs <= limitUs);
    const before = v === undefined ? 'of the run' : 'before the violation';
    push(last('checkpoint.restored'), `the last restore ${before}`);
    // Not the aborts of a job's end (the coordinator shuts down): no failure.
    const abort = [...index.ofType('checkpoint.aborted')].reverse()
      .find((e) => e.timeUs <= limitUs && !END_OF_JOB_ABORTS.has(String(e.attrs.reason)));
    const lastFault = (): TraceEvent | undefined => [...index.ofType('fault')].reverse().find((e) => e.timeUs <= limitUs && isFiring(e));
    if (anchors.length === 0) push(last('scheduler.restarting') ?? abort ?? lastFault(), `the last failure ${before}`);
  }
  return anchors;
}

/**
 * The anchors of checkpoint `id`, which an oracle names: its first end (or its trigger), for a
 * checkpoint that is not restorable what lost one of its files, the last restore before it, and
 * the failovers while it was pending.
 */
function checkpointAnchors(index: EventIndex, details: Record<string, unknown>, id: number,
  push: (event: TraceEvent | undefined, why: string) => void): void {
  // Its first end, whenever recorded (an oracle's time for it can be its completion
  // timestamp, taken before the metadata write that precedes the event).
  const end = [...index.ofType('checkpoint.completed'), ...index.ofType('checkpoint.aborted')]
    .filter((e) => e.attrs.checkpointId === id).sort((a, b) => a.seq - b.seq)[0];
  const trigger = index.ofType('checkpoint.triggered').find((e) => e.attrs.checkpointId === id);
  push(end ?? trigger, `checkpoint ${id}, which the oracle names`);
  // A retained checkpoint that is not restorable: what left a file of it missing (its write
  // failed, or its outcome was unknown and it did not happen), the first one the trace shows.
  for (const path of missingFiles(details)) {
    const lost = lostWrite(index, path);
    if (lost === undefined) continue;
    push(lost, `the lost write of ${path}, a file checkpoint ${id} names`);
    break;
  }
  // Its state goes back to the last restore before it, if any.
  const restore = trigger === undefined ? undefined
    : [...index.ofType('checkpoint.restored')].reverse().find((r) => r.seq < trigger.seq);
  push(restore, `the last restore before checkpoint ${id}, whose state it builds on`);
  // What struck while it was pending: the failovers between its trigger and its end.
  for (const f of index.ofType('scheduler.restarting')) {
    if (trigger !== undefined && f.seq > trigger.seq && f.seq < (end?.seq ?? Number.POSITIVE_INFINITY)) push(f, `a failover while checkpoint ${id} was pending`);
  }
}

/**
 * The first loss of an RPC `method` about checkpoint `checkpointId` (its send was caused by an
 * event of that checkpoint): an `rpc.drop`, or an `rpc-lost` mark of an rpc-loss fault.
 */
function lostMessage(index: EventIndex, method: string, checkpointId: unknown): TraceEvent | undefined {
  const losses = [...index.ofType('rpc.drop'), ...index.ofType('mark').filter((m) => m.attrs.name === 'rpc-lost')]
    .sort((a, b) => a.seq - b.seq);
  return losses.find((l) => {
    const send = index.send(l.attrs.id);
    if (send === undefined || send.attrs.method !== method) return false;
    return checkpointBehind(index, send) === checkpointId;
  });
}

/** The checkpoint id of the nearest event with one on `e`'s cause chain (a few steps back). */
function checkpointBehind(index: EventIndex, e: TraceEvent): unknown {
  let x = index.causeOf(e);
  for (let i = 0; i < 8 && x !== undefined; i++, x = index.causeOf(x)) {
    const id = x.attrs.checkpointId ?? x.attrs.checkpoint;
    if (id !== undefined) return id;
  }
  return undefined;
}

/** Abort reasons of a job that ends (FINISHED, CANCELED): the coordinator stops, nothing failed. */
const END_OF_JOB_ABORTS = new Set(['CHECKPOINT_COORDINATOR_SUSPEND', 'CHECKPOINT_COORDINATOR_SHUTDOWN']);

/** The checkpoint of the first leaked file (`chk-3/v1#0@0/...`), if the details list any. */
function checkpointOfPath(leaked: unknown): number | undefined {
  const first: unknown = Array.isArray(leaked) ? leaked[0] : undefined;
  const m = typeof first === 'string' ? /(?:^|\/)(?:chk|savepoint)-(\d+)\//.exec(first) : null;
  return m === null ? undefined : Number(m[1]);
}

/**
 * Whether an oracle's details report missing records (objects; a storage verdict's `missing`
 * lists a checkpoint's missing files, which are no records).
 */
function hasMissing(details: Record<string, unknown>): boolean {
  const n = details.missingCount;
  return (typeof n === 'number' && n > 0)
    || (Array.isArray(details.missing) && details.missing.some((m) => typeof m === 'object' && m !== null));
}

/** The files a `restorable` storage verdict lists as missing (paths), else none. */
function missingFiles(details: Record<string, unknown>): string[] {
  if (details.invariant !== 'restorable' || !Array.isArray(details.missing)) return [];
  return details.missing.filter((m): m is string => typeof m === 'string');
}

/**
 * The last event that lost the write of `path`: the failed end of a put of it (caused by the
 * store fault that failed it), or an unknown outcome of one that did not happen.
 */
function lostWrite(index: EventIndex, path: string): TraceEvent | undefined {
  const failed = index.ofType('store.end').filter((e) => e.attrs.path === path && e.attrs.op === 'put' && e.attrs.outcome === 'failed');
  const unknown = index.ofType('store.unknown-outcome').filter((e) => e.attrs.path === path && e.attrs.happened === false);
  return [...failed, ...unknown].sort((a, b) => b.seq - a.seq)[0];
}

/**
 * The `sink.committed` event of the first transaction that committed a record of identity `id`
 * (`split:offset`, recordIdentity), found through the committed records' transactions.
 */
function firstCommitOf(index: EventIndex, result: RunResult, id: string): TraceEvent | undefined {
  const txns = new Set(result.committed.filter((c) => isRecord(c.record) && recordIdentity(c.record) === id)
    .map((c) => transactionName(c.txn)));
  if (txns.size === 0) return undefined;
  const commit = index.ofType('txn.commit').find((t) => txns.has(String(t.attrs.txn)));
  if (commit === undefined) return undefined;
  // The sink's own event of that commit names its checkpoint; else the store's.
  return index.ofType('sink.committed').find((e) => e.seq > commit.seq && e.seq <= commit.seq + 2) ?? commit;
}

/**
 * The first `source.splits-restored` after `restore` that resumes the split of record `id`
 * (`split:offset`) at or before its offset (`splits` lists `split@offset` entries).
 */
function rereadFrom(index: EventIndex, restore: TraceEvent, id: string): TraceEvent | undefined {
  const [split, offset] = id.split(':').map(Number);
  return index.ofType('source.splits-restored').find((e) => e.seq > restore.seq && String(e.attrs.splits).split(',')
    .some((entry) => {
      const [s, o] = entry.split('@').map(Number);
      return s === split && o !== undefined && offset !== undefined && o <= offset;
    }));
}

function isRecord(r: unknown): r is Parameters<typeof recordIdentity>[0] {
  return typeof r === 'object' && r !== null && 'split' in r && 'offset' in r;
}

interface CopyRecord {
  readonly id: string;
  readonly attempt: number;
  readonly subtask: number;
}

function recordsOf(list: unknown): CopyRecord[] {
  if (!Array.isArray(list)) return [];
  return list.filter((r): r is CopyRecord => typeof r === 'object' && r !== null
    && typeof (r as CopyRecord).attempt === 'number' && typeof (r as CopyRecord).subtask === 'number');
}

/**
 * The restore before the deployment of attempt `attempt` of the sink's subtask `subtask`: the
 * last `checkpoint.restored` before the first `task.deploying` of a task `v<n>#<subtask>@<attempt>`
 * whose vertex runs a sink (it committed or began a transaction).
 */
function restoreBeforeAttempt(index: EventIndex, subtask: number, attempt: number): TraceEvent | undefined {
  const sinkVertices = new Set([...index.ofType('sink.transaction-begun'), ...index.ofType('sink.committed')]
    .filter((e) => e.attrs.subtask === subtask).map((e) => String(e.attrs.task)));
  const deploy = index.ofType('task.deploying').find((e) => {
    const [vertex, at] = String(e.attrs.task).split('@');
    return at === String(attempt) && sinkVertices.has(vertex ?? '');
  });
  if (deploy === undefined) return undefined;
  return [...index.ofType('checkpoint.restored')].reverse().find((r) => r.seq < deploy.seq);
}

/** The checkpoints newer than the one restored at `r`, triggered before it, and how each ended. */
function newerCheckpoints(index: EventIndex, r: TraceEvent): { id: number; outcome: string; end: TraceEvent | undefined }[] {
  const restored = r.attrs.checkpointId as number;
  const out: { id: number; outcome: string; end: TraceEvent | undefined }[] = [];
  for (const t of index.ofType('checkpoint.triggered')) {
    const id = t.attrs.checkpointId as number;
    if (t.seq > r.seq || id <= restored) continue;
    const aborted = index.ofType('checkpoint.aborted').find((e) => e.attrs.checkpointId === id && e.seq < r.seq);
    const completed = index.ofType('checkpoint.completed').find((e) => e.attrs.checkpointId === id && e.seq < r.seq);
    const end = aborted ?? completed;
    const outcome = aborted !== undefined ? `aborted (${String(aborted.attrs.reason)})`
      : completed !== undefined ? 'completed, yet not restored' : 'still pending';
    out.push({ id, outcome, end });
  }
  return out.slice(-MAX_NEWER);
}
