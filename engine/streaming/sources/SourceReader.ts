/**
 * The reader half of a FLIP-27 source over in-memory splits: it holds the splits assigned to its
 * subtask, each with the offset of the next record, reads them one after another in assignment
 * order, asks its context for another split whenever one is finished, and reports END_OF_INPUT
 * once the coordinator said no more splits will come and every held split is read.
 *
 * `pollNext` follows Flink's SourceReaderBase: it emits at most one record and then reports
 * MORE_AVAILABLE; NOTHING_AVAILABLE and END_OF_INPUT come only from a call that emitted nothing.
 *
 * @see org.apache.flink.api.connector.source.SourceReader,
 *      org.apache.flink.connector.base.source.reader.SourceReaderBase,
 *      org.apache.flink.api.connector.source.lib.util.IteratorSourceReaderBase
 *
 * Invariants: held split ids are unique and known to the source; every held offset lies in
 * `[0, records.length)` of its split (a split is dropped, and a new one requested, as soon as its
 * last record is emitted).
 */
import { assert } from '../../util/assert.ts';
import type { SourceSplit } from '../../coordination/SourceEvent.ts';
import type { SplitData } from '../api/sources.ts';
import type { InputStatus, Output } from '../operators/StreamOperator.ts';

/** What the reader needs from its operator (Flink's SourceReaderContext). */
export interface SourceReaderContext {
  /** Asks the coordinator for one more split. */
  sendSplitRequest(): void;
  /**
   * The reader emits the record at `offset` of split `splitId` now (the reader's metric group
   * counts it, as SourceReaderMetricGroup's numRecordsIn).
   */
  recordEmitted(splitId: number, offset: number): void;
}

interface HeldSplit {
  readonly splitId: number;
  readonly records: readonly unknown[];
  offset: number;
}

/** The reader; see the file comment. */
export class SourceReader {
  private readonly splitsById: ReadonlyMap<number, SplitData<unknown>>;
  /** Held splits in assignment order; the head is the one being read. */
  private readonly held: HeldSplit[] = [];
  private noMoreSplits = false;

  constructor(
    splits: readonly SplitData<unknown>[],
    private readonly context: SourceReaderContext,
  ) {
    this.splitsById = new Map(splits.map((s) => [s.id, s]));
  }

  /**
   * Adds assigned or restored splits, each from its offset; a split already read to its end is
   * finished at the next poll.
   * @throws AssertionError on an unknown split, an offset outside the split, or a split already
   *   held.
   */
  addSplits(splits: readonly SourceSplit[]): void {
    for (const s of splits) {
      const data = this.splitsById.get(s.splitId);
      assert(data !== undefined, () => `unknown split ${s.splitId}`);
      assert(Number.isInteger(s.offset) && s.offset >= 0 && s.offset <= data.records.length,
        () => `offset ${s.offset} outside split ${s.splitId} of ${data.records.length} records`);
      assert(!this.held.some((h) => h.splitId === s.splitId),
        () => `split ${s.splitId} added twice`);
      this.held.push({ splitId: s.splitId, records: data.records, offset: s.offset });
    }
  }

  /** The coordinator has no more splits for this reader. */
  notifyNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  /** True when no split is held. */
  get isIdle(): boolean {
    return this.held.length === 0;
  }

  /**
   * Emits the next record of the current split into `output` with identity (split id, offset,
   * tag ''), finishing the split (and requesting another) after its last record.
   */
  pollNext(output: Output): InputStatus {
    for (;;) {
      const head = this.held[0];
      if (head === undefined) return this.noMoreSplits ? 'END_OF_INPUT' : 'NOTHING_AVAILABLE';
      if (head.offset >= head.records.length) {
        this.finishHead();
        continue;
      }
      const offset = head.offset;
      head.offset++;
      this.context.recordEmitted(head.splitId, offset);
      output.collect({ value: head.records[offset], split: head.splitId, offset, tag: '' });
      if (head.offset >= head.records.length) this.finishHead();
      return 'MORE_AVAILABLE';
    }
  }

  /** Records left in the split being read (0 with none held). */
  recordsLeftInSplit(): number {
    const head = this.held[0];
    return head === undefined ? 0 : head.records.length - head.offset;
  }

  /** True when a poll would emit a record or report END_OF_INPUT. */
  isAvailable(): boolean {
    return this.held.length > 0 || this.noMoreSplits;
  }

  /** The held splits with the offset of their next record, in assignment order. */
  snapshotState(): SourceSplit[] {
    return this.held.map((h) => ({ splitId: h.splitId, offset: h.offset }));
  }

  /** Asserts the invariants of the file comment. */
  checkInvariants(): void {
    const ids = new Set<number>();
    for (const h of this.held) {
      assert(!ids.has(h.splitId), () => `split ${h.splitId} held twice`);
      ids.add(h.splitId);
      assert(this.splitsById.has(h.splitId), () => `unknown split ${h.splitId} held`);
      assert(h.offset >= 0 && h.offset <= h.records.length,
        () => `offset of split ${h.splitId} out of range`);
    }
  }

  private finishHead(): void {
    this.held.shift();
    // As FileSourceReader.onSplitFinished: one request per finished split, until told no more.
    if (!this.noMoreSplits) this.context.sendSplitRequest();
  }
}
