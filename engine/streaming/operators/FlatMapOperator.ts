/**
 * Applies a FlatMapFunction: any number of outputs per input. The i-th output (from 0) keeps the
 * input's split and offset and gets the tag `${input.tag}/${i}`, so every output of a job has a
 * distinct identity and nested flatMaps stay distinguishable (`/2/0`).
 *
 * @see org.apache.flink.streaming.api.operators.StreamFlatMap
 *
 * Invariants: stateless; outputs are emitted synchronously, in collect order, with increasing i.
 */
import type { Collector, FlatMapFunction } from '../api/functions.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from './AbstractStreamOperator.ts';

/** The flatMap operator; see the file comment. */
export class FlatMapOperator extends AbstractStreamOperator {
  constructor(uid: string, private readonly fn: FlatMapFunction<unknown, unknown>) {
    super(uid);
  }

  /** Runs `fn` on the value; each collected value is emitted at once with tag `<tag>/<i>`. */
  processElement(record: StreamRecord): void {
    let i = 0;
    const out: Collector<unknown> = {
      collect: (value) => {
        this.output.collect(
          { value, split: record.split, offset: record.offset, tag: `${record.tag}/${i}` });
        i++;
      },
    };
    this.fn(record.value, out);
  }
}
