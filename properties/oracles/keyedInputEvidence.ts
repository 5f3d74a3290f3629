/**
 * Reads the trace's evidence of what each keyed operator read (the engine's `keyed.inputs`
 * events, engine/streaming/operators/KeyedInputLog.ts, recorded in at-least-once runs where the
 * state's duplicates may differ from the output's): which input records the final keyed state
 * holds, and which of its extra copies some restore explains. Only trace events are read: the
 * records an attempt processed between its snapshots, the checkpoint it restored from, and
 * which attempts finished; never the engine's state.
 *
 * The content of a subtask's state is a chain: an attempt starts from the content its subtask's
 * snapshot of the restored checkpoint had (nothing for a fresh start), and each snapshot adds
 * the records processed since the previous one. A checkpoint's content for a subtask is that of
 * the attempt that took its snapshot (at the same parallelism, a subtask restores its own key
 * groups). The final state of a subtask is its latest attempt that finished after processing
 * input (the one whose final state the run reports; an attempt deployed as finished traces
 * nothing), up to its final-state snapshot.
 *
 * A link of the chain (an attempt restored from checkpoint c) explains one more copy of a record
 * the restored content held, if c's position of the record's split was at or before its offset:
 * the source read it again and the stage counted it once more. Nothing else does.
 *
 * The evidence is judged incomplete (and the state left unjudged, with the reason) when a
 * restored checkpoint has no snapshot of the subtask, two attempts took one snapshot, a
 * subtask of the operator has no finished attempt, or an event is malformed.
 */
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';

/** The event type the engine records (KeyedInputLog.KEYED_INPUTS_EVENT). */
export const KEYED_INPUTS_EVENT = 'keyed.inputs';

/** The checkpoint id of the final-state snapshot. */
const FINAL = -1;
/** The restored checkpoint of an attempt that started from nothing. */
const NONE = -1;

/** An input record at a keyed operator. */
export interface KeyedInput {
  readonly split: number;
  readonly offset: number;
  readonly tag: string;
}

/** The key of an input identity in the multisets below (tag last: splits and offsets hold no `:`). */
export function inputKey(r: KeyedInput): string {
  return `${r.split}:${r.offset}:${r.tag}`;
}

/** What the evidence says of one keyed operator. */
export interface KeyedReads {
  /** Input identity key -> copies the final state holds. */
  readonly held: ReadonlyMap<string, number>;
  /** Input identity key -> restores on the final chains that explain one more copy of it. */
  readonly rereads: ReadonlyMap<string, number>;
  /** Input identity key -> the identity. */
  readonly inputs: ReadonlyMap<string, KeyedInput>;
  /** Subtasks (`<vertex>#<i>`) with a final state. */
  readonly subtasks: number;
}

/** The reading: per keyed operator uid, or why the evidence cannot be used. */
export type EvidenceReading =
  | { readonly ok: true; readonly operators: ReadonlyMap<string, KeyedReads> }
  | { readonly ok: false; readonly detail: string };

/** One attempt's events. */
interface Attempt {
  readonly id: string;
  readonly subtask: string;
  readonly number: number;
  readonly restored: number;
  readonly flushes: { readonly checkpoint: number; readonly records: readonly string[] }[];
}

/**
 * One item of an event's `records`: split, first offset, last offset of a range, tag. Offsets of
 * timer outputs are times in milliseconds and may have a fraction.
 */
const ITEM = /^(-?\d+):(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?(?::([^]*))?$/;

/** Thrown inside the reading when the evidence is unusable; caught at its entry. */
class Incomplete extends Error {}

/**
 * The evidence of `result`'s trace, per keyed operator; undefined when the trace holds none.
 * `positions(c)` gives checkpoint c's position per split (undefined: c is not among the run's
 * completed checkpoints, and its restore explains nothing).
 */
export function readKeyedInputs(
  result: Pick<RunResult, 'trace'>,
  positions: (checkpointId: number) => ReadonlyMap<number, number> | undefined,
): EvidenceReading | undefined {
  const byOperator = new Map<string, Map<string, Attempt>>();
  const finished = new Set<string>();
  for (const e of result.trace) {
    if (e.type === 'task.finished') finished.add(String(e.attrs['task']));
    else if (e.type === KEYED_INPUTS_EVENT) addEvent(byOperator, e);
  }
  if (byOperator.size === 0) return undefined;
  try {
    const operators = new Map<string, KeyedReads>();
    for (const [uid, attempts] of byOperator) {
      operators.set(uid, new OperatorChains(uid, attempts, positions).read(finished));
    }
    return { ok: true, operators };
  } catch (e) {
    if (e instanceof Incomplete) return { ok: false, detail: e.message };
    throw e;
  }
}

function addEvent(byOperator: Map<string, Map<string, Attempt>>, e: TraceEvent): void {
  const uid = String(e.attrs['operator']);
  const id = String(e.attrs['task']);
  const attempts = byOperator.get(uid) ?? new Map<string, Attempt>();
  byOperator.set(uid, attempts);
  let a = attempts.get(id);
  if (a === undefined) {
    const at = id.lastIndexOf('@');
    a = {
      id, subtask: id.slice(0, at), number: Number(id.slice(at + 1)),
      restored: Number(e.attrs['restored']), flushes: [],
    };
    attempts.set(id, a);
  }
  a.flushes.push({ checkpoint: Number(e.attrs['checkpoint']), records: splitItems(String(e.attrs['records'])) });
}

function splitItems(records: string): string[] {
  return records === '' ? [] : records.split(',');
}

/** The chains of one keyed operator's subtasks. */
class OperatorChains {
  /** `<subtask>\u0000<checkpoint>` -> the attempt that took that snapshot. */
  private readonly snapshotOf = new Map<string, Attempt>();
  /** Memo of {@link contentAt}. */
  private readonly contents = new Map<string, ReadonlyMap<string, number>>();
  private readonly inputs = new Map<string, KeyedInput>();

  constructor(
    private readonly uid: string,
    private readonly attempts: ReadonlyMap<string, Attempt>,
    private readonly positions: (checkpointId: number) => ReadonlyMap<number, number> | undefined,
  ) {
    for (const a of attempts.values()) {
      for (const f of a.flushes) {
        if (f.checkpoint === FINAL) continue;
        const key = `${a.subtask}\u0000${f.checkpoint}`;
        const other = this.snapshotOf.get(key);
        if (other !== undefined) {
          throw new Incomplete(`${uid}: attempts ${other.id} and ${a.id} both traced checkpoint ${f.checkpoint}`);
        }
        this.snapshotOf.set(key, a);
      }
    }
  }

  read(finished: ReadonlySet<string>): KeyedReads {
    const finals = new Map<string, Attempt>();
    for (const a of this.attempts.values()) {
      if (!finished.has(a.id) || !a.flushes.some((f) => f.checkpoint === FINAL)) continue;
      const best = finals.get(a.subtask);
      if (best === undefined || best.number < a.number) finals.set(a.subtask, a);
    }
    const subtasks = new Set([...this.attempts.values()].map((a) => a.subtask));
    for (const s of subtasks) {
      if (!finals.has(s)) throw new Incomplete(`${this.uid}: subtask ${s} has no finished attempt with a final state`);
    }
    const held = new Map<string, number>();
    const rereads = new Map<string, number>();
    for (const a of finals.values()) {
      for (const [k, n] of this.contentOf(a, FINAL)) held.set(k, (held.get(k) ?? 0) + n);
      this.explain(a, rereads);
    }
    return { held, rereads, inputs: this.inputs, subtasks: finals.size };
  }

  /** Counts, along `a`'s chain, the restores that explain one more copy of a record. */
  private explain(a: Attempt, rereads: Map<string, number>): void {
    for (let link: Attempt | undefined = a; link !== undefined && link.restored !== NONE;
      link = this.snapshotOf.get(`${link.subtask}\u0000${link.restored}`)) {
      // contentAt checks that the chain goes back in checkpoint ids (so this loop ends).
      const held = this.contentAt(link.subtask, link.restored);
      const positions = this.positions(link.restored);
      if (positions === undefined) continue;
      for (const k of held.keys()) {
        const r = this.inputs.get(k) as KeyedInput;
        const p = positions.get(r.split);
        if (p !== undefined && p <= r.offset) rereads.set(k, (rereads.get(k) ?? 0) + 1);
      }
    }
  }

  /** The content of `subtask`'s snapshot of checkpoint `c`. */
  private contentAt(subtask: string, c: number): ReadonlyMap<string, number> {
    const key = `${subtask}\u0000${c}`;
    const memo = this.contents.get(key);
    if (memo !== undefined) return memo;
    const a = this.snapshotOf.get(key);
    if (a === undefined) throw new Incomplete(`${this.uid}: no attempt of ${subtask} traced checkpoint ${c}, which an attempt restored`);
    const content = this.contentOf(a, c);
    this.contents.set(key, content);
    return content;
  }

  /** The content of attempt `a` at its snapshot of `c` (FINAL: its final state). */
  private contentOf(a: Attempt, c: number): Map<string, number> {
    // Checkpoint ids grow: an attempt's snapshots come after the checkpoint it restored, so
    // every chain ends (a trace that says otherwise is not evidence).
    if (a.restored !== NONE && c !== FINAL && a.restored >= c) {
      throw new Incomplete(`${this.uid}: attempt ${a.id} restored checkpoint ${a.restored} but traced checkpoint ${c}`);
    }
    const content = new Map(a.restored === NONE ? [] : this.contentAt(a.subtask, a.restored));
    for (const f of a.flushes) {
      for (const item of f.records) this.addItem(content, item, a);
      if (f.checkpoint === c) return content;
    }
    throw new Incomplete(`${this.uid}: attempt ${a.id} traced no snapshot of ${c === FINAL ? 'its final state' : `checkpoint ${c}`}`);
  }

  /** Adds the records of one item (`split:offset`, `split:first-last` or `split:offset:tag`). */
  private addItem(content: Map<string, number>, item: string, a: Attempt): void {
    const m = ITEM.exec(item);
    const first = Number(m?.[2]);
    const last = m?.[3] === undefined ? first : Number(m[3]);
    if (m === null || !(last >= first) || (m[3] !== undefined && m[4] !== undefined)) {
      throw new Incomplete(`${this.uid}: attempt ${a.id} traced a malformed record ${JSON.stringify(item)}`);
    }
    const split = Number(m[1]);
    const tag = m[4] === undefined ? '' : m[4].replace(/%(25|2C)/g, (x) => (x === '%25' ? '%' : ','));
    for (let offset = first; offset <= last; offset++) {
      const r = { split, offset, tag };
      const k = inputKey(r);
      if (!this.inputs.has(k)) this.inputs.set(k, r);
      content.set(k, (content.get(k) ?? 0) + 1);
    }
  }
}
