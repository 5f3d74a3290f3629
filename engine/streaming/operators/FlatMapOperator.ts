/**
 * Applies a FlatMapFunction: any number of outputs per input. The i-th output (from 0) keeps the
 * input's split and offset and gets the tag `<input tag>/<uid>.<i>` (see {@link tagSegment}), so
 * every output of a job has a distinct identity, however multi-output stages follow each other
 * (`/words.2/chars.0`).
 *
 * @see org.apache.flink.streaming.api.operators.StreamFlatMap
 *
 * Invariants: stateless; outputs are emitted synchronously, in collect order, with increasing i.
 */
import type { Collector, FlatMapFunction } from '../api/functions.ts';
import { tagSegment, type StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from './AbstractStreamOperator.ts';

/** The flatMap operator; see the file comment. */
export class FlatMapOperator extends AbstractStreamOperator {
  /** {@link tagSegment} of this operator, made once (it is in every output's tag). */
  private readonly segment: string;

  constructor(uid: string, private readonly fn: FlatMapFunction<unknown, unknown>) {
    super(uid);
    this.segment = tagSegment(uid);
  }

  /** Runs `fn` on the value; each collected value is emitted at once with tag `<tag>/<uid>.<i>`. */
  processElement(record: StreamRecord): void {
    let i = 0;
    const prefix = record.tag + this.segment;
    const out: Collector<unknown> = {
      collect: (value) => {
        this.output.collect(
          { value, split: record.split, offset: record.offset, tag: `${prefix}${i}` });
        i++;
      },
    };
    this.fn(record.value, out);
  }
}
