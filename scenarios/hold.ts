/**
 * `hold(method, durationMs?)`: a step action: the matching RPC is held and delivered after
 * `durationMs`, or at the heal time without it; later messages on its link wait behind it
 * (holding JobMaster -> TaskExecutor traffic longer than the heartbeat timeout also holds
 * `requestHeartbeat`, so the TaskManager is declared lost). Chains like `lose`.
 */
import { MessageFaultBuilder } from './MessageFaultBuilder.ts';

export function hold(method: string, durationMs?: number): MessageFaultBuilder {
  return new MessageFaultBuilder(durationMs === undefined ? { type: 'message', action: 'hold', method } : { type: 'message', action: 'hold', method, durationMs });
}
