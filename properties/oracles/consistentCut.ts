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
 * Keyed operators whose state the job's judging says `off` (jobJudging.ts) are left out: neither
 * assembled nor compared (judgeRun's verdict lists them).
 *
 * Reads only the RunResult (graph and decoded checkpoints); F runs the job's own functions.
 */
import { KeyedProcessOperator } from '../../engine/index.ts';
import type { DecodedCheckpoint, StreamGraph, StreamNode } from '../../engine/index.ts';
import type { RunResult, Violation } from '../../sim/run/RunResult.ts';
import type { RunCheckpoint } from '../../sim/MiniCluster.ts';
import { generatedStageUid } from '../../sim/workloads/generatedJob.ts';
import { foldStateMatches, PrefixFold, referenceFold } from '../referenceFold.ts';
import type { FoldResult, KeyedStateView, OperatorStateView } from '../referenceFold.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { compareKeyedState } from './compareKeyedState.ts';
import type { StateComparison } from './compareKeyedState.ts';
import { withoutOperators } from './jobJudging.ts';
import { splitPositions, splitSizes } from './splitPositions.ts';

/** Options of {@link consistentCut}. */
export interface ConsistentCutOptions {
  /** Longest list in a violation's details; default 20 (counts are exact). */
  readonly maxListed?: number;
  /** Keyed operator uids whose state is not compared (the job's judging); default none. */
  readonly stateOff?: ReadonlySet<string>;
}

/** F's keyed state at the cuts of one run's checkpoints; see {@link cutFolds}. */
interface CutFolds {
  /** F(prefixes).state. */
  readonly state: (prefixes: ReadonlyMap<number, number>) => KeyedStateView;
  /**
   * Whether `actual` certainly equals F(prefixes).state as compareKeyedState judges it (no
   * diff), decided on F's state stores without building a view of them; false when it differs
   * or cannot be told that way (then compare {@link state}). `exact` false: from a
   * {@link PrefixFold} carried from cut to cut, only for order-insensitive jobs, see below.
   */
  readonly matches: (
    prefixes: ReadonlyMap<number, number>, actual: KeyedStateView, exact: boolean,
  ) => boolean;
}

/**
 * F(prefixes).state for one graph, each distinct set of prefixes folded once: checkpoints taken
 * while nothing was read in between, and every checkpoint after the sources read everything (F
 * over the whole input, shared with the other oracles), cut the input at the same places.
 *
 * Inexact `matches` carries one {@link PrefixFold} from cut to cut (a cut behind the one read
 * starts a new one), whose state equals F's up to the order of keys. Only for jobs whose keyed
 * state is independent of the order of records and whose functions are pure and total, see
 * {@link orderInsensitive}; canonical comparison ignores key order. When `matches` finds a diff
 * (or cannot tell), the caller compares the exact state, so a violation lists the keys in F's
 * order. At the whole input, both ask F over it, shared and already folded.
 *
 * No view of F's state is built unless the caller asks for `state` (a diff, or an undecided
 * case): each checkpoint's state is compared on the stores (foldStateMatches, matchesAt).
 */
function cutFolds(graph: StreamGraph): CutFolds {
  const sizes = splitSizes(graph);
  const exactByCut = new Map<string, FoldResult>();
  let carried: PrefixFold | undefined;
  const isWhole = (prefixes: ReadonlyMap<number, number>): boolean => {
    if (prefixes.size !== sizes.size) return false;
    for (const [id, p] of prefixes) if (sizes.get(id) !== p) return false;
    return true;
  };
  const exactFold = (prefixes: ReadonlyMap<number, number>): FoldResult => {
    if (isWhole(prefixes)) return sharedReferenceFold(graph);
    const parts: string[] = [];
    for (const [id, p] of prefixes) parts.push(`${id}:${p}`);
    const key = parts.join(',');
    let fold = exactByCut.get(key);
    if (fold === undefined) {
      fold = referenceFold(graph, { prefixes });
      exactByCut.set(key, fold);
    }
    return fold;
  };
  return {
    state: (prefixes) => exactFold(prefixes).state,
    matches: (prefixes, actual, exact) => {
      if (exact || isWhole(prefixes)) return foldStateMatches(exactFold(prefixes), actual);
      if (carried === undefined || !carried.canAdvanceTo(prefixes)) carried = new PrefixFold(graph);
      return carried.matchesAt(prefixes, actual);
    },
  };
}

/**
 * Whether the keyed state of F over the run's job is, provably, the same whatever order its
 * input records are read in, so {@link PrefixFold} may carry it from cut to cut. True only for
 * generated jobs (sim/workloads/generatedJob.ts), whose graph is built from the menus of
 * generatedFunctions.ts:
 * - map, filter and flatMap functions are pure and total, and every keyed function emits records
 *   computed from its input value alone, so every stage receives the same multiset of records in
 *   any order of the input (and stages after the last keyed one need not run);
 * - each keyed function's state per key is a count, an integer sum, a min/max pair or a set (map
 *   state `v -> true`): commutative and associative updates. The sums stay exact: values stay
 *   within `3^maxStages * (maxAbsValue + 1000)` (the menus' bound per stage, about 7.3e8) and a
 *   job folds at most `maxSplits * maxRecordsPerSplit * 36` records (two flatMaps of at most 3
 *   outputs, two keyed stages of at most 2), about 5.8e5, so every partial sum is an integer
 *   below 2^53 in magnitude;
 * - no value is -0, and sets differ only in the insertion order of their keys, which canonical
 *   comparison ignores.
 * Other jobs (flights, wordcount, jobs of tests, a graph whose operators are not the spec's) fold
 * every cut afresh in F's order.
 */
function orderInsensitive(result: RunResult): boolean {
  const job = result.spec.job;
  if (job.kind !== 'generated') return false;
  // The graph must be the one the spec builds (tests may pair a spec with another graph).
  const uids = ['gen-source', ...job.spec.stages.map((_s, i) => generatedStageUid(job.spec, i)), 'gen-sink'];
  const nodes = result.graph.nodes;
  return nodes.length === uids.length && nodes.every((n, i) => n.uid === uids[i]);
}

function noDiffs(): StateComparison {
  return { diffs: [], diffCount: 0 };
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
  // In history order: job run, then id (a later run numbers on from the checkpoint it restored, so ids can recur).
  const checkpoints = [...result.checkpoints.completed]
    .sort((a, b) => (a.jobRun ?? 1) - (b.jobRun ?? 1) || a.checkpointId - b.checkpointId);
  // Each run has its own parallelism (a rescale): a checkpoint's subtasks are its run's.
  const parallelismOf = (c: RunCheckpoint, node: StreamNode): number =>
    result.jobRuns[(c.jobRun ?? 1) - 1]?.parallelism[node.uid] ?? node.parallelism;
  const stateOff = options.stateOff ?? new Set<string>();
  const keyed = result.graph.nodes.filter((n) => n.spec.kind === 'keyedProcess' && !stateOff.has(n.uid));
  const violations: Violation[] = [];
  const folds = cutFolds(result.graph);
  const exact = !orderInsensitive(result);
  checkpoints.forEach((c, i) => {
    const cut = splitPositions(c, result.graph);
    const assembled = assembleState(c, checkpoints.slice(0, i), keyed, (node) => parallelismOf(c, node));
    const problems = [...cut.problems, ...assembled.problems];
    // With operators left out, F's stores hold more than is compared: compare the views.
    const cmp = stateOff.size === 0 && folds.matches(cut.positions, assembled.state, exact)
      ? noDiffs()
      : compareKeyedState(withoutOperators(folds.state(cut.positions), stateOff), assembled.state, maxListed);
    if (cmp.diffCount === 0 && problems.length === 0) return;
    const parts = [
      cmp.diffCount > 0 ? `${cmp.diffCount} key(s) differ from F(prefixes(c))` : '',
      problems.length > 0 ? `${problems.length} problem(s) reading the checkpoint` : '',
    ].filter((p) => p !== '');
    violations.push({
      property: 'consistent-cut',
      summary: `${c.kind === 'checkpoint' ? 'checkpoint' : 'savepoint'} ${c.checkpointId}${c.jobRun === undefined ? '' : ` of job run ${c.jobRun}`} `
        + `is not a consistent cut: ${parts.join(', ')}`,
      details: {
        checkpointId: c.checkpointId,
        ...(c.jobRun === undefined ? {} : { jobRun: c.jobRun }),
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
  parallelism: (node: StreamNode) => number,
): AssembledState {
  const state: KeyedStateView = {};
  const problems: string[] = [];
  const finishedFrom: Record<string, number> = {};
  const finished = new Set(c.finishedTasks);
  for (const node of keyed) {
    const view: OperatorStateView = {};
    /** Subtask -> its decoded state, to name the other holder of a key found twice. */
    const bySubtask: OperatorStateView[] = [];
    for (let subtask = 0; subtask < parallelism(node); subtask++) {
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
      const decoded = KeyedProcessOperator.decode(entry.data).state;
      bySubtask[subtask] = decoded;
      for (const name of Object.keys(decoded)) {
        const entries = decoded[name] as Record<string, unknown>;
        const target = view[name];
        if (target === undefined) {
          // The first subtask with this state: its decoding is fresh and ours, so it becomes
          // the view's (later subtasks' keys are added to it, see holderBefore).
          view[name] = entries;
          continue;
        }
        for (const key of Object.keys(entries)) {
          if (hasOwn.call(target, key)) {
            const other = holderBefore(bySubtask, subtask, name, key);
            problems.push(`${node.uid}: key ${key} of state ${name} is in subtasks ${other} and ${subtask}`);
          }
          target[key] = entries[key];
        }
      }
    }
    state[node.uid] = view;
  }
  return { state, problems, finishedFrom };
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The latest subtask before `subtask` whose state `name` holds `key` (the subtask whose value the
 * view holds). Searched only when a key is found twice. The view's object of a state is the
 * decoding of the earliest subtask that has it, with later subtasks' keys added, so it is
 * searched last: every key added to it is found first in the subtask that added it.
 */
function holderBefore(
  bySubtask: readonly (OperatorStateView | undefined)[],
  subtask: number,
  name: string,
  key: string,
): number | undefined {
  for (let s = subtask - 1; s >= 0; s--) {
    const entries = bySubtask[s]?.[name];
    if (entries !== undefined && hasOwn.call(entries, key)) return s;
  }
  return undefined;
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
  const m = /^(?:run-\d+\/)?(?:chk|savepoint)-\d+\/(.+)#\d+@\d+\/[^/]*$/.exec(path);
  return m?.[1];
}
