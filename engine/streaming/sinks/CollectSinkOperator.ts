/**
 * A test sink that appends every record at once, with its identity and the writing subtask and
 * attempt, to a caller-owned array. It keeps no state and promises nothing: after a failover
 * the replayed records are appended again (at-least-once at best).
 *
 * @see org.apache.flink.streaming.api.functions.sink.legacy.SinkFunction (a print/collect sink)
 *
 * Invariants: stateless; one appended entry per record, in processing order.
 */
import type { CollectedRecord } from '../api/sources.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from '../operators/AbstractStreamOperator.ts';
import type { StreamOperatorContext } from '../operators/StreamOperator.ts';

/** The collect sink; see the file comment. */
export class CollectSinkOperator extends AbstractStreamOperator {
  constructor(
    uid: string,
    private readonly target: CollectedRecord[],
    private readonly ctx: StreamOperatorContext,
  ) {
    super(uid);
  }

  /** Appends `{ value, split, offset, tag, subtask, attempt }` to the target. */
  processElement(record: StreamRecord): void {
    this.target.push({
      value: record.value, split: record.split, offset: record.offset, tag: record.tag,
      subtask: this.ctx.subtaskIndex, attempt: this.ctx.attemptNumber,
    });
  }
}
