/**
 * The search for duplicates that show only in the keyed state (oracle 4, atLeastOnce.ts), for
 * runs whose trace holds no evidence of what the keyed stages read. A record that F gives no
 * output (filtered, or a keyed function that emits nothing for it) leaves no copy in the output
 * when it is processed again. So when output or state differ from `F(all input + D)`, the oracle
 * tries adding such hidden copies: records attributable by offset to restores (`p_s(c) <= o`;
 * there is no committed copy to date), at most one copy per such restore, and only those whose
 * copy changes something. Sets are tried smallest first, up to {@link HIDDEN_SEARCH_FOLDS} folds;
 * a set that makes output and state equal explains the run. A differing state key that no
 * candidate's copy changes cannot be explained. When every differing key could be, but the
 * search ran out before trying every set, it is inconclusive. With more than
 * {@link HIDDEN_CANDIDATES_MAX} candidate records (too many to fold each alone) nothing is
 * searched.
 */
import type { StreamGraph } from '../../engine/index.ts';
import type { RunResult } from '../../sim/run/RunResult.ts';
import type { FoldResult } from '../referenceFold.ts';
import { sharedReferenceFold } from '../sharedReferenceFold.ts';
import { compareKeyedState } from './compareKeyedState.ts';
import { foldWithDuplicates } from './foldWithDuplicates.ts';
import { withoutOperators } from './jobJudging.ts';
import type { DuplicatedInput } from './foldWithDuplicates.ts';

/**
 * Most folds the search for duplicates that show only in the state runs per judged run (after
 * one fold per candidate to see what its copy changes): every set of up to 10 candidates, or the
 * smallest sets of more.
 */
export const HIDDEN_SEARCH_FOLDS = 1024;

/**
 * Most candidate records whose effect is folded one by one. Beyond it nothing can be ruled in or
 * out, and the run is judged without hidden copies (a difference is reported): leaving the state
 * unjudged there would also hide a key no copy could change.
 */
export const HIDDEN_CANDIDATES_MAX = 512;

/**
 * The input records whose duplicate could show only in the state: F gives them no output, D
 * does not hold them already, and some restore's checkpoint had read their split only up to
 * their offset or less (so the restore read them again). As many copies as such restores.
 */
export function hiddenCandidates(
  graph: StreamGraph,
  duplicates: readonly DuplicatedInput[],
  positions: readonly (ReadonlyMap<number, number> | undefined)[],
): DuplicatedInput[] {
  const withOutput = new Set(sharedReferenceFold(graph).outputs.map((r) => `${r.split}:${r.offset}`));
  const inD = new Set(duplicates.map((d) => `${d.split}:${d.offset}`));
  const out: DuplicatedInput[] = [];
  for (const node of graph.nodes) {
    if (node.spec.kind !== 'source') continue;
    for (const split of node.spec.source.splits) {
      for (let offset = 0; offset < split.records.length; offset++) {
        const key = `${split.id}:${offset}`;
        if (withOutput.has(key) || inD.has(key)) continue;
        let rereads = 0;
        for (const p of positions) {
          const at = p?.get(split.id);
          if (at !== undefined && at <= offset) rereads++;
        }
        if (rereads > 0) out.push({ split: split.id, offset, copies: rereads });
      }
    }
  }
  return out;
}

/** What {@link explainHidden} found. */
export interface HiddenSearch {
  /** `F(all input + D + H)` for the set H that explains the run, if one was found. */
  readonly fold: FoldResult | undefined;
  /** No set found, but not every set was tried, and every differing key could be explained. */
  readonly inconclusive: boolean;
  /** Candidate copies whose copy changes state or output. */
  readonly relevant: number;
}

const stateKey = (d: { operator: string; state: string; key: string }): string =>
  `${d.operator}\u0000${d.state}\u0000${d.key}`;

/**
 * Searches sets of hidden copies (see the file comment) that make `matches` hold. Each candidate
 * copy is first folded alone to see which state keys it changes (and whether it changes the
 * output); copies that change nothing are left out, and those that change a key the run differs
 * on are tried first.
 */
export function explainHidden(
  graph: StreamGraph,
  duplicates: readonly DuplicatedInput[],
  base: FoldResult,
  candidates: readonly DuplicatedInput[],
  finalState: RunResult['finalState'],
  stateOff: ReadonlySet<string>,
  matches: (fold: FoldResult) => boolean,
): HiddenSearch {
  const units: DuplicatedInput[] = candidates.flatMap((c) =>
    Array.from({ length: c.copies }, () => ({ split: c.split, offset: c.offset, copies: 1 })));
  if (units.length === 0) return { fold: undefined, inconclusive: false, relevant: 0 };
  if (candidates.length > HIDDEN_CANDIDATES_MAX) return { fold: undefined, inconclusive: false, relevant: units.length };
  // Operators whose state the job's judging leaves out change no key the search must explain.
  const baseState = withoutOperators(base.state, stateOff);
  const differing = new Set(compareKeyedState(baseState, withoutOperators(finalState, stateOff), Number.POSITIVE_INFINITY).diffs.map(stateKey));
  // One fold per record (its copies change the same keys).
  const touchesOf = new Map<string, Set<string> | null>();
  for (const c of candidates) {
    const f = foldWithDuplicates(graph, merge(duplicates, [{ split: c.split, offset: c.offset, copies: 1 }]));
    const keys = new Set(compareKeyedState(baseState, withoutOperators(f.state, stateOff), Number.POSITIVE_INFINITY).diffs.map(stateKey));
    const changes = keys.size > 0 || f.outputs.length !== base.outputs.length;
    touchesOf.set(`${c.split}:${c.offset}`, changes ? keys : null);
  }
  const touches = (u: DuplicatedInput): Set<string> | null | undefined => touchesOf.get(`${u.split}:${u.offset}`);
  const relevant = units.filter((u) => touches(u) !== null);
  const coverable = new Set(relevant.flatMap((u) => [...(touches(u) ?? [])]));
  for (const k of differing) if (!coverable.has(k)) return { fold: undefined, inconclusive: false, relevant: relevant.length };
  const hitsDiff = (u: DuplicatedInput): boolean => [...(touches(u) ?? [])].some((k) => differing.has(k));
  const ordered = [...relevant.filter(hitsDiff), ...relevant.filter((u) => !hitsDiff(u))];
  const n = ordered.length;
  let folds = 0;
  for (let size = 1; size <= n; size++) {
    // Combinations of `size` indices in lexicographic order.
    const idx = Array.from({ length: size }, (_x, i) => i);
    for (;;) {
      if (folds++ >= HIDDEN_SEARCH_FOLDS) return { fold: undefined, inconclusive: true, relevant: n };
      const fold = foldWithDuplicates(graph, merge(duplicates, idx.map((i) => ordered[i] as DuplicatedInput)));
      if (matches(fold)) return { fold, inconclusive: false, relevant: n };
      let k = size - 1;
      while (k >= 0 && idx[k] === n - size + k) k--;
      if (k < 0) break;
      idx[k] = (idx[k] as number) + 1;
      for (let j = k + 1; j < size; j++) idx[j] = (idx[j - 1] as number) + 1;
    }
  }
  return { fold: undefined, inconclusive: false, relevant: n };
}

/** D plus single copies, copies of one record summed, ordered by split and offset. */
function merge(duplicates: readonly DuplicatedInput[], extra: readonly DuplicatedInput[]): DuplicatedInput[] {
  const copies = new Map<string, { split: number; offset: number; copies: number }>();
  for (const e of extra) {
    const key = `${e.split}:${e.offset}`;
    const c = copies.get(key) ?? { split: e.split, offset: e.offset, copies: 0 };
    c.copies += e.copies;
    copies.set(key, c);
  }
  return [...duplicates, ...copies.values()].sort((a, b) => a.split - b.split || a.offset - b.offset);
}
