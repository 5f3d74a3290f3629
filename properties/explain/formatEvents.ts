/**
 * formatEvents: every stored event of a run, one line each, for `replay --events`:
 *
 *     #1175     94.922 ms  jobmanager     rpc.timeout {"from":"jobmaster",...}  <- #965
 *
 * `#seq` numbers the event (sim/Trace.ts) and `<- #n` names its cause, so a reader can follow
 * the links an explanation walked (properties/explain/causeChain.ts).
 */
import type { TraceEvent } from '../../sim/Trace.ts';

/** The lines, in trace order. */
export function formatEvents(events: readonly TraceEvent[]): string[] {
  const seqWidth = String(events.at(-1)?.seq ?? 0).length + 1;
  // A fold, not Math.max(...): a long run has more events than a call may take arguments.
  const hostWidth = events.reduce((w, e) => Math.max(w, e.host.length), 4);
  return events.map((e) => {
    const cause = e.cause === undefined ? '' : `  <- #${e.cause}`;
    return `${`#${e.seq}`.padEnd(seqWidth)} ${`${(e.timeUs / 1000).toFixed(3)} ms`.padStart(12)}  ${e.host.padEnd(hostWidth)}  `
      + `${e.type} ${JSON.stringify(e.attrs)}${cause}`;
  });
}
