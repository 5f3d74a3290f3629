/**
 * The few decisive events before a violation (ORACLES.md, "what a counterexample must say"): the
 * last trace events at or before the violation's time, skipping the chatter that rarely decides
 * anything (RPC sends and deliveries, store operation begin and end, network connects, buffers).
 */
import type { TraceEvent } from '../../sim/Trace.ts';

/** Event types (or prefixes ending in `.`) left out of the decisive events. */
const NOISE = ['rpc.send', 'rpc.deliver', 'rpc.start', 'rpc.stop', 'store.begin', 'store.end',
  'net.connect', 'net.accept', 'io.', 'task', 'te.', 'rm.', 'source.split-requested'];

function isNoise(type: string): boolean {
  return NOISE.some((n) => (n.endsWith('.') ? type.startsWith(n) : type === n));
}

/** The last `count` non-noise events with `timeUs <= timeMs * 1000`, oldest first. */
export function decisiveEvents(
  trace: readonly TraceEvent[],
  timeMs: number,
  count = 10,
): TraceEvent[] {
  const limitUs = timeMs * 1000;
  const out: TraceEvent[] = [];
  for (let i = trace.length - 1; i >= 0 && out.length < count; i--) {
    const e = trace[i] as TraceEvent;
    if (e.timeUs <= limitUs && !isNoise(e.type)) out.push(e);
  }
  return out.reverse();
}
