/**
 * The operator events between a FLIP-27 SourceReader and its SourceCoordinator: the reader asks
 * for a split, the enumerator answers with one split or with "no more splits". Events are plain
 * data so they travel over the sim's RPC unchanged and print in traces.
 *
 * @see org.apache.flink.runtime.source.event.RequestSplitEvent, AddSplitEvent,
 *      NoMoreSplitsEvent
 *
 * Invariants: a split descriptor names a split of the source by id and the offset of the next
 * record to read (0 for a split that was never read); events are immutable.
 */

/** A split as it travels and as it is stored: its id and the offset of the next record. */
export interface SourceSplit {
  readonly splitId: number;
  /** Next record to read, counted from 0 within the split. */
  readonly offset: number;
}

/** Reader to coordinator: "give me a split" (one answer per request). */
export interface RequestSplitEvent {
  readonly type: 'RequestSplitEvent';
}

/** Coordinator to reader: these splits are yours now. */
export interface AddSplitEvent {
  readonly type: 'AddSplitEvent';
  readonly splits: readonly SourceSplit[];
}

/** Coordinator to reader: nothing is left for you; finish once your splits are read. */
export interface NoMoreSplitsEvent {
  readonly type: 'NoMoreSplitsEvent';
}

/** Every event of the source protocol. */
export type SourceEvent = RequestSplitEvent | AddSplitEvent | NoMoreSplitsEvent;

/** A new split request. */
export function requestSplitEvent(): RequestSplitEvent {
  return { type: 'RequestSplitEvent' };
}

/** An assignment of `splits` (copied and frozen). */
export function addSplitEvent(splits: readonly SourceSplit[]): AddSplitEvent {
  return Object.freeze({
    type: 'AddSplitEvent' as const,
    splits: Object.freeze(
      splits.map((s) => Object.freeze({ splitId: s.splitId, offset: s.offset }))),
  });
}

/** The end of assignments for one reader. */
export function noMoreSplitsEvent(): NoMoreSplitsEvent {
  return { type: 'NoMoreSplitsEvent' };
}

/** True when `event` is one of the source protocol's events. */
export function isSourceEvent(event: unknown): event is SourceEvent {
  if (typeof event !== 'object' || event === null) return false;
  const type = (event as { type?: unknown }).type;
  return type === 'RequestSplitEvent' || type === 'AddSplitEvent' || type === 'NoMoreSplitsEvent';
}
