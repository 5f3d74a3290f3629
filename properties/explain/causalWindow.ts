/**
 * causalWindow: the part of a run a sequence diagram of its explanation draws (`replay
 * --mermaid`): from the first to the last event the explanation puts in words, every event its
 * cause chains walked (explainRun's `seqs`) and every checkpoint-protocol and failover RPC sent in
 * that time (trigger, acknowledge, decline, confirm and abort of checkpoints, task deployment,
 * cancellation and state updates), with both ends of each RPC (its send and its delivery or
 * drop), in trace order. Heartbeats, registrations and operator events appear only when a chain
 * walked them.
 */
import type { TraceEvent } from '../../sim/Trace.ts';
import { EventIndex } from './EventIndex.ts';
import type { Explanation } from './explainRun.ts';

/** The RPC methods of the checkpoint protocol and of failover, drawn whether on a chain or not. */
const PROTOCOL_METHODS = new Set([
  'triggerCheckpoint', 'acknowledgeCheckpoint', 'declineCheckpoint', 'confirmCheckpoint', 'abortCheckpoint',
  'submitTask', 'cancelTask', 'updateTaskExecutionState',
]);

/** An RPC's delivery or drop (or rpc-loss mark): the end of the message its `id` names. */
function isRpcEnd(e: TraceEvent): boolean {
  return e.type === 'rpc.deliver' || e.type === 'rpc.drop' || (e.type === 'mark' && e.attrs.name === 'rpc-lost');
}

/** The window of `explanation` over `trace` (a run's stored events, in `seq` order). */
export function causalWindow(trace: readonly TraceEvent[], explanation: Explanation): TraceEvent[] {
  const steps = explanation.steps;
  if (steps.length === 0) return [];
  const from = (steps[0] as { seq: number }).seq;
  const to = (steps[steps.length - 1] as { seq: number }).seq;
  const index = new EventIndex(trace);
  const onChain = new Set(explanation.seqs);
  const ids = new Set<unknown>();
  for (const e of trace) {
    if (e.seq < from || e.seq > to) continue;
    if (e.type === 'rpc.send' && (onChain.has(e.seq) || PROTOCOL_METHODS.has(String(e.attrs.method)))) ids.add(e.attrs.id);
    else if (isRpcEnd(e) && onChain.has(e.seq) && index.send(e.attrs.id) !== undefined) ids.add(e.attrs.id);
  }
  return trace.filter((e) => (onChain.has(e.seq) && e.seq >= from && e.seq <= to)
    || ((e.type === 'rpc.send' || isRpcEnd(e)) && ids.has(e.attrs.id)));
}
