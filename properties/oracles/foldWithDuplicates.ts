/**
 * `F(all input + D)`: the reference fold over a multiset of input records, where `D` holds the
 * records that were processed more than once (ORACLES.md 4). F itself reads each split once; here
 * every extra copy of record `(s, o)` becomes a one-record split of its own (with an id above every
 * real split id) of the source that owns `s`, is folded after the real input, and its outputs are
 * renamed back to the identity `(s, o, tag)` of the original. For the order-insensitive jobs F is
 * defined for, folding the copies last gives the same state and the same outputs as any
 * interleaving would.
 *
 * A copy may be partial. When a record fans out (flatMap) before a network edge, each of its
 * outputs crosses to its own channel, and in at-least-once mode each channel's records can land
 * on either side of a downstream snapshot: after a restore some outputs of the record are
 * processed again and others are not. `tags` then names, per output tag, how many extra copies of
 * that output were committed; copy k keeps only the branches that lead to an output with at least
 * k extra copies (a record in flight is kept if its tag is that output's tag or a prefix of it).
 * With `at` (a keyed node), the tags name records at that node's input instead of outputs: the
 * copies a keyed stage's state counted again, which can differ from the output's
 * (stateFromEvidence.ts); there a record is kept only with exactly a kept tag.
 *
 * A copy's record is looked up in the whole job: for a graph cut at a stop's savepoint, a copy
 * may be of a record past the cut (an at-least-once run read it ahead of the cut before a restore
 * rewound its split; atLeastOnce.ts, aheadOfCut).
 */
import { foldSkipsOf } from '../../sim/jobs/foldSkips.ts';
import type { StreamGraph, StreamNode, StreamRecord } from '../../engine/index.ts';
import { referenceFold } from '../referenceFold.ts';
import { wholeGraphOf } from './stopWithSavepoint.ts';
import type { FoldResult } from '../referenceFold.ts';

/** One input record `(split, offset)` and how many extra copies of it were processed. */
export interface DuplicatedInput {
  readonly split: number;
  readonly offset: number;
  /** Extra copies, >= 1 (the largest count in `tags` when given). */
  readonly copies: number;
  /**
   * Extra copies per output tag (or input tag of the keyed node `at`, see foldWithDuplicates);
   * absent: every output of the record, `copies` times.
   */
  readonly tags?: ReadonlyMap<string, number>;
}

/** True if a record tagged `t` leads to the output tagged `output` (or is it). */
function leadsTo(t: string, output: string): boolean {
  return output === t || output.startsWith(`${t}/`);
}

/**
 * Runs F over the input of `graph` plus `duplicates` (partial copies' tags naming outputs, or
 * the inputs of node `options.at`).
 * @throws Error for a duplicate of an unknown split or offset, or anything referenceFold throws.
 */
export function foldWithDuplicates(
  graph: StreamGraph,
  duplicates: readonly DuplicatedInput[],
  options: { readonly at?: number } = {},
): FoldResult {
  if (duplicates.length === 0) return referenceFold(graph);
  const owner = new Map<number, StreamNode>();
  let nextId = 0;
  for (const node of wholeGraphOf(graph).nodes) {
    if (node.spec.kind !== 'source') continue;
    for (const s of node.spec.source.splits) {
      owner.set(s.id, node);
      nextId = Math.max(nextId, s.id + 1);
    }
  }
  const origin = new Map<number, { split: number; offset: number }>();
  /** Per extra split id with a partial copy: the output tags that copy keeps. */
  const kept = new Map<number, readonly string[]>();
  const extra = new Map<number, { id: number; records: unknown[] }[]>();
  for (const d of duplicates) {
    const node = owner.get(d.split);
    const split = node?.spec.kind === 'source'
      ? node.spec.source.splits.find((s) => s.id === d.split)
      : undefined;
    if (node === undefined || split === undefined || !(d.offset >= 0 && d.offset < split.records.length)) {
      throw new Error(`foldWithDuplicates: no input record ${d.split}:${d.offset}`);
    }
    for (let k = 0; k < d.copies; k++) {
      const id = nextId++;
      origin.set(id, { split: d.split, offset: d.offset });
      if (d.tags !== undefined) kept.set(id, [...d.tags].filter(([, n]) => n > k).map(([t]) => t));
      const list = extra.get(node.id) ?? [];
      list.push({ id, records: [split.records[d.offset]] });
      extra.set(node.id, list);
    }
  }
  const nodes = graph.nodes.map((node) => {
    const more = extra.get(node.id);
    if (more === undefined || node.spec.kind !== 'source') return node;
    const source = { ...node.spec.source, splits: [...node.spec.source.splits, ...more] };
    return { ...node, spec: { ...node.spec, source } };
  });
  const exactAt = (node: StreamNode): boolean => (options.at === undefined ? node.spec.kind === 'sink' : node.id === options.at);
  const keep = (r: StreamRecord, node: StreamNode): boolean => {
    const tags = kept.get(r.split);
    if (tags === undefined) return true;
    return exactAt(node) ? tags.includes(r.tag) : tags.some((t) => leadsTo(r.tag, t));
  };
  // The derived graph is another object: carry the operators F skips in the run's (foldSkips.ts).
  const skip = foldSkipsOf(graph);
  const fold = referenceFold({ ...graph, nodes } as StreamGraph, {
    ...(kept.size === 0 ? {} : { keep }), ...(skip === undefined ? {} : { skip }),
  });
  const rename = (r: StreamRecord): StreamRecord => {
    const o = origin.get(r.split);
    return o === undefined ? r : { ...r, split: o.split, offset: o.offset };
  };
  const outputsBySink = new Map<string, readonly StreamRecord[]>();
  for (const [sink, records] of fold.outputsBySink) outputsBySink.set(sink, records.map(rename));
  return { outputs: fold.outputs.map(rename), outputsBySink, state: fold.state };
}
