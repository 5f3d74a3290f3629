/**
 * A record in flight, with its identity. Every input record carries `(split, offset)` from the
 * source through every operator to the sink, so the oracles can say which record was lost or
 * duplicated and which restore replayed it (DESIGN.md "Records have identity"). `tag` tells
 * apart several outputs of one input (flatMap appends `/<i>`); it is `''` for one-to-one
 * operators.
 *
 * @see org.apache.flink.streaming.runtime.streamrecord.StreamRecord
 */

/** One record and its identity. Records are immutable once emitted. */
export interface StreamRecord<T = unknown> {
  readonly value: T;
  /** The source split the input record came from. */
  readonly split: number;
  /** The offset of the input record within its split, counted from 0. */
  readonly offset: number;
  /**
   * `''`, or one `/<uid>.<i>` segment per multi-output stage that gave the record an output of
   * its own (a flatMap's every output, a keyed process function's outputs i >= 1; uid escaped).
   */
  readonly tag: string;
}

/** The canonical identity string `split:offset` plus tag, used by oracles and reports. */
export function recordIdentity(r: Pick<StreamRecord, 'split' | 'offset' | 'tag'>): string {
  return `${r.split}:${r.offset}${r.tag}`;
}

/**
 * The tag segment an operator gives an output it adds, without the output's index: `/<uid>.`,
 * with `%` and `/` of the uid written `%25` and `%2F`. The output tagged `<input tag><segment><i>`
 * names the operator and the output: two different paths through a job never end in one tag,
 * since the first operator where they part writes a different segment (or one path none), and a
 * segment never spans a `/` of the uid. Used by flatMap (every output) and keyed process
 * functions (every output after the first).
 */
export function tagSegment(uid: string): string {
  return `/${uid.replace(/%/g, '%25').replace(/\//g, '%2F')}.`;
}
