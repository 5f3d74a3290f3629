/**
 * causalWindow: the part of a run a sequence diagram of its explanation draws (`replay
 * --mermaid`): from the first to the last event the explanation puts in words, every event its
 * cause chains walked (explainRun's `seqs`) and every checkpoint-protocol and failover call sent in
 * that time (trigger, acknowledge, decline, confirm and abort of checkpoints, task deployment and
 * cancellation), with both ends of each RPC (its send and its delivery or drop), in trace order.
 * Answers, task state updates, heartbeats, registrations and operator events appear only when a
 * chain walked them.
 */
import type { TraceEvent } from '../../sim/Trace.ts';
import { EventIndex } from './EventIndex.ts';
import type { Explanation } from './explainRun.ts';

/** The RPC methods of the checkpoint protocol and of failover, drawn whether on a chain or not. */
const PROTOCOL_METHODS = new Set([
  'triggerCheckpoint', 'acknowledgeCheckpoint', 'declineCheckpoint', 'confirmCheckpoint', 'abortCheckpoint',
  'submitTask', 'cancelTask',
]);

/** An RPC's delivery or drop (or rpc-loss mark): the end of the message its `id` names. */
function isRpcEnd(e: TraceEvent): boolean {
  return e.type === 'rpc.deliver' || e.type === 'rpc.drop' || (e.type === 'mark' && e.attrs.name === 'rpc-lost');
}

/**
 * What an RPC is about, for a diagram's arrow: the checkpoint and the task its send was decided
 * for (`checkpoint 3 to v0#0@0`), found on the send's cause chain a few steps back; else nothing.
 */
export function rpcAbout(index: EventIndex, send: TraceEvent): string | undefined {
  // The task only from the event that decided the send itself (a trigger's `triggerSent`, a
  // deploy's `scheduler.deploy`): further back it may be another task's.
  const direct = index.causeOf(send);
  const task = direct?.attrs.task;
  let checkpoint: unknown;
  for (let x = direct, i = 0; x !== undefined && i < 6 && checkpoint === undefined; x = index.causeOf(x), i++) {
    checkpoint = x.attrs.checkpointId ?? x.attrs.checkpoint;
  }
  const parts = [typeof checkpoint === 'number' && checkpoint > 0 ? `checkpoint ${checkpoint}` : undefined,
    typeof task === 'string' ? task : undefined].filter((p) => p !== undefined);
  return parts.length === 0 ? undefined : parts.join(' ');
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
    // Answers and task state updates only when a chain walked them (they are most of the traffic).
    if (e.type === 'rpc.send' && (onChain.has(e.seq) || (e.attrs.answer !== true && PROTOCOL_METHODS.has(String(e.attrs.method))))) ids.add(e.attrs.id);
    else if (isRpcEnd(e) && onChain.has(e.seq) && index.send(e.attrs.id) !== undefined) ids.add(e.attrs.id);
  }
  return trace.filter((e) => (onChain.has(e.seq) && e.seq >= from && e.seq <= to)
    || ((e.type === 'rpc.send' || isRpcEnd(e)) && ids.has(e.attrs.id)));
}
