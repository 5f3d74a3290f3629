/**
 * Applies a MapFunction to each record: one output per input, with the input's identity
 * (split, offset, tag) unchanged.
 *
 * @see org.apache.flink.streaming.api.operators.StreamMap
 *
 * Invariants: stateless; exactly one output per input, emitted before processElement returns.
 */
import type { MapFunction } from '../api/functions.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from './AbstractStreamOperator.ts';

/** The map operator; see the file comment. */
export class MapOperator extends AbstractStreamOperator {
  constructor(uid: string, private readonly fn: MapFunction<unknown, unknown>) {
    super(uid);
  }

  /** Emits `fn(record.value)` with the record's identity. */
  processElement(record: StreamRecord): void {
    const value = this.fn(record.value);
    this.output.collect({ value, split: record.split, offset: record.offset, tag: record.tag });
  }
}
