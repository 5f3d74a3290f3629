/**
 * The trace evidence of what a keyed operator read, for the at-least-once oracle: at each
 * snapshot (and at the final-state snapshot at end of input) the operator records one
 * `keyed.inputs` event with the identities of the records it processed since its previous
 * snapshot, so the oracle can tell which records a restored state already held and which a
 * restore made it read again, from the trace alone (not from the engine's state). Only when the
 * cluster asks for it (ClusterConfiguration.traceKeyedInputs): it costs about one identity per
 * keyed record in the trace.
 *
 * Event attributes: `task` (the attempt id `<vertex>#<subtask>@<attempt>`), `operator` (uid),
 * `checkpoint` (the snapshot's checkpoint id, -1 for the final state), `restored` (the checkpoint
 * the attempt restored from, -1 for none) and `records`: the identities in processing order,
 * separated by `,`, each `<split>:<offset>` or, for a tagged record, `<split>:<offset>:<tag>`
 * with `%` and `,` of the tag written `%25` and `%2C`; untagged records of one split at
 * consecutive offsets are written as one range `<split>:<first>-<last>`.
 *
 * Not a Flink class: Flink has no record identities. Invariant: every record passed to
 * {@link KeyedInputLog.add} appears in exactly one event, the first one after it.
 */
import type { Tracer } from '../../api/Tracer.ts';
import type { StreamRecord } from '../api/StreamRecord.ts';

/** The event type the log records. */
export const KEYED_INPUTS_EVENT = 'keyed.inputs';

/** Where a log records: the attempt and operator it belongs to. */
export interface KeyedInputLogOptions {
  readonly tracer: Tracer;
  readonly attemptId: string;
  readonly operatorUid: string;
  /** The checkpoint the attempt restored from, -1 for a fresh start. */
  readonly restoredCheckpointId: number;
}

export class KeyedInputLog {
  /** Items written since the last flush, the open range excluded. */
  private items: string[] = [];
  /** The open range of untagged consecutive offsets of split `rangeSplit` (empty: first > last). */
  private rangeSplit = 0;
  private rangeFirst = 0;
  private rangeLast = -1;

  constructor(private readonly o: KeyedInputLogOptions) {}

  /** Notes one processed record. */
  add(r: StreamRecord): void {
    if (r.tag === '') {
      if (r.split === this.rangeSplit && r.offset === this.rangeLast + 1 && this.rangeFirst <= this.rangeLast) {
        this.rangeLast = r.offset;
        return;
      }
      this.closeRange();
      this.rangeSplit = r.split;
      this.rangeFirst = r.offset;
      this.rangeLast = r.offset;
      return;
    }
    this.closeRange();
    this.items.push(`${r.split}:${r.offset}:${r.tag.replace(/%/g, '%25').replace(/,/g, '%2C')}`);
  }

  /** Records the event of snapshot `checkpointId` (-1: final state) and starts a new one. */
  flush(checkpointId: number): void {
    this.closeRange();
    this.o.tracer.event(KEYED_INPUTS_EVENT, {
      task: this.o.attemptId,
      operator: this.o.operatorUid,
      checkpoint: checkpointId,
      restored: this.o.restoredCheckpointId,
      records: this.items.join(','),
    });
    this.items = [];
  }

  private closeRange(): void {
    if (this.rangeFirst > this.rangeLast) return;
    this.items.push(this.rangeFirst === this.rangeLast
      ? `${this.rangeSplit}:${this.rangeFirst}`
      : `${this.rangeSplit}:${this.rangeFirst}-${this.rangeLast}`);
    this.rangeLast = this.rangeFirst - 1;
  }
}
