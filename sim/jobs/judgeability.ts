/**
 * judgeability: whether the oracles can judge a job as its module asks, decided before the run.
 * The reference fold F (properties/referenceFold.ts, ORACLES.md) has no broadcast edges and no
 * timers, so an operator fed by a broadcast edge, or a keyed operator whose function has an
 * `onTimer`, cannot be folded. Such a job is refused with one line naming the operator and
 * what to set, unless the module turns off the judging of everything F would get wrong there:
 * the operator's own keyed state and the state and output of everything downstream of it (F
 * drops the records that reach it, so everything after it sees fewer records in F than in the
 * run). The judging itself is validated too (unknown uids, state on a non-keyed operator, output
 * on a non-sink, malformed comparisons), each with one line.
 *
 * No Flink class: Flink has no reference model; this is the harness's own precondition.
 */
import type { StreamGraph, StreamNode } from '../../engine/index.ts';
import { closeMatches } from '../closeMatches.ts';
import { SimInputError } from '../SimInputError.ts';
import type { JobJudging } from './JobDefinition.ts';

const STATE_VALUES = ['exact', 'off'];
const OUTPUT_VALUES = ['identity-and-value', 'identity', 'off'];

/**
 * Validates `judging` against `graph` and refuses a job F cannot judge as asked.
 *
 * @param graph the job's StreamGraph (as built by its module's build function).
 * @param judging the module's `judge` (undefined: every default, all judged).
 * @param moduleLabel how messages name the module, e.g. `./alerts.ts`.
 * @returns the uids of the operators the reference fold must skip (FoldOptions.skip): those
 *   whose every judged effect is off (own keyed state, and state and output of all downstream),
 *   which includes every operator F cannot fold. Empty when everything is judged.
 * @throws SimInputError with one line `job module <label>: ...` for malformed judging or an
 *   operator F cannot fold whose judging is not off.
 */
export function checkJudgeable(
  graph: StreamGraph, judging: JobJudging | undefined, moduleLabel: string,
): ReadonlySet<string> {
  const prefix = `job module ${moduleLabel}: `;
  validateJudging(graph, judging, prefix);
  const j = new Judged(graph, judging);
  for (const node of graph.nodes) {
    const why = unfoldableReason(graph, node);
    if (why !== undefined && !j.fullyOff(node)) throw j.refusal(node, why, prefix);
  }
  return j.skips();
}

/**
 * The refusal for an operator F found it cannot fold only at run time (a keyed function without
 * `onTimer` that registers a timer): the same one line as {@link checkJudgeable} gives.
 * @param uid the operator's uid (as F's error names it).
 * @param why what it does, e.g. `registers a processing-time timer`.
 * @returns the SimInputError to throw (an Error if `uid` names no operator or its judging is all
 *   off already: a harness bug, F should have skipped it).
 */
export function unjudgeableRefusal(
  graph: StreamGraph, judging: JobJudging | undefined, moduleLabel: string, uid: string, why: string,
): Error {
  const node = graph.nodes.find((n) => n.uid === uid);
  if (node === undefined) return new Error(`unjudgeableRefusal: the graph has no operator ${uid}`);
  return new Judged(graph, judging).refusal(node, why, `job module ${moduleLabel}: `);
}

/** Why F cannot fold `node`, or undefined if it can. */
function unfoldableReason(graph: StreamGraph, node: StreamNode): string | undefined {
  const reasons: string[] = [];
  const broadcast = graph.edges.find((e) => e.target === node.id && e.partitioner === 'broadcast');
  if (broadcast !== undefined) {
    const from = graph.nodes[broadcast.source];
    reasons.push(`is fed by a broadcast edge${from === undefined ? '' : ` from ${describe(from)}`}`);
  }
  if (node.spec.kind === 'keyedProcess' && typeof node.spec.fn.onTimer === 'function') reasons.push('uses timers (onTimer)');
  return reasons.length === 0 ? undefined : reasons.join(' and ');
}

/** The graph's operators with what the judging turns off. */
class Judged {
  private readonly children = new Map<number, StreamNode[]>();
  private readonly off = new Map<number, boolean>();

  constructor(private readonly graph: StreamGraph, private readonly judging: JobJudging | undefined) {
    for (const e of graph.edges) {
      const to = graph.nodes[e.target];
      if (to === undefined) continue;
      const list = this.children.get(e.source) ?? [];
      list.push(to);
      this.children.set(e.source, list);
    }
  }

  /** Whether nothing judged depends on `node`: its own state or output and all downstream. */
  fullyOff(node: StreamNode): boolean {
    let off = this.off.get(node.id);
    if (off === undefined) {
      this.off.set(node.id, false); // a cycle (malformed graph) is not off
      off = this.missing(node).length === 0
        && (this.children.get(node.id) ?? []).every((c) => this.fullyOff(c));
      this.off.set(node.id, off);
    }
    return off;
  }

  /** The uids of the operators F can skip. */
  skips(): ReadonlySet<string> {
    return new Set(this.graph.nodes.filter((n) => n.spec.kind !== 'source' && this.fullyOff(n)).map((n) => n.uid));
  }

  /**
   * The one-line refusal of `node`, listing each setting still missing at or below it (an Error,
   * not bad input, if none is: then F should have skipped it).
   */
  refusal(node: StreamNode, why: string, prefix: string): Error {
    const settings: string[] = [];
    const seen = new Set<number>();
    const walk = (n: StreamNode): void => {
      if (seen.has(n.id)) return;
      seen.add(n.id);
      settings.push(...this.missing(n));
      for (const c of this.children.get(n.id) ?? []) walk(c);
    };
    walk(node);
    const what = `operator ${describe(node)} ${why}, which the reference fold cannot judge`;
    if (settings.length === 0) return new Error(`${what}, though its judging is off: F should skip it`);
    return new SimInputError(`${prefix}${what}; set ${list(settings)} to run it unjudged`);
  }

  /** The settings `node` itself needs to be off (`judge.state['x'] = 'off'`, or output). */
  private missing(node: StreamNode): string[] {
    if (node.spec.kind === 'keyedProcess' && this.judging?.state?.[node.uid] !== 'off') {
      return [`judge.state['${node.uid}'] = 'off'`];
    }
    if (node.spec.kind === 'sink' && this.judging?.output?.[node.uid] !== 'off') {
      return [`judge.output['${node.uid}'] = 'off'`];
    }
    return [];
  }
}

/** Checks the shape of `judging` against the graph; see {@link checkJudgeable}. */
function validateJudging(graph: StreamGraph, judging: unknown, prefix: string): void {
  if (judging === undefined) return;
  if (!isPlainObject(judging)) {
    throw new SimInputError(`${prefix}judge must be an object { state?, output? }, got ${show(judging)}`);
  }
  for (const field of Object.keys(judging)) {
    if (field !== 'state' && field !== 'output') {
      throw new SimInputError(`${prefix}judge.${field} is not a judging field (known: state, output)`);
    }
  }
  const byUid = new Map(graph.nodes.map((n) => [n.uid, n]));
  const keyed = graph.nodes.filter((n) => n.spec.kind === 'keyedProcess').map((n) => n.uid);
  const sinks = graph.nodes.filter((n) => n.spec.kind === 'sink').map((n) => n.uid);
  const state = judging['state'];
  if (state !== undefined) {
    if (!isPlainObject(state)) {
      throw new SimInputError(`${prefix}judge.state must be an object of keyed operator uid -> 'exact' | 'off', `
        + `got ${show(state)}`);
    }
    for (const [uid, value] of Object.entries(state)) {
      const at = `${prefix}judge.state['${uid}']`;
      checkUid(byUid.get(uid), uid, at, 'keyedProcess', 'keyed operator', keyed);
      if (typeof value !== 'string' || !STATE_VALUES.includes(value)) {
        throw new SimInputError(`${at} must be 'exact' or 'off', got ${show(value)}`);
      }
    }
  }
  const output = judging['output'];
  if (output !== undefined) {
    if (!isPlainObject(output)) {
      throw new SimInputError(`${prefix}judge.output must be an object of sink uid -> how its output is compared, `
        + `got ${show(output)}`);
    }
    for (const [uid, value] of Object.entries(output)) {
      const at = `${prefix}judge.output['${uid}']`;
      checkUid(byUid.get(uid), uid, at, 'sink', 'sink', sinks);
      checkOutputJudging(value, at);
    }
  }
}

/** Throws unless `node` exists and is of `kind`. */
function checkUid(
  node: StreamNode | undefined, uid: string, at: string, kind: string, what: string, known: readonly string[],
): void {
  if (node === undefined) {
    const near = closeMatches(uid, known);
    const hint = near.length > 0 ? `did you mean ${near.map((n) => `'${n}'`).join(' or ')}?`
      : known.length > 0 ? `${what}s: ${known.map((n) => `'${n}'`).join(', ')}` : `the job has no ${what}`;
    throw new SimInputError(`${at}: the job has no operator with uid '${uid}' (${hint})`);
  }
  if (node.spec.kind !== kind) {
    throw new SimInputError(`${at}: operator ${describe(node)} is a ${node.spec.kind} operator, not a ${what}`
      + (kind === 'keyedProcess' ? ' (only keyed state is judged)' : ' (only sinks have output)'));
  }
}

/** Throws unless `value` is an OutputJudging (one of the names or an OutputComparison). */
function checkOutputJudging(value: unknown, at: string): void {
  if (typeof value === 'string') {
    if (OUTPUT_VALUES.includes(value)) return;
    throw new SimInputError(`${at} must be ${OUTPUT_VALUES.map((v) => `'${v}'`).join(', ')} or a comparison `
      + `{ name, project, sequence? }, got ${show(value)}`);
  }
  if (!isPlainObject(value)) {
    throw new SimInputError(`${at} must be a judging name or a comparison { name, project, sequence? }, got ${show(value)}`);
  }
  if (typeof value['name'] !== 'string' || value['name'].trim() === '') {
    throw new SimInputError(`${at}.name must be a non-empty string, got ${show(value['name'])}`);
  }
  if (typeof value['project'] !== 'function') {
    throw new SimInputError(`${at}.project must be a function (value) => the part compared, got ${show(value['project'])}`);
  }
  const sequence = value['sequence'];
  if (sequence === undefined) return;
  if (!isPlainObject(sequence)) {
    throw new SimInputError(`${at}.sequence must be an object { key, seq } of functions, got ${show(sequence)}`);
  }
  for (const f of ['key', 'seq']) {
    if (typeof sequence[f] !== 'function') {
      throw new SimInputError(`${at}.sequence.${f} must be a function, got ${show(sequence[f])}`);
    }
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value in a message, on one line. */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v).replace(/^"|"$/g, "'");
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'a non-finite number';
  if (v === null || v === undefined || typeof v === 'boolean') return String(v);
  return Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

function describe(node: StreamNode): string {
  return `'${node.name}' (uid ${node.uid})`;
}

function list(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
