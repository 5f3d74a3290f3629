/**
 * Keeps the records for which a FilterFunction returns true, unchanged (identity included).
 *
 * @see org.apache.flink.streaming.api.operators.StreamFilter
 *
 * Invariants: stateless; at most one output per input, the input record itself.
 */
import type { FilterFunction } from '../api/functions.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from './AbstractStreamOperator.ts';

/** The filter operator; see the file comment. */
export class FilterOperator extends AbstractStreamOperator {
  constructor(uid: string, private readonly fn: FilterFunction<unknown>) {
    super(uid);
  }

  /** Emits `record` when `fn(record.value)` holds. */
  processElement(record: StreamRecord): void {
    if (this.fn(record.value)) this.output.collect(record);
  }
}
