/**
 * transactionBegins: when each sink transaction began, from the trace's `sink.transaction-begun`
 * events (the first one per transaction), keyed by {@link txnKey}. The at-least-once oracle and
 * compare's duplicate attribution both order a record's committed copies by it.
 */
import type { TraceEvent } from '../../sim/Trace.ts';

/** A sink transaction's key: sink uid, subtask, attempt and epoch. */
export function txnKey(sink: unknown, subtask: unknown, attempt: unknown, epoch: unknown): string {
  return `${String(sink)}\u0000${String(subtask)}\u0000${String(attempt)}\u0000${String(epoch)}`;
}

/** Transaction key -> when it began, virtual µs. */
export function transactionBegins(trace: readonly TraceEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of trace) {
    if (e.type !== 'sink.transaction-begun') continue;
    const a = e.attrs;
    const key = txnKey(a['sink'], a['subtask'], a['attempt'], a['epoch']);
    if (!out.has(key)) out.set(key, e.timeUs);
  }
  return out;
}
