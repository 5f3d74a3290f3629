/**
 * The few decisive events before a violation (ORACLES.md, "what a counterexample must say"): the
 * last trace events at or before the violation's time, skipping the chatter that rarely decides
 * anything (RPC sends and deliveries, store operation begin and end, network connects, buffers).
 *
 * Many oracles judge the end of the run (output, state, storage), so the last events alone are
 * the job finishing, far from what caused the violation. Up to half of the events are therefore
 * the latest causes before the time: the fault plan's actions (`fault`), global failures and
 * failovers, and restores (which checkpoint the job went back to).
 */
import type { TraceEvent } from '../../sim/Trace.ts';

/** Event types (or prefixes ending in `.`) left out of the decisive events. */
const NOISE = ['rpc.send', 'rpc.deliver', 'rpc.start', 'rpc.stop', 'store.begin', 'store.end',
  'net.connect', 'net.accept', 'io.', 'task', 'te.', 'rm.', 'source.split-requested'];

/** Event types that cause what follows: faults, failovers, restores. */
const CAUSES = new Set(['fault', 'scheduler.globalFailure', 'scheduler.restarting', 'checkpoint.restored']);

function isNoise(type: string): boolean {
  return NOISE.some((n) => (n.endsWith('.') ? type.startsWith(n) : type === n));
}

/**
 * Up to `count` events with `timeUs <= timeMs * 1000`, oldest first: the latest cause events
 * (at most half of `count`, rounded down) and, for the rest, the last non-noise events.
 */
export function decisiveEvents(
  trace: readonly TraceEvent[],
  timeMs: number,
  count = 10,
): TraceEvent[] {
  const limitUs = timeMs * 1000;
  let end = trace.length;
  while (end > 0 && (trace[end - 1] as TraceEvent).timeUs > limitUs) end--;
  const causes: TraceEvent[] = [];
  const maxCauses = Math.floor(count / 2);
  for (let i = end - 1; i >= 0 && causes.length < maxCauses; i--) {
    const e = trace[i] as TraceEvent;
    if (CAUSES.has(e.type)) causes.push(e);
  }
  const picked = new Set<TraceEvent>(causes);
  const last: TraceEvent[] = [];
  for (let i = end - 1; i >= 0 && last.length + causes.length < count; i--) {
    const e = trace[i] as TraceEvent;
    if (!picked.has(e) && !isNoise(e.type)) last.push(e);
  }
  return [...causes, ...last].sort((a, b) => a.seq - b.seq);
}
