/**
 * Operator-state oracle (ORACLES.md "Across job runs": operator state, list and union, after a
 * restore). For every restore of an operator whose restores are traced (the job API's
 * pass-through operators with operator state, which the generated jobs' `splitLog` and
 * `splitOwners` stages use), it compares what the restored subtasks got with what the restored
 * checkpoint itself holds, read from the RunResult's decoded checkpoint, never from the engine's
 * state assignment:
 *
 * - split-distribute list state: the elements the restored subtasks got, together, equal the
 *   elements of every subtask in the checkpoint, each exactly once (`list-elements-differ`);
 * - union list state: every restored subtask got the whole union, every element of every subtask
 *   in the checkpoint, each once (`union-not-whole`);
 * - for both, what the subtasks hold once their functions' initializeState returned (a union
 *   function keeps only the entries it owns) adds up, over the subtasks, to the checkpoint's
 *   elements exactly once: totals are preserved (`kept-total-differs`);
 * - a state restored in another mode than it was snapshotted in (`mode-differs`).
 *
 * Evidence: the `operator.stateRestored` event each restored subtask records in initializeState
 * (engine/streaming/operators/CheckpointedPassThroughOperator.ts), with what the state
 * assignment handed it and what it keeps. An event, rather than the subtasks' next completed
 * checkpoint, because that checkpoint may never come (the job finishes or fails first) and by
 * then new records have mixed into the state, so a lost element could hide behind a re-added one.
 *
 * Parallelism-agnostic: elements are compared as multisets over all subtasks, never subtask by
 * subtask, so the same rules judge a restore at a new parallelism. The restores of one operator
 * from one checkpoint at one parallelism (within one job run) are taken together, the latest per
 * subtask (the assignment is deterministic, so repeats agree): when they cover every subtask the
 * totals must be equal; when they do not (a regional failover restarted some subtasks, or a
 * failover cut a restore short) the elements must be contained in the checkpoint's, none extra.
 *
 * Job runs: an event's `jobRun` attribute (absent: 1) is the restoring run; its checkpoint is
 * looked up among that run's completed checkpoints (a decoded checkpoint's `jobRun`, absent: 1),
 * else among earlier runs', latest first (a new run restores an earlier run's snapshot), unless
 * the event names the snapshot's run (`restoredJobRun`).
 *
 * Cannot judge: a run whose job has no such operator (`no-operator-state`), or no restore of one
 * (`no-restore`), or whose restored checkpoints are not among the completed ones
 * (`checkpoint-unknown`): said in the judgement, never a pass.
 */
import type { DecodedCheckpoint, StreamGraph } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { TraceEvent } from '../../sim/Trace.ts';
import { canonicalString } from '../canonicalString.ts';

/** The evidence event's type (the engine's OPERATOR_STATE_RESTORED_EVENT; the oracle's own copy). */
export const OPERATOR_STATE_RESTORED = 'operator.stateRestored';

/** Why the operator state of a run was not judged. */
export type OperatorStateUnjudgedReason =
  | 'no-operator-state' | 'no-restore' | 'checkpoint-unknown'
  /** judgeRun did not run the oracle (left out by `skip`, or an engine assertion ended the run). */
  | 'oracle-skipped';

/** Judged (with how many restore events were compared), or not judged with a reason. */
export type OperatorStateJudgement =
  | { readonly judged: true; readonly restores: number }
  | { readonly judged: false; readonly reason: OperatorStateUnjudgedReason; readonly detail: string };

/** The oracle's violations and its judgement. */
export interface OperatorStateVerdict {
  readonly violations: readonly Violation[];
  readonly judgement: OperatorStateJudgement;
}

/** Options of {@link operatorState}. */
export interface OperatorStateOptions {
  /** Longest list of elements in a violation's details; default 20. */
  readonly maxListed?: number;
  /** Most violations reported; default 5. */
  readonly maxReports?: number;
}

/** One state of a snapshot or a restore: its mode and its elements as canonical strings. */
interface StateElements {
  readonly mode: string;
  readonly elements: string[];
}

/** One parsed `operator.stateRestored` event. */
interface Restore {
  readonly event: TraceEvent;
  readonly operator: string;
  readonly subtask: number;
  readonly parallelism: number;
  readonly checkpointId: number;
  readonly jobRun: number;
  readonly restoredJobRun: number | undefined;
  readonly restored: Map<string, StateElements>;
  readonly holds: Map<string, string[]>;
}

/** The uids of the operators whose restores are traced. */
export function operatorStateOperators(graph: StreamGraph): string[] {
  return graph.nodes.filter((n) => n.spec.kind === 'checkpointedPassThrough').map((n) => n.uid);
}

/**
 * Judges every traced restore of operator state in `result` (see the file comment).
 * @throws Error for a malformed evidence event (a harness defect, not a property violation).
 */
export function operatorState(result: RunResult, options: OperatorStateOptions = {}): OperatorStateVerdict {
  const maxListed = options.maxListed ?? 20;
  const maxReports = options.maxReports ?? 5;
  const uids = new Set(operatorStateOperators(result.graph));
  if (uids.size === 0) {
    return unjudged('no-operator-state', 'the job has no operator with traced operator state');
  }
  const restores = result.trace
    .filter((e) => e.type === OPERATOR_STATE_RESTORED && uids.has(String(e.attrs['operator'])))
    .map(parseRestore);
  if (restores.length === 0) {
    return unjudged('no-restore', `no subtask of ${[...uids].join(', ')} was restored from a checkpoint`);
  }
  const violations: Violation[] = [];
  const report = (v: Violation): void => {
    if (violations.length < maxReports) violations.push(v);
  };
  const groups = new Map<string, { checkpoint: DecodedCheckpoint; bySubtask: Map<number, Restore> }>();
  let judged = 0;
  for (const r of restores) {
    const checkpoint = findCheckpoint(result.checkpoints.completed, r);
    if (checkpoint === undefined) continue;
    judged++;
    const expected = snapshotStates(checkpoint, r.operator);
    const where = describe(r, checkpoint);
    for (const name of new Set([...expected.keys(), ...r.restored.keys()])) {
      const want = expected.get(name);
      const got = r.restored.get(name);
      if (want !== undefined && got !== undefined && want.mode !== got.mode) {
        report(violation(r, `operator state ${name} of ${where} was snapshotted as ${want.mode} but restored as ${got.mode}`,
          { kind: 'mode-differs', ...ids(r, checkpoint), state: name, expectedMode: want.mode, actualMode: got.mode }));
        continue;
      }
      if ((want ?? got)?.mode !== 'UNION') continue;
      const diff = multisetDiff(want?.elements ?? [], got?.elements ?? []);
      if (diff.missing.length === 0 && diff.extra.length === 0) continue;
      report(violation(r, `union state ${name} of ${where}: subtask ${r.subtask} did not get the whole union `
        + `(${diff.missing.length} element(s) missing, ${diff.extra.length} extra)`, {
        kind: 'union-not-whole', ...ids(r, checkpoint), state: name, subtask: r.subtask,
        expectedCount: want?.elements.length ?? 0, actualCount: got?.elements.length ?? 0,
        missing: diff.missing.slice(0, maxListed), extra: diff.extra.slice(0, maxListed),
      }));
    }
    const key = `${runOf(checkpoint)}/${checkpoint.checkpointId}/${r.jobRun}/${r.operator}/${r.parallelism}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { checkpoint, bySubtask: new Map() };
      groups.set(key, group);
    }
    group.bySubtask.set(r.subtask, r);
  }
  if (judged === 0) {
    return unjudged('checkpoint-unknown', `none of the ${restores.length} restore(s) restored a checkpoint the run completed`);
  }
  for (const { checkpoint, bySubtask } of groups.values()) {
    for (const v of judgeGroup(checkpoint, [...bySubtask.values()], maxListed)) report(v);
  }
  return { violations, judgement: { judged: true, restores: judged } };
}

/** The totals of one group of restores (one operator, checkpoint and parallelism). */
function judgeGroup(checkpoint: DecodedCheckpoint, group: readonly Restore[], maxListed: number): Violation[] {
  const first = group[0] as Restore;
  const last = group.reduce((a, b) => (b.event.seq > a.event.seq ? b : a));
  const complete = group.length === first.parallelism
    && group.every((r) => r.subtask >= 0 && r.subtask < first.parallelism);
  const expected = snapshotStates(checkpoint, first.operator);
  const out: Violation[] = [];
  const names = new Set([...expected.keys(), ...group.flatMap((r) => [...r.restored.keys(), ...r.holds.keys()])]);
  for (const name of names) {
    const want = expected.get(name)?.elements ?? [];
    const mode = expected.get(name)?.mode ?? group.find((r) => r.restored.has(name))?.restored.get(name)?.mode;
    const judge = (kind: string, what: string, actual: string[]): boolean => {
      const diff = multisetDiff(want, actual);
      const bad = diff.extra.length > 0 || (complete && diff.missing.length > 0);
      if (!bad) return false;
      const summary = `${what} of ${describe(last, checkpoint)}: ${complete ? '' : 'partial restore, '}`
        + `${complete ? `${diff.missing.length} element(s) missing, ` : ''}${diff.extra.length} extra`;
      out.push(violation(last, summary, {
        kind, ...ids(last, checkpoint), state: name, mode: mode ?? null, complete,
        subtasks: group.map((r) => r.subtask).sort((a, b) => a - b),
        expectedCount: want.length, actualCount: actual.length,
        missing: complete ? diff.missing.slice(0, maxListed) : [], extra: diff.extra.slice(0, maxListed),
      }));
      return true;
    };
    if (mode === 'SPLIT_DISTRIBUTE'
      && judge('list-elements-differ', `list state ${name}`, group.flatMap((r) => r.restored.get(name)?.elements ?? []))) {
      continue;
    }
    judge('kept-total-differs', `the ${mode === 'UNION' ? 'union' : 'list'} state ${name} kept`,
      group.flatMap((r) => r.holds.get(name) ?? []));
  }
  return out;
}

/** The states of `uid` in `checkpoint`, over every subtask: name -> mode and elements. */
function snapshotStates(checkpoint: DecodedCheckpoint, uid: string): Map<string, StateElements> {
  const out = new Map<string, { mode: string; elements: string[] }>();
  const subtasks = checkpoint.operators[uid] ?? {};
  for (const key of Object.keys(subtasks).sort((a, b) => Number(a) - Number(b))) {
    const data = subtasks[key]?.data as { managedOperatorState?: unknown } | undefined;
    const handles = Array.isArray(data?.managedOperatorState) ? data.managedOperatorState as unknown[] : [];
    for (const h of handles) {
      const states = (h as { states?: unknown }).states;
      if (!(states instanceof Map)) continue;
      for (const [name, meta] of states as Map<string, { mode: string; elements: readonly unknown[] }>) {
        let entry = out.get(name);
        if (entry === undefined) {
          entry = { mode: meta.mode, elements: [] };
          out.set(name, entry);
        }
        for (const e of meta.elements) entry.elements.push(canonicalString(e));
      }
    }
  }
  return out;
}

/**
 * The completed checkpoint `r` restored: the restoring run's own with that id, else the latest
 * earlier run's (or the run the event names).
 */
function findCheckpoint(completed: readonly DecodedCheckpoint[], r: Restore): DecodedCheckpoint | undefined {
  const candidates = completed.filter((c) => c.checkpointId === r.checkpointId);
  if (r.restoredJobRun !== undefined) return candidates.find((c) => runOf(c) === r.restoredJobRun);
  const own = candidates.find((c) => runOf(c) === r.jobRun);
  if (own !== undefined) return own;
  return candidates.filter((c) => runOf(c) < r.jobRun).sort((a, b) => runOf(b) - runOf(a))[0];
}

/** A decoded checkpoint's job run (absent before job runs existed: 1). */
function runOf(c: DecodedCheckpoint): number {
  const run = (c as { jobRun?: unknown }).jobRun;
  return typeof run === 'number' ? run : 1;
}

function parseRestore(e: TraceEvent): Restore {
  const a = e.attrs;
  const int = (name: string): number => {
    const v = a[name];
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      throw new Error(`operator-state oracle: event #${e.seq} ${OPERATOR_STATE_RESTORED} has no integer ${name}`);
    }
    return v;
  };
  const json = (name: string): Record<string, unknown> => {
    const v = a[name];
    const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : undefined;
    if (typeof parsed !== 'object' || parsed === null) {
      throw new Error(`operator-state oracle: event #${e.seq} ${OPERATOR_STATE_RESTORED} has no JSON object ${name}`);
    }
    return parsed as Record<string, unknown>;
  };
  const restored = new Map<string, StateElements>();
  for (const [name, s] of Object.entries(json('restored'))) {
    const st = s as { mode?: unknown; elements?: unknown };
    restored.set(name, {
      mode: String(st.mode),
      elements: (Array.isArray(st.elements) ? st.elements as unknown[] : []).map((x) => canonicalString(x)),
    });
  }
  const holds = new Map<string, string[]>();
  for (const [name, elements] of Object.entries(json('holds'))) {
    holds.set(name, (Array.isArray(elements) ? elements as unknown[] : []).map((x) => canonicalString(x)));
  }
  const run = a['jobRun'];
  const restoredRun = a['restoredJobRun'];
  return {
    event: e,
    operator: String(a['operator']),
    subtask: int('subtask'),
    parallelism: int('parallelism'),
    checkpointId: int('checkpointId'),
    jobRun: typeof run === 'number' ? run : 1,
    restoredJobRun: typeof restoredRun === 'number' ? restoredRun : undefined,
    restored,
    holds,
  };
}

/** `a` minus `b` (missing) and `b` minus `a` (extra), as multisets, each sorted. */
function multisetDiff(a: readonly string[], b: readonly string[]): { missing: string[]; extra: string[] } {
  const count = new Map<string, number>();
  for (const x of a) count.set(x, (count.get(x) ?? 0) + 1);
  const extra: string[] = [];
  for (const x of b) {
    const n = count.get(x) ?? 0;
    if (n > 0) count.set(x, n - 1);
    else extra.push(x);
  }
  const missing: string[] = [];
  for (const [x, n] of count) for (let i = 0; i < n; i++) missing.push(x);
  return { missing: missing.sort(), extra: extra.sort() };
}

function describe(r: Restore, c: DecodedCheckpoint): string {
  const run = runOf(c) === 1 && r.jobRun === 1 ? '' : `, run ${runOf(c)} -> run ${r.jobRun}`;
  return `${r.operator} after the restore from ${c.kind === 'checkpoint' ? 'checkpoint' : c.kind} ${c.checkpointId}`
    + ` (parallelism ${r.parallelism}${run})`;
}

function ids(r: Restore, c: DecodedCheckpoint): Record<string, unknown> {
  return { operator: r.operator, checkpointId: c.checkpointId, checkpointJobRun: runOf(c), jobRun: r.jobRun, parallelism: r.parallelism };
}

function violation(r: Restore, summary: string, details: Record<string, unknown>): Violation {
  return { property: 'operator-state', summary, details, timeMs: r.event.timeUs / 1000 };
}

/** An unjudged verdict (exported for judgeRun, which says why it did not run the oracle). */
export function unjudged(reason: OperatorStateUnjudgedReason, detail: string): OperatorStateVerdict {
  return { violations: [], judgement: { judged: false, reason, detail } };
}
