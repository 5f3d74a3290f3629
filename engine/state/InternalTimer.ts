/**
 * A processing-time timer in the keyed state: (timestamp, key, namespace). Timers are
 * deduplicated on that triple and stored by the key group of their key, so they are snapshotted,
 * clipped and restored exactly like keyed state.
 *
 * @see org.apache.flink.streaming.api.operators.InternalTimer
 * @see org.apache.flink.streaming.api.operators.TimerHeapInternalTimer
 *
 * Invariants: timers are immutable; `seq` is unique within one backend and breaks ties between
 * equal timestamps (Flink leaves that order to its heap; the simulation needs a total order).
 */
import type { PartitionKey } from './KeyGroupRangeAssignment.ts';

/** The namespace of timers and state that have none (Flink's `VoidNamespace`). */
export const VOID_NAMESPACE = '';

/** A timer as users and snapshots see it. */
export interface InternalTimer {
  /** Virtual time in microseconds when the timer fires. */
  readonly timestampUs: number;
  readonly key: PartitionKey;
  readonly namespace: string;
}

/** A timer inside a backend, with its tie-breaking sequence number. */
export interface ScheduledTimer extends InternalTimer {
  readonly seq: number;
}

/** The deduplication id of a timer: the same (timestamp, key, namespace) gives the same id. */
export function timerId(timestampUs: number, key: PartitionKey, namespace: string): string {
  return JSON.stringify([timestampUs, String(key), namespace]);
}

/** Total order on scheduled timers: by timestamp, then by sequence number. */
export function compareScheduledTimers(a: ScheduledTimer, b: ScheduledTimer): number {
  return a.timestampUs - b.timestampUs || a.seq - b.seq;
}
