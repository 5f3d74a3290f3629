/**
 * Oracle 1 of ORACLES.md, consistent cut, for aligned checkpoints: at every completed checkpoint
 * `c`, the union of the keyed state it stores over its subtasks, plus the final state of the
 * subtasks that had finished before `c` (taken from the last checkpoint they reported state to),
 * equals the keyed state of `F(prefixes(c))`, every split cut at its stored position `p_s(c)`.
 *
 * A keyed subtask with no state in `c` counts as finished; when its vertex can be read from the
 * state file paths of earlier checkpoints (`chk-<n>/<vertex>#<subtask>@<attempt>/<uid>`), it must
 * also be listed in `c.finishedTasks`, otherwise the checkpoint lost a running subtask's state.
 * The same key in two subtasks' state (disjoint key groups are violated) is reported too.
 *
 * Reads only the RunResult (graph and decoded checkpoints); F runs the job's own functions.
 */
import { KeyedProcessOperator } from '../../engine/index.ts';
import type { DecodedCheckpoint, StreamGraph, StreamNode } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import { referenceFold } from '../referenceFold.ts';
import type { KeyedStateView, OperatorStateView } from '../referenceFold.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { compareKeyedState } from './compareKeyedState.ts';
import { splitPositions, splitSizes } from './splitPositions.ts';

/** Options of {@link consistentCut}. */
export interface ConsistentCutOptions {
  /** Longest list in a violation's details; default 20 (counts are exact). */
  readonly maxListed?: number;
}

/**
 * F(prefixes).state for one graph, each distinct set of prefixes folded once: checkpoints taken
 * while nothing was read in between, and every checkpoint after the sources read everything (F
 * over the whole input, shared with the other oracles), cut the input at the same places.
 */
function prefixFolds(
  graph: StreamGraph,
): (prefixes: ReadonlyMap<number, number>) => KeyedStateView {
  const sizes = splitSizes(graph);
  const byCut = new Map<string, KeyedStateView>();
  return (prefixes) => {
    let whole = prefixes.size === sizes.size;
    const parts: string[] = [];
    for (const [id, p] of prefixes) {
      if (sizes.get(id) !== p) whole = false;
      parts.push(`${id}:${p}`);
    }
    if (whole) return sharedReferenceFold(graph).state;
    const key = parts.join(',');
    let state = byCut.get(key);
    if (state === undefined) {
      state = referenceFold(graph, { prefixes }).state;
      byCut.set(key, state);
    }
    return state;
  };
}

/** The keyed state a checkpoint stands for, with the problems met while assembling it. */
interface AssembledState {
  readonly state: KeyedStateView;
  readonly problems: string[];
  /** `uid#subtask` -> id of the checkpoint its state was taken from, for finished subtasks. */
  readonly finishedFrom: Record<string, number>;
}

/**
 * Judges every completed checkpoint of `result`; one violation per checkpoint that fails, with
 * the keys that differ (`expected` from F, `actual` from the checkpoint).
 */
export function consistentCut(result: RunResult, options: ConsistentCutOptions = {}): Violation[] {
  const maxListed = options.maxListed ?? 20;
  const checkpoints = [...result.checkpoints.completed]
    .sort((a, b) => a.checkpointId - b.checkpointId);
  const keyed = result.graph.nodes.filter((n) => n.spec.kind === 'keyedProcess');
  const violations: Violation[] = [];
  const expectedAt = prefixFolds(result.graph);
  checkpoints.forEach((c, i) => {
    const cut = splitPositions(c, result.graph);
    const assembled = assembleState(c, checkpoints.slice(0, i), keyed);
    const problems = [...cut.problems, ...assembled.problems];
    const expected = expectedAt(cut.positions);
    const cmp = compareKeyedState(expected, assembled.state, maxListed);
    if (cmp.diffCount === 0 && problems.length === 0) return;
    const parts = [
      cmp.diffCount > 0 ? `${cmp.diffCount} key(s) differ from F(prefixes(c))` : '',
      problems.length > 0 ? `${problems.length} problem(s) reading the checkpoint` : '',
    ].filter((p) => p !== '');
    violations.push({
      property: 'consistent-cut',
      summary: `checkpoint ${c.checkpointId} is not a consistent cut: ${parts.join(', ')}`,
      details: {
        checkpointId: c.checkpointId,
        prefixes: Object.fromEntries(cut.positions),
        diffs: cmp.diffs,
        diffCount: cmp.diffCount,
        problems: problems.slice(0, maxListed),
        finishedTasks: c.finishedTasks,
        finishedStateFrom: assembled.finishedFrom,
      },
      timeMs: c.completionTimestampUs / 1000,
    });
  });
  return violations;
}

/** The keyed state of `c` plus finished subtasks' last reported state (see the file comment). */
function assembleState(
  c: DecodedCheckpoint,
  earlier: readonly DecodedCheckpoint[],
  keyed: readonly StreamNode[],
): AssembledState {
  const state: KeyedStateView = {};
  const problems: string[] = [];
  const finishedFrom: Record<string, number> = {};
  const finished = new Set(c.finishedTasks);
  for (const node of keyed) {
    const view: OperatorStateView = {};
    const owner = new Map<string, number>();
    for (let subtask = 0; subtask < node.parallelism; subtask++) {
      let entry = c.operators[node.uid]?.[String(subtask)];
      if (entry === undefined) {
        const last = lastReported(earlier, node.uid, subtask);
        const vertex = vertexOf(last?.entry.path ?? '');
        if (vertex !== undefined && !finished.has(`${vertex}#${subtask}`)) {
          problems.push(`${node.uid}#${subtask} (task ${vertex}#${subtask}) is neither in the `
            + 'checkpoint nor among its finished tasks');
        }
        if (last === undefined) continue;
        finishedFrom[`${node.uid}#${subtask}`] = last.checkpointId;
        entry = last.entry;
      }
      mergeInto(view, KeyedProcessOperator.decode(entry.data).state, (key, name) => {
        const other = owner.get(`${name}\u0000${key}`);
        if (other !== undefined && other !== subtask) {
          problems.push(`${node.uid}: key ${key} of state ${name} is in subtasks ${other} and ${subtask}`);
        }
        owner.set(`${name}\u0000${key}`, subtask);
      });
    }
    state[node.uid] = view;
  }
  return { state, problems, finishedFrom };
}

function lastReported(
  earlier: readonly DecodedCheckpoint[],
  uid: string,
  subtask: number,
): { checkpointId: number; entry: { path: string; data: unknown } } | undefined {
  for (let i = earlier.length - 1; i >= 0; i--) {
    const c = earlier[i] as DecodedCheckpoint;
    const entry = c.operators[uid]?.[String(subtask)];
    if (entry !== undefined) return { checkpointId: c.checkpointId, entry };
  }
  return undefined;
}

/** The vertex id in a state file path `chk-<n>/<vertex>#<subtask>@<attempt>/<uid>`, if any. */
export function vertexOf(path: string): string | undefined {
  const m = /^chk-\d+\/(.+)#\d+@\d+\/[^/]*$/.exec(path);
  return m?.[1];
}

function mergeInto(
  into: OperatorStateView,
  from: Record<string, Record<string, unknown>>,
  onKey: (key: string, name: string) => void,
): void {
  for (const [name, entries] of Object.entries(from)) {
    const target = (into[name] ??= {});
    for (const [key, value] of Object.entries(entries)) {
      onKey(key, name);
      target[key] = value;
    }
  }
}
