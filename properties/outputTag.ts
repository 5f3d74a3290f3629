/**
 * The tag rules for operators with several outputs per input, mirrored from the engine (the
 * oracles do not read the engine's code path):
 * - a keyed process function's output 0 keeps the input record's tag and output i >= 1 appends
 *   the segment `/<uid>.<i>` ({@link keyedOutputTag}), so one-to-one keyed stages keep `''`;
 * - a flatMap appends `/<uid>.<i>` to every output, from `.0` ({@link flatMapOutputTag}).
 * The reference fold makes each operator's {@link tagSegment} once and passes it in.
 *
 * In a segment the uid has `%` and `/` written `%25` and `%2F` ({@link tagSegment}), so a tag
 * splits into its segments at `/` and a segment into uid and index at its last `.`.
 *
 * Tags are collision-free: two different records from one input record, on one path through the
 * job, parted at some operator, which wrote different segments for them (or a segment for one
 * only, output 0 of a keyed stage keeping its tag), and no operator after it writes that
 * operator's uid. (Before segments named the operator, two multi-output keyed stages in a row
 * gave output 1 of output 0 and output 0 of output 1 the same tag `/1`.) A stream that feeds
 * several operators still gives each branch the same identity: sinks on two branches see one
 * identity each.
 */
import type { StreamGraph } from '../engine/index.ts';

/**
 * The segment an operator with uid `uid` writes before an output's index: `/<uid>.`, with `%`
 * and `/` of the uid escaped.
 */
export function tagSegment(uid: string): string {
  return `/${uid.replace(/%/g, '%25').replace(/\//g, '%2F')}.`;
}

/**
 * The tag of output `outputIndex` (0-based, in emission order) of a keyed operator whose
 * {@link tagSegment} is `segment`, for a record tagged `inputTag`.
 * @throws Error if `outputIndex` is not a non-negative integer.
 */
export function keyedOutputTag(inputTag: string, segment: string, outputIndex: number): string {
  checkIndex(outputIndex);
  return outputIndex === 0 ? inputTag : `${inputTag}${segment}${outputIndex}`;
}

/**
 * The tag of output `outputIndex` of a flatMap whose {@link tagSegment} is `segment`, for a record
 * tagged `inputTag`. @throws Error if `outputIndex` is not a non-negative integer.
 */
export function flatMapOutputTag(inputTag: string, segment: string, outputIndex: number): string {
  checkIndex(outputIndex);
  return `${inputTag}${segment}${outputIndex}`;
}

function checkIndex(outputIndex: number): void {
  if (!Number.isInteger(outputIndex) || outputIndex < 0) {
    throw new Error(`output index must be a non-negative integer, got ${outputIndex}`);
  }
}

/**
 * Operator uid → its rank in a topological order of `graph` (node order: the job API adds a
 * node after its inputs), for {@link compareTags}.
 */
export function operatorRanks(graph: StreamGraph): ReadonlyMap<string, number> {
  return new Map(graph.nodes.map((n) => [n.uid, n.id] as const));
}

interface Segment {
  readonly rank: number;
  readonly index: number;
}

/**
 * Orders two tags of the same input record by emission order, given the operators' `ranks`:
 * records leave every operator depth-first, in output order, so the order is that of the output
 * indices per operator, upstream operators first, an operator a tag does not name counting as
 * output 0 (`'' < '/k.1' < '/j.1' < '/j.1/k.1' < '/j.2'` for keyed stages j then k). Operators
 * not in `ranks` rank after every operator in it.
 */
export function compareTags(a: string, b: string, ranks: ReadonlyMap<string, number>): number {
  const sa = segments(a, ranks);
  const sb = segments(b, ranks);
  let i = 0;
  let j = 0;
  while (i < sa.length || j < sb.length) {
    const x = sa[i];
    const y = sb[j];
    if (y === undefined || (x !== undefined && x.rank < y.rank)) {
      // Only `a` names this operator: `b` was its output 0.
      if ((x as Segment).index !== 0) return (x as Segment).index;
      i++;
    } else if (x === undefined || y.rank < x.rank) {
      if (y.index !== 0) return -y.index;
      j++;
    } else {
      if (x.index !== y.index) return x.index - y.index;
      i++;
      j++;
    }
  }
  return 0;
}

/** The segments of `tag`, upstream first. */
function segments(tag: string, ranks: ReadonlyMap<string, number>): Segment[] {
  if (tag === '') return [];
  const out = tag.slice(1).split('/').map((s) => {
    const dot = s.lastIndexOf('.');
    const uid = unescapeUid(s.slice(0, dot));
    return { rank: ranks.get(uid) ?? Number.POSITIVE_INFINITY, index: Number(s.slice(dot + 1)) };
  });
  return out.sort((x, y) => x.rank - y.rank || 0);
}

/** `%25` and `%2F` back to `%` and `/` (the only escapes {@link tagSegment} writes). */
function unescapeUid(escaped: string): string {
  return escaped.replace(/%(25|2F)/g, (_m, c: string) => (c === '25' ? '%' : '/'));
}
