/**
 * A window of a run's trace as a Mermaid sequence diagram (`replay --mermaid`): the RPCs between
 * the cluster's endpoints as arrows, the events a caller describes as notes. Pure: no DOM, no I/O.
 *
 * Two steps, so a caller can choose or filter what is drawn: {@link sequenceStepsOf} turns trace
 * events into {@link SequenceStep}s, {@link mermaidSequence} writes them as the text of a
 * `sequenceDiagram`, escaped so that no name or description (`v0#0`, `;`, `end`, `<`...) can
 * break Mermaid's parser, and kept well under Mermaid's 50,000-character limit (`maxTextSize`).
 *
 * Participants are RPC addresses (engine/rpc/addresses.ts): `jobmaster`, `resourcemanager`,
 * `taskexecutor@<host>/<bootUs>` (Flink's TaskExecutor; a restarted TaskManager is a new one), plus
 * the hosts `sim` (faults), `store` (checkpoint storage) and `txn-store` (the sinks' transactions).
 */
import type { TraceEvent } from '../sim/Trace.ts';

/**
 * One thing the diagram shows, in trace order.
 * - `message`: an RPC from address `from` to address `to`, drawn at its send time `timeUs`
 *   (virtual µs); `reply` for an answer. `outcome` is `delivered`, `lost` (dropped; `label` says
 *   why) or `in-flight` (neither delivered nor dropped within the window).
 * - `note`: text over participant `over` (an address or a host name).
 * - `omitted`: how many earlier messages and notes were left out to keep the diagram readable.
 */
export type SequenceStep =
  | {
    readonly kind: 'message'; readonly timeUs: number; readonly from: string; readonly to: string;
    readonly label: string; readonly reply: boolean; readonly outcome: 'delivered' | 'lost' | 'in-flight';
  }
  | { readonly kind: 'note'; readonly timeUs: number; readonly over: string; readonly text: string }
  | { readonly kind: 'omitted'; readonly messages: number; readonly notes: number };

/** Options of {@link sequenceStepsOf}. */
export interface SequenceStepsOptions {
  /** At most this many messages (int >= 1, default 60): the last ones of the window are kept. */
  readonly maxMessages?: number;
  /**
   * What a message is about, after its method (`checkpoint 3 to v0#0@0`), from its `rpc.send`
   * event; undefined or empty for nothing. Default: nothing.
   */
  readonly about?: (send: TraceEvent) => string | undefined;
}

/** Options of {@link mermaidSequence}. */
export interface MermaidSequenceOptions {
  /** The diagram's title. */
  readonly title?: string;
  /** Prefix every message and note with its virtual time in ms (default false). */
  readonly showTimes?: boolean;
}

const DEFAULT_MAX_MESSAGES = 60;
/**
 * The diagram's size bound, in characters. Mermaid refuses a text over `maxTextSize` (50,000 by
 * default) with an error diagram; this leaves room for its own entity expansion.
 */
export const MAX_DIAGRAM_CHARS = 40_000;
/** A longer label or note is cut (before escaping) and ends with an ellipsis. */
const MAX_TEXT_CHARS = 400;

const TASK_EXECUTOR = /^taskexecutor@(.+)\/(\d+)$/;
const HOST_PARTICIPANTS: Readonly<Record<string, string>> = {
  sim: 'sim', store: 'store', 'txn-store': 'txn-store',
};

/** The TaskManager host of a TaskExecutor address (`taskmanager-1`), undefined for other addresses. */
function hostOfAddress(address: string): string | undefined {
  return TASK_EXECUTOR.exec(address)?.[1];
}

/** Why a message was lost, in words, for a drop reason of RpcNetwork (`rpc.drop`). */
function lossReason(reason: string): string {
  return reason.replaceAll('-', ' ');
}

/**
 * The steps of `events` (a window of a run's trace, in trace order):
 * - each `rpc.send` (attrs `id`, `from`, `to`, `method`, `answer`) is a message labelled with its
 *   method, `lost` when its id has an `rpc.drop` (attrs `id`, `reason`) or an injected-loss mark
 *   (`mark` named `rpc-lost`) in the window, `delivered` when it has an `rpc.deliver`, else
 *   `in-flight`. Those drops, deliveries and marks are no steps of their own;
 * - every other event for which `describe` returns text is a note over the participant of its
 *   host: `jobmanager` -> the JobMaster (`rm.*` events -> the ResourceManager), `taskmanager-N` ->
 *   its TaskExecutor at that point of the window (the incarnation that last started, sent or
 *   received; before any did, the first one the window names), the
 *   other hosts (`sim`, `store`, `txn-store`) -> their own participant.
 *
 * With more than `maxMessages` messages only the last `maxMessages` are kept, with everything
 * after the first of them; an `omitted` step first says how many messages and notes were left out.
 * Throws RangeError when `maxMessages` is not an integer >= 1.
 */
export function sequenceStepsOf(
  events: readonly TraceEvent[],
  describe: (e: TraceEvent) => string | undefined,
  options: SequenceStepsOptions = {},
): SequenceStep[] {
  const maxMessages = options.maxMessages ?? DEFAULT_MAX_MESSAGES;
  if (!Number.isInteger(maxMessages) || maxMessages < 1) {
    throw new RangeError(`maxMessages: expected an integer >= 1, got ${maxMessages}`);
  }
  const sent = new Map<number, string>(); // id -> the address it was sent to
  const outcomes = new Map<number, { readonly lost: boolean; readonly reason: string }>();
  // A TaskManager host's first TaskExecutor address in the window, for its notes before it acts.
  const firstAddress = new Map<string, string>();
  const noteAddress = (host: string, address: unknown): void => {
    if (typeof address === 'string' && hostOfAddress(address) === host && !firstAddress.has(host)) firstAddress.set(host, address);
  };
  for (const e of events) {
    const id = e.attrs['id'];
    if (e.type === 'rpc.send' && typeof id === 'number') {
      sent.set(id, String(e.attrs['to']));
      for (const a of [e.attrs['from'], e.attrs['to']]) if (typeof a === 'string') noteAddress(hostOfAddress(a) ?? '', a);
    } else if (e.type === 'rpc.start') {
      noteAddress(e.host, e.attrs['address']);
    } else if (typeof id === 'number' && !outcomes.has(id)) {
      if (e.type === 'rpc.deliver') outcomes.set(id, { lost: false, reason: '' });
      else if (e.type === 'rpc.drop') outcomes.set(id, { lost: true, reason: lossReason(String(e.attrs['reason'])) });
      else if (e.type === 'mark' && e.attrs['name'] === 'rpc-lost') outcomes.set(id, { lost: true, reason: 'injected loss' });
    }
  }

  const current = new Map<string, string>();
  const participantOf = (e: TraceEvent): string => {
    if (e.host === 'jobmanager') return e.type.startsWith('rm.') ? 'resourcemanager' : 'jobmaster';
    const own = HOST_PARTICIPANTS[e.host];
    if (own !== undefined) return own;
    return current.get(e.host) ?? firstAddress.get(e.host) ?? (e.host.startsWith('taskmanager') ? `taskexecutor@${e.host}` : e.host);
  };
  const steps: SequenceStep[] = [];
  for (const e of events) {
    const id = e.attrs['id'];
    if (e.type === 'rpc.send' && typeof id === 'number') {
      const from = String(e.attrs['from']);
      const to = String(e.attrs['to']);
      if (hostOfAddress(from) === e.host) current.set(e.host, from);
      const about = options.about?.(e);
      const method = `${String(e.attrs['method'])}${about === undefined || about === '' ? '' : ` ${about}`}`;
      const outcome = outcomes.get(id);
      steps.push({
        kind: 'message', timeUs: e.timeUs, from, to, reply: e.attrs['answer'] === true,
        label: outcome === undefined ? `${method} (not delivered in this window)`
          : outcome.lost ? `${method} lost: ${outcome.reason}` : method,
        outcome: outcome === undefined ? 'in-flight' : outcome.lost ? 'lost' : 'delivered',
      });
      continue;
    }
    if (e.type === 'rpc.start') {
      const address = e.attrs['address'];
      if (typeof address === 'string' && hostOfAddress(address) === e.host) current.set(e.host, address);
    }
    const to = typeof id === 'number' ? sent.get(id) : undefined;
    if (e.type === 'rpc.deliver' && to !== undefined && hostOfAddress(to) === e.host) current.set(e.host, to);
    const consumed = to !== undefined
      && (e.type === 'rpc.deliver' || e.type === 'rpc.drop' || (e.type === 'mark' && e.attrs['name'] === 'rpc-lost'));
    if (consumed) continue;
    const text = describe(e);
    if (text !== undefined && text !== '') steps.push({ kind: 'note', timeUs: e.timeUs, over: participantOf(e), text });
  }
  return capMessages(steps, maxMessages);
}

/** `steps` from the first of their last `max` messages on, after an `omitted` step if any was cut. */
function capMessages(steps: SequenceStep[], max: number): SequenceStep[] {
  let seen = 0;
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i]?.kind !== 'message') continue;
    seen++;
    if (seen === max) {
      const cut = steps.slice(0, i);
      const messages = cut.filter((s) => s.kind === 'message').length;
      if (messages === 0) return steps;
      return [{ kind: 'omitted', messages, notes: cut.length - messages }, ...steps.slice(i)];
    }
  }
  return steps;
}

// ---------------------------------------------------------------------------------------------
// Writing the diagram

/**
 * `s` as Mermaid text on one line: characters that Mermaid's sequence lexer or its entity pass
 * would read (`#` starts a comment, `;` ends a statement, `%` a directive, `<`/`>`/`&` are HTML)
 * become entity codes (`#35;`, `#59;`...), which Mermaid decodes only when it draws; so do the
 * first letters of the words `end` (a block's end), `style` and `classDef` (Mermaid's entity pass
 * drops a `;` after them) and of a leading `wrap:`/`nowrap:` (a wrap directive). Line breaks
 * become `<br/>`, other control characters spaces; text over {@link MAX_TEXT_CHARS} is cut.
 */
export function mermaidText(s: string): string {
  const cut = s.length > MAX_TEXT_CHARS ? `${s.slice(0, MAX_TEXT_CHARS - 1)}…` : s;
  return cut.split(/\r\n|\r|\n/).map(escapeLine).join('<br/>');
}

const ENTITY_CHARS = /[#;%<>&"]/g;

function escapeLine(line: string): string {
  // Control characters (the pattern is meant to match them) become spaces.
  // eslint-disable-next-line no-control-regex
  const clean = line.replace(/[\u0000-\u001f\u007f]/g, ' ');
  const entities = clean.replace(ENTITY_CHARS, (c) => `#${c.charCodeAt(0)};`);
  const words = entities.replace(/\b(end|style|classdef)\b/gi, (w) => `#${w.charCodeAt(0)};${w.slice(1)}`);
  return words.replace(/^(\s*)((?:no)?wrap)(?=\s*:)/i, (_m, space: string, w: string) => `${space}#${w.charCodeAt(0)};${w.slice(1)}`);
}

/** A participant: its Mermaid id (a safe identifier), its label and the host that boxes it. */
interface Participant {
  readonly key: string;
  readonly id: string;
  readonly label: string;
  /** The TaskManager host when it has more than one TaskExecutor incarnation in the diagram. */
  readonly box: string | undefined;
}

const collator = new Intl.Collator('en', { numeric: true });

/** Where a participant sorts: JobMaster, ResourceManager, TaskExecutors, others, sim, stores. */
function rank(key: string): number {
  if (key === 'jobmaster') return 0;
  if (key === 'resourcemanager') return 1;
  if (key.startsWith('taskexecutor@')) return 2;
  const own = ['sim', 'store', 'txn-store'].indexOf(key);
  return own >= 0 ? 4 + own : 3;
}

/** The participants of `keys` (in first-use order), sorted, labelled and given unique ids. */
function participantsOf(keys: readonly string[]): Participant[] {
  const bootsByHost = new Map<string, Set<string>>();
  for (const k of keys) {
    const m = TASK_EXECUTOR.exec(k);
    if (m !== null) bootsByHost.set(m[1] ?? '', (bootsByHost.get(m[1] ?? '') ?? new Set()).add(m[2] ?? ''));
  }
  const sorted = keys.map((k, i) => ({ k, i })).sort((a, b) => rank(a.k) - rank(b.k)
    || (rank(a.k) === 2 ? teOrder(a.k, b.k) : a.i - b.i)).map((x) => x.k);
  const used = new Set<string>();
  return sorted.map((key) => {
    const base = `p_${key.replace(/[^A-Za-z0-9]+/g, '_').slice(0, 40)}`;
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    const m = TASK_EXECUTOR.exec(key);
    const host = m?.[1] ?? (key.startsWith('taskexecutor@') ? key.slice('taskexecutor@'.length) : undefined);
    const several = m !== null && (bootsByHost.get(host ?? '')?.size ?? 0) > 1;
    let label = key;
    if (key === 'jobmaster') label = 'JobMaster';
    else if (key === 'resourcemanager') label = 'ResourceManager';
    else if (host !== undefined) label = several ? `TaskExecutor ${host} (boot ${Number(m?.[2]) / 1000} ms)` : `TaskExecutor ${host}`;
    return { key, id, label, box: several ? host : undefined };
  });
}

/** TaskExecutors by host (taskmanager-2 before taskmanager-10), then by boot time. */
function teOrder(a: string, b: string): number {
  const ma = TASK_EXECUTOR.exec(a);
  const mb = TASK_EXECUTOR.exec(b);
  return collator.compare(ma?.[1] ?? a, mb?.[1] ?? b) || Number(ma?.[2] ?? 0) - Number(mb?.[2] ?? 0);
}

const ARROWS = {
  delivered: ['->>', '-->>'], lost: ['-x', '--x'], 'in-flight': ['-)', '--)'],
} as const;

function timePrefix(timeUs: number, show: boolean): string {
  return show ? `[${(timeUs / 1000).toFixed(3)} ms] ` : '';
}

function omittedText(messages: number, notes: number): string {
  const m = `${messages} earlier message${messages === 1 ? '' : 's'}`;
  return notes === 0 ? `${m} left out` : `${m} and ${notes} note${notes === 1 ? '' : 's'} left out`;
}

/** One step's line, given participant ids by key. */
function stepLine(s: Exclude<SequenceStep, { kind: 'omitted' }>, ids: ReadonlyMap<string, string>, showTimes: boolean): string {
  if (s.kind === 'note') return `  Note over ${ids.get(s.over)}: ${mermaidText(timePrefix(s.timeUs, showTimes) + s.text)}`;
  const arrow = ARROWS[s.outcome][s.reply ? 1 : 0];
  return `  ${ids.get(s.from)}${arrow}${ids.get(s.to)}: ${mermaidText(timePrefix(s.timeUs, showTimes) + s.label)}`;
}

/**
 * The text of a Mermaid `sequenceDiagram` (no code fences, lines joined by `\n`) for `steps`:
 * participants declared first (JobMaster, ResourceManager, TaskExecutors by host, other
 * participants, then sim, store, txn-store; a TaskManager with several TaskExecutor incarnations
 * in a `box`), then one line per step: delivered `->>` (reply `-->>`), lost `-x` (`--x`), in
 * flight `-)` (`--)`), notes `Note over`, an `omitted` step as a note over all participants.
 * Every name and text is escaped ({@link mermaidText}). When the text would exceed
 * {@link MAX_DIAGRAM_CHARS}, the earliest steps are left out (and counted in the omitted note).
 * Steps without any participant give a diagram with one note saying the window is empty.
 */
export function mermaidSequence(steps: readonly SequenceStep[], options: MermaidSequenceOptions = {}): string {
  let omittedMessages = 0;
  let omittedNotes = 0;
  const body: Exclude<SequenceStep, { kind: 'omitted' }>[] = [];
  for (const s of steps) {
    if (s.kind === 'omitted') {
      omittedMessages += s.messages;
      omittedNotes += s.notes;
    } else body.push(s);
  }
  const header = ['sequenceDiagram'];
  if (options.title !== undefined) header.push(`  title ${mermaidText(options.title.replace(/\s+/g, ' '))}`);
  const keysOf = (s: Exclude<SequenceStep, { kind: 'omitted' }>): string[] => (s.kind === 'note' ? [s.over] : [s.from, s.to]);

  // Participants (ids, labels, boxes) are those of all the steps, so leaving steps out changes
  // no line; the declarations of all of them and the omitted note bound the rest of the text.
  const all = participantsOf(unique(body.flatMap(keysOf)));
  const ids = new Map(all.map((p) => [p.key, p.id]));
  const lines = body.map((s) => stepLine(s, ids, options.showTimes === true));
  const declarations = declarationLines(all);
  let total = [...header, ...declarations].reduce((n, l) => n + l.length + 1, 0) + OMITTED_NOTE_CHARS
    + lines.reduce((n, l) => n + l.length + 1, 0);
  let start = 0;
  while (total > MAX_DIAGRAM_CHARS && start < body.length) {
    total -= (lines[start]?.length ?? 0) + 1;
    if (body[start]?.kind === 'message') omittedMessages++;
    else omittedNotes++;
    start++;
  }
  const kept = body.slice(start);
  const keptKeys = new Set(kept.flatMap(keysOf));
  const participants = all.filter((p) => keptKeys.has(p.key));
  const out = [...header];
  if (participants.length === 0) {
    out.push('  participant p_window as (this window)');
    out.push(`  Note over p_window: ${omittedMessages + omittedNotes > 0
      ? mermaidText(omittedText(omittedMessages, omittedNotes)) : 'no messages or events in this window'}`);
    return out.join('\n');
  }
  out.push(...declarationLines(participants));
  if (omittedMessages + omittedNotes > 0) {
    const first = participants[0]?.id;
    const last = participants[participants.length - 1]?.id;
    out.push(`  Note over ${first === last ? first : `${first},${last}`}: ${mermaidText(omittedText(omittedMessages, omittedNotes))}`);
  }
  out.push(...lines.slice(start));
  return out.join('\n');
}

/** The bound of the omitted note's line: two ids of at most 45 characters and its text. */
const OMITTED_NOTE_CHARS = 200;

/** `participant` lines of `participants` (in order), a TaskManager's incarnations in a `box`. */
function declarationLines(participants: readonly Participant[]): string[] {
  const out: string[] = [];
  let openBox: string | undefined;
  for (const p of participants) {
    if (p.box !== openBox) {
      if (openBox !== undefined) out.push('  end');
      if (p.box !== undefined) out.push(`  box AliceBlue ${mermaidText(p.box)}`);
      openBox = p.box;
    }
    out.push(`  ${openBox === undefined ? '' : '  '}participant ${p.id} as ${mermaidText(p.label)}`);
  }
  if (openBox !== undefined) out.push('  end');
  return out;
}

function unique(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}

/**
 * `diagram` (from {@link mermaidSequence}) as Markdown: an optional `# heading` line, then the
 * diagram in a fenced `mermaid` code block, ending with a newline; for an `.md` file that
 * GitHub, GitLab and most editors draw.
 */
export function mermaidMarkdown(diagram: string, heading?: string): string {
  const head = heading === undefined ? '' : `# ${heading.replace(/\s+/g, ' ').trim()}\n\n`;
  return `${head}\`\`\`mermaid\n${diagram}\n\`\`\`\n`;
}
