/**
 * EventIndex: a run's stored trace events looked up by `seq` and by type, and each RPC's send by
 * its message id (and its delivery), for walking cause links (sim/Trace.ts) and for describing an event in words
 * (an `rpc.drop` or `rpc.deliver` names its message only by id).
 */
import type { TraceEvent } from '../../sim/Trace.ts';

export class EventIndex {
  private readonly bySeq = new Map<number, TraceEvent>();
  private readonly sends = new Map<number, TraceEvent>();
  private readonly deliveries = new Map<number, TraceEvent>();
  private readonly byType = new Map<string, TraceEvent[]>();

  /** @param events stored trace events in `seq` order (RunResult.trace). */
  constructor(readonly events: readonly TraceEvent[]) {
    for (const e of events) {
      this.bySeq.set(e.seq, e);
      let list = this.byType.get(e.type);
      if (list === undefined) this.byType.set(e.type, list = []);
      list.push(e);
      if (e.type === 'rpc.send') this.sends.set(e.attrs.id as number, e);
      else if (e.type === 'rpc.deliver') this.deliveries.set(e.attrs.id as number, e);
    }
  }

  /** The event with this `seq`, if stored. */
  get(seq: number | undefined): TraceEvent | undefined {
    return seq === undefined ? undefined : this.bySeq.get(seq);
  }

  /** The event that caused `e` (its `cause`), if any and stored. */
  causeOf(e: TraceEvent): TraceEvent | undefined {
    return this.get(e.cause);
  }

  /** The `rpc.send` of RPC message `id`. */
  send(id: unknown): TraceEvent | undefined {
    return typeof id === 'number' ? this.sends.get(id) : undefined;
  }

  /** The `rpc.deliver` of RPC message `id`, if it was delivered. */
  delivery(id: unknown): TraceEvent | undefined {
    return typeof id === 'number' ? this.deliveries.get(id) : undefined;
  }

  /** Every event of `type`, in order. */
  ofType(type: string): readonly TraceEvent[] {
    return this.byType.get(type) ?? [];
  }
}
