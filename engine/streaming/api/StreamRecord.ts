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
